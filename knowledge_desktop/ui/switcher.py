"""The quick switcher (Ctrl+P / Ctrl+O): jump to a record or a note by typing part of its name.

A small frameless popup over the middle of the window, like the switchers of
code editors: it should feel like part of the window, not a separate dialog
to manage. Suggestions come from `Vault.suggest` on a worker under the
Runner key "switcher", after a short pause in typing (names are cheap to
match, so the pause is shorter than the Search pane's). Like a search, each
request first brings the vault up to date on its worker (ui/live.py `LiveReads`).
Closing it — Esc, or Enter on a suggestion — gives the keyboard focus back to
the widget that had it when it popped up (issue 29 §8).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.live import LiveReads, fresh_then
from knowledge_desktop.ui.models.search_model import KEY_ROLE, ResultDelegate, ResultsModel, suggestion_row
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.focus_return import focus_again, focused_now

DEBOUNCE_MS = 50
LIMIT = 30


class QuickSwitcher(QDialog):
    chosen = Signal(str)
    """The vault-relative path of the record or note to open."""

    def __init__(self, runner: Runner, parent: QWidget) -> None:
        super().__init__(parent, Qt.WindowType.Dialog | Qt.WindowType.FramelessWindowHint)
        self.runner = runner
        self.vault: Vault | None = None
        self.live: LiveReads | None = None
        self._shown_for = ""
        """The text the listed suggestions answer (the box may have moved on)."""
        self._open_when_ready = False
        self._return_to: QWidget | None = None
        """The widget that had the keyboard focus when the switcher popped up."""
        self.finished.connect(self._give_focus_back)
        self.setWindowTitle("Quick Switcher")
        self.setModal(True)

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.suggest_now)
        frame = QFrame(self)
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        frame.setAutoFillBackground(True)
        frame.setBackgroundRole(QPalette.ColorRole.Window)
        self.field = QLineEdit()
        self.field.setPlaceholderText("Go to a record or note — type part of a title, alias or file name")
        self.field.setClearButtonEnabled(True)
        self.field.textEdited.connect(lambda _text: self.timer.start())
        self.field.installEventFilter(self)
        self.hint = QLabel("Enter opens · Esc closes")
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.model = ResultsModel(self)  # owned by the dialog: never left for a worker to collect
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setItemDelegate(ResultDelegate(self.list))
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.activated.connect(self._open_index)  # Enter in the list, and a double-click
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(8, 8, 8, 8)
        inner.setSpacing(6)
        inner.addWidget(self.field)
        inner.addWidget(self.list, 1)
        inner.addWidget(self.hint)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)

    def popup(self, vault: Vault, live: LiveReads | None = None) -> None:
        """Show empty and centred on the window, ready for typing."""
        before = focused_now()
        if before is not None and before.window() is not self:
            self._return_to = before
        self.vault = vault
        self.live = live
        self.field.clear()
        self.model.set_rows([])
        self._shown_for = ""
        self._open_when_ready = False
        self.hint.setText("Enter opens · Esc closes")
        parent = self.parentWidget()
        if parent is not None:
            area = parent.geometry()
            width = min(640, max(360, area.width() * 6 // 10))
            height = min(460, max(260, area.height() * 6 // 10))
            self.resize(width, height)
            top_left = parent.mapToGlobal(parent.rect().center())
            self.move(top_left.x() - width // 2, top_left.y() - height * 2 // 3)
        self.show()  # a fresh show already stacks it on top; raise_() would only warn offscreen
        self.activateWindow()
        self.field.setFocus(Qt.FocusReason.PopupFocusReason)

    def suggest_now(self) -> None:
        self.timer.stop()
        vault, text = self.vault, self.field.text()
        if vault is None:
            return
        if not text.strip():
            self.model.set_rows([])
            self._shown_for = text
            return
        self.runner.submit(
            fresh_then(self.live, lambda: vault.suggest(text, LIMIT)),
            lambda answer: self._show(text, answer),
            self.hint.setText,
            key="switcher",
        )

    def _show(self, text: str, answer: dict[str, Any]) -> None:
        if text != self.field.text():
            return
        self.model.set_rows([suggestion_row(item) for item in answer["items"]])
        self._shown_for = text
        if self.model.rowCount():
            self.list.setCurrentIndex(self.model.index(0, 0))
            self.hint.setText("Enter opens · Esc closes")
        else:
            self.hint.setText(f"No title, alias or note name contains “{text.strip()}”")
        if self._open_when_ready:
            self._open_when_ready = False
            self.open_selected()

    def open_selected(self) -> None:
        """Enter: open the highlighted suggestion (waiting for them if typing just stopped)."""
        if self._shown_for != self.field.text():
            self._open_when_ready = True
            if self.timer.isActive():
                self.suggest_now()
            return
        index = self.list.currentIndex()
        if not index.isValid() and self.model.rowCount():
            index = self.model.index(0, 0)
        self._open_index(index)

    def _open_index(self, index: QModelIndex) -> None:
        key = index.data(KEY_ROLE) if index.isValid() else None
        if key:
            self.accept()  # hides it, and `finished` gives the focus back
            self.chosen.emit(str(key))

    def _give_focus_back(self, _code: int) -> None:
        to, self._return_to = self._return_to, None
        if to is not None:
            focus_again(to)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                count = self.model.rowCount()
                if count:
                    row = self.list.currentIndex().row() if self.list.currentIndex().isValid() else -1
                    row = min(max(row + (1 if key == Qt.Key.Key_Down else -1), 0), count - 1)
                    self.list.setCurrentIndex(self.model.index(row, 0))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_selected()
                return True
        return super().eventFilter(watched, event)
