"""Evidence as rows: where it is (a source page, a vault file with lines, or a URL) and the quote.

One row per evidence item (ARCHITECTURE.md, Evidence: at least one locator,
optional `lines`, `quote`). Keys the row does not edit — `sha256`, a per-item
`attribution` — are kept as they were, so correcting a claim never drops
them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.ui.forms.page_picker import Page, PagePicker

LOCATORS = (("source", "Source page"), ("path", "Vault file"), ("url", "Web address"))
EDITED = ("source", "path", "url", "lines", "quote")


class EvidenceRow(QFrame):
    """One evidence item."""

    removed = Signal(object)

    def __init__(self, pages: list[Page], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.extra: dict[str, Any] = {}
        self.locator = QComboBox()
        for key, label in LOCATORS:
            self.locator.addItem(label, key)
        self.source = PagePicker("Type part of the source page's title")
        self.source.set_pages(pages)
        self.path = QLineEdit()
        self.path.setPlaceholderText("meetings/2026-09-28-standup.md (relative to the partition)")
        self.first = QSpinBox()
        self.last = QSpinBox()
        for box in (self.first, self.last):
            box.setRange(0, 10_000_000)
            box.setSpecialValueText("—")
            box.setFixedWidth(84)
            box.setToolTip("Lines cited, one-based and inclusive; — for the whole file")
        self.lines = QWidget()
        lines_layout = QHBoxLayout(self.lines)
        lines_layout.setContentsMargins(0, 0, 0, 0)
        lines_layout.addWidget(self.first)
        lines_layout.addWidget(QLabel("to"))
        lines_layout.addWidget(self.last)
        lines_layout.addStretch(1)
        self.lines_label = QLabel("Lines:")
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://…")
        self.where = QStackedWidget()
        for widget in (self.source, self.path, self.url):
            self.where.addWidget(widget)
        self.where.setFixedHeight(self.path.sizeHint().height() + 2)
        self.locator.currentIndexChanged.connect(self._locator_changed)
        self.quote = QLineEdit()
        self.quote.setPlaceholderText("The words cited, exactly as they appear")
        remove = QPushButton("Remove")
        remove.setToolTip("Remove this evidence")
        remove.clicked.connect(lambda: self.removed.emit(self))
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.addWidget(self.locator, 0, 0)
        grid.addWidget(self.where, 0, 1)
        grid.addWidget(remove, 0, 2)
        grid.addWidget(self.lines_label, 1, 0, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.lines, 1, 1, 1, 2)
        grid.addWidget(QLabel("Quote:"), 2, 0, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.quote, 2, 1, 1, 2)
        grid.setColumnStretch(1, 1)

    def _locator_changed(self, index: int) -> None:
        """Lines belong to a vault file; a page or a web address is cited whole."""
        self.where.setCurrentIndex(index)
        is_file = self.locator.currentData() == "path"
        self.lines.setVisible(is_file)
        self.lines_label.setVisible(is_file)

    def set_value(self, item: dict[str, Any]) -> None:
        self.extra = {k: v for k, v in item.items() if k not in EDITED}
        key = next((k for k, _label in LOCATORS if item.get(k)), "path")
        self.locator.setCurrentIndex([k for k, _ in LOCATORS].index(key))
        self._locator_changed(self.locator.currentIndex())
        self.source.set_value(str(item["source"]) if item.get("source") else None)
        self.path.setText(str(item.get("path") or ""))
        self.url.setText(str(item.get("url") or ""))
        lines = item.get("lines")
        if isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) for n in lines):
            self.first.setValue(lines[0])
            self.last.setValue(lines[1])
        self.quote.setText(str(item.get("quote") or ""))

    def value(self) -> dict[str, Any]:
        key = self.locator.currentData()
        out: dict[str, Any] = {}
        if key == "source" and self.source.value():
            out["source"] = self.source.value()
        elif key == "path" and self.path.text().strip():
            out["path"] = self.path.text().strip()
            if self.first.value():
                out["lines"] = [self.first.value(), self.last.value() or self.first.value()]
        elif key == "url" and self.url.text().strip():
            out["url"] = self.url.text().strip()
        if self.quote.text().strip():
            out["quote"] = self.quote.text().strip()
        out.update(self.extra)
        return out


class EvidenceRows(QWidget):
    """Every evidence item of a record, and Add Evidence."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pages: list[Page] = []
        self.rows: list[EvidenceRow] = []
        self.box = QVBoxLayout()
        self.box.setContentsMargins(0, 0, 0, 0)
        add = QPushButton("Add Evidence")
        add.clicked.connect(lambda: self.add({}))
        footer = QHBoxLayout()
        footer.addWidget(add)
        footer.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.box)
        layout.addLayout(footer)

    def set_pages(self, pages: list[Page]) -> None:
        self.pages = pages
        for row in self.rows:
            row.source.set_pages(pages)

    def add(self, item: dict[str, Any]) -> EvidenceRow:
        row = EvidenceRow(self.pages)
        row.set_value(item)
        row.removed.connect(self._remove)
        self.rows.append(row)
        self.box.addWidget(row)
        return row

    def _remove(self, row: EvidenceRow) -> None:
        self.rows.remove(row)
        row.hide()
        row.deleteLater()

    def set_value(self, items: object) -> None:
        for row in list(self.rows):
            self._remove(row)
        for item in items if isinstance(items, list) else []:
            self.add(item if isinstance(item, dict) else {})
        if not self.rows:
            self.add({})

    def value(self) -> list[dict[str, Any]]:
        return [v for v in (row.value() for row in self.rows) if v]
