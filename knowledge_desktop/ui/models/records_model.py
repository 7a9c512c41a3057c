"""A table model over catalog rows: the records of a vault, as the engine lists them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

COLUMNS = (
    ("title", "Title"),
    ("kind", "Kind"),
    ("type", "Type"),
    ("lifecycle", "Lifecycle"),
    ("path", "Path"),
)

Index = QModelIndex | QPersistentModelIndex


class RecordsModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row_at(self, row: int) -> dict[str, Any]:
        return self._rows[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            value = row.get(key)
            if key == "title" and not value:
                return row.get("path")
            return "" if value is None else str(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            problem = "" if row.get("valid", True) else "\ninvalid — see knowledge diagnostics"
            return f"{row.get('id') or '(no id)'}\n{row.get('path')}{problem}"
        if role == Qt.ItemDataRole.ForegroundRole and not row.get("valid", True):
            return QBrush(QColor("#b3261e"))  # invalid records stand out
        if role == Qt.ItemDataRole.FontRole and not row.get("valid", True):
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.UserRole:
            return row.get("id")
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        return None
