"""The Timeline's scope chip: which page its rows are about, and the way back (issue 29, §7).

The Timeline and the Chronicle follow the page in focus: when the record pane
opens a page, they scope to it, and the chip reads "Scoped to Ada Lovelace ✕".
✕ shows the whole vault; the next page opened scopes again. The pin keeps the
current choice — that page, or the whole vault — while other pages open;
releasing it scopes to the page in focus. While a claim or relationship is
open the scope stays on the last page (they are records about pages, not pages
to scope to). With another page in focus than the scope, "Only <title>"
scopes to it. See docs/decisions.md, "The Timeline follows the page in focus".
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

ELIDE_AT = 40
Page = dict[str, Any]
"""A page as the pane knows it: its id, title and path."""


class ScopeChip(QFrame):
    changed = Signal()
    """What the rows are about changed by the person's hand (✕, Only…, or unpinning)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.focus: Page | None = None
        """The last page the record pane opened."""
        self.scope: Page | None = None
        """The page the rows are about; None for the whole vault."""
        self.setObjectName("scopeChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.setStyleSheet(
            "#scopeChip { border: 1px solid palette(mid); border-radius: 10px; background: palette(base); }"
        )
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a title is text, never markup
        self.label.setForegroundRole(QPalette.ColorRole.Text)
        self.clear_button = _button("✕", "Show the whole vault (the next page you open scopes again)")
        self.clear_button.setAccessibleName("Show the whole vault")
        self.scope_button = _button("", "Show only what the page in focus takes part in")
        self.pin = _button("Pin", "")
        self.pin.setCheckable(True)
        self.clear_button.clicked.connect(lambda: self._scope_to(None))
        self.scope_button.clicked.connect(lambda: self._scope_to(self.focus))
        self.pin.toggled.connect(self._pin_toggled)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 1, 2, 1)
        layout.setSpacing(2)
        layout.addWidget(self.label)
        layout.addWidget(self.clear_button)
        layout.addWidget(self.scope_button)
        layout.addWidget(self.pin)
        self._show()

    def pinned(self) -> bool:
        return self.pin.isChecked()

    def text(self) -> str:
        return self.label.text()

    # -- what the pane tells it -------------------------------------------------------------
    def follow(self, page: Page) -> bool:
        """The record pane opened `page`: scope to it unless pinned. True when the scope moved."""
        self.focus = page
        moved = not self.pinned() and not _same(self.scope, page)
        if moved:
            self.scope = page
        self._show()
        return moved

    def forget(self) -> None:
        """Another vault: no page in focus or in scope (a pin on the whole vault stays)."""
        self.focus = self.scope = None
        self._show()

    def restore(self, pinned_to_vault: bool) -> None:
        """A saved pin on the whole vault (a pinned page does not outlive the session)."""
        self.pin.blockSignals(True)
        self.pin.setChecked(pinned_to_vault)
        self.pin.blockSignals(False)
        if pinned_to_vault:
            self.scope = None
        self._show()

    def pinned_to_vault(self) -> bool:
        return self.pinned() and self.scope is None

    # -- inside ---------------------------------------------------------------------------
    def _scope_to(self, page: Page | None) -> None:
        self.scope = page
        self._show()
        self.changed.emit()

    def _pin_toggled(self, on: bool) -> None:
        if not on and self.focus is not None and not _same(self.scope, self.focus):
            self._scope_to(self.focus)  # following the record pane again
            return
        self._show()

    def _show(self) -> None:
        scope = _title(self.scope)
        focus = _title(self.focus)
        self.label.setText(f"Scoped to {scope}" if scope else "Whole vault")
        self.clear_button.setVisible(self.scope is not None)
        offer = self.focus is not None and not _same(self.scope, self.focus)
        self.scope_button.setVisible(offer)
        # "&" in a title is a character, not a mnemonic marker
        self.scope_button.setText(f"Only {focus.replace('&', '&&')}" if offer and focus else "")
        self.pin.setText("Pinned" if self.pinned() else "Pin")
        self.pin.setToolTip(
            "Pinned: this scope stays while other pages open (click to follow the record pane again)"
            if self.pinned()
            else "Keep this scope while other pages open"
        )


def _same(one: Page | None, other: Page | None) -> bool:
    return (one or {}).get("id") == (other or {}).get("id")


def _title(page: Page | None) -> str | None:
    if page is None:
        return None
    title = str(page.get("title") or page.get("id"))
    return title if len(title) <= ELIDE_AT else title[: ELIDE_AT - 1] + "…"


def _button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button
