"""The picker some write actions ask before their confirmation dialog.

`RecordPicker`: the other record of Supersede By… (the replacing claim) and
Merge Into… (the surviving page), listed on a worker and filtered as you
type; an id typed in full is taken as it is. Correct…'s form is `ui/forms/`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.tasks import Runner

PICK_LIMIT = 1000


class RecordPicker(QDialog):
    """Choose one record of a kind (and type) in a partition, other than `exclude`."""

    chosen = Signal(str)
    listed = Signal()

    def __init__(
        self,
        runner: Runner,
        vault: Vault,
        wanted: RecordFilter,
        exclude: str,
        title: str,
        prompt: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"{title} — Knowledge Desktop")
        self.resize(520, 440)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by title, or type an id")
        self.filter.textChanged.connect(self._filter)
        self.list = QListWidget()
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        self.list.currentRowChanged.connect(lambda _row: self._update())
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        label = QLabel(prompt)
        label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)
        self._update()

        def work() -> list[dict[str, Any]]:
            items: list[dict[str, Any]] = vault.records(wanted, limit=PICK_LIMIT)["items"]
            return [item for item in items if item["id"] != exclude]

        runner.submit(work, self._listed)

    def _listed(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            row = QListWidgetItem(f"{item['title']}  ·  {item['type'] or item['kind']}  ·  {item['id']}")
            row.setData(Qt.ItemDataRole.UserRole, str(item["id"]))
            row.setToolTip(str(item["path"]))
            self.list.addItem(row)
        if self.list.count():
            self.list.setCurrentRow(0)
        self._filter(self.filter.text())
        self.listed.emit()

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.list.count()):
            row = self.list.item(i)
            row.setHidden(bool(needle) and needle not in row.text().lower())
        self._update()

    def choose(self, record_id: str) -> None:
        """Select the row of `record_id` (as a click would)."""
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == record_id:
                self.list.setCurrentRow(i)

    def selected_id(self) -> str | None:
        row = self.list.currentItem()
        if row is not None and not row.isHidden():
            return str(row.data(Qt.ItemDataRole.UserRole))
        typed = self.filter.text().strip()
        return typed if "_" in typed and " " not in typed else None

    def _update(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(self.selected_id() is not None)

    def accept(self) -> None:
        record_id = self.selected_id()
        if record_id is None:
            return
        super().accept()
        self.chosen.emit(record_id)
