"""The Repository pane's history window: how many commits to read, and a tag to stop at.

Issue 17 §1 gives the CLI `--max-commits` (1–200, default 50) and
`--since-tag`; this row gives the pane the same two choices, so a person can
ask for the changes since the last release without a terminal. The choice is
kept per vault and repository (ui/repositories.py). A tag that no longer
exists stays listed, marked missing, so the coverage's `unknown-tag` has a
visible cause and can be undone here.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox, QWidget

from knowledge_desktop.engine.extraction import ExtractOptions
from knowledge_desktop.engine.extraction.bounds import MAX_COMMITS, MIN_COMMITS

ALL_HISTORY = "none"
SETTLE_MS = 350
"""A quiet gap after the commit count changes before it is applied (typing "120")."""


class HistoryRow(QWidget):
    """`changed(ExtractOptions)` when the person picks another window; never when set."""

    changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.count = QSpinBox()
        self.count.setRange(MIN_COMMITS, MAX_COMMITS)
        self.count.setSuffix(" commits")
        self.count.setToolTip(f"First-parent commits read from HEAD ({MIN_COMMITS}–{MAX_COMMITS})")
        self.count.setKeyboardTracking(False)  # typed digits apply once, not one by one
        self.tag = QComboBox()
        self.tag.setToolTip("Stop at this local tag: only the commits after it are listed")
        self.tag.setMinimumContentsLength(12)
        self.tag.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.settle = QTimer(self)
        self.settle.setSingleShot(True)
        self.settle.setInterval(SETTLE_MS)
        self.settle.timeout.connect(self._emit)
        self.count.valueChanged.connect(lambda _: self.settle.start())
        self.tag.currentIndexChanged.connect(lambda _: self._emit())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(QLabel("History:"))
        layout.addWidget(self.count)
        layout.addWidget(QLabel("after tag:"))
        layout.addWidget(self.tag, 1)
        layout.addStretch(1)

    def set_state(self, options: ExtractOptions, tags: list[str]) -> None:
        """Show `options` with `tags` to choose from, without reporting a change."""
        self.settle.stop()
        for widget in (self.count, self.tag):
            widget.blockSignals(True)
        self.count.setValue(options.max_commits)
        self.tag.clear()
        self.tag.addItem(ALL_HISTORY, None)
        for name in tags:
            self.tag.addItem(name, name)
        if options.since_tag is not None and options.since_tag not in tags:
            self.tag.addItem(f"{options.since_tag} (missing)", options.since_tag)
        chosen = self.tag.findData(options.since_tag) if options.since_tag is not None else 0
        self.tag.setCurrentIndex(max(0, chosen))
        for widget in (self.count, self.tag):
            widget.blockSignals(False)

    def options(self) -> ExtractOptions:
        tag = self.tag.currentData()
        return ExtractOptions(max_commits=self.count.value(), since_tag=tag if isinstance(tag, str) else None)

    def _emit(self) -> None:
        self.settle.stop()
        self.changed.emit(self.options())
