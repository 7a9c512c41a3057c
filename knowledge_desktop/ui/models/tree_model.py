"""A keyed tree model: rows are plain `TreeItem`s, updated by diff, never by reset.

`set_nodes` compares the new tree with the shown one by each item's key
among its siblings and emits only the row removals, moves, inserts and
`dataChanged` that turn one into the other, so a reload after a file change
keeps the selection, the scroll position and what the user collapsed
(ARCHITECTURE: no full model reset). The Backlinks and Timeline models are
built on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QGuiApplication, QPalette

from knowledge_desktop.ui.render.values import literal

Index = QModelIndex | QPersistentModelIndex

OPEN_KEY_ROLE = Qt.ItemDataRole.UserRole
"""Record id or vault-relative path the row opens (None for group headers)."""
LINE_ROLE = Qt.ItemDataRole.UserRole + 1
"""One-based line to reveal in the opened record, 0 for none."""
MARK_ROLE = Qt.ItemDataRole.UserRole + 2
"""[start, end) of the display text to emphasise (the link or the mentioned name)."""
ALT_KEY_ROLE = Qt.ItemDataRole.UserRole + 3
"""A second record the row stands for (a relationship row's relationship record)."""


_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


@dataclass(eq=False)
class TreeItem:
    """One row: its key among its siblings, its cells, and what opening it shows."""

    key: str
    cells: tuple[str, ...]
    open_key: str | None = None
    line: int = 0
    tooltip: str = ""
    group: bool = False
    dim: bool = False
    mark: tuple[int, int] | None = None
    alt_key: str | None = None
    children: list[TreeItem] = field(default_factory=list)
    parent: TreeItem | None = field(default=None, repr=False)

    def same_look(self, other: TreeItem) -> bool:
        return (
            self.cells == other.cells
            and self.open_key == other.open_key
            and self.line == other.line
            and self.tooltip == other.tooltip
            and self.group == other.group
            and self.dim == other.dim
            and self.mark == other.mark
            and self.alt_key == other.alt_key
        )


def unique_keys(nodes: list[TreeItem]) -> list[TreeItem]:
    """Siblings need distinct keys for the merge; repeats get a counter."""
    seen: dict[str, int] = {}
    for node in nodes:
        count = seen.get(node.key, 0)
        seen[node.key] = count + 1
        if count:
            node.key = f"{node.key}#{count}"
    return nodes


class TreeModel(QAbstractItemModel):
    def __init__(self, headers: Sequence[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.headers = tuple(headers)
        self._root = TreeItem("", ())

    # -- updating ----------------------------------------------------------------------
    def set_nodes(self, nodes: list[TreeItem]) -> None:
        self._merge(QModelIndex(), self._root, nodes)

    def append_nodes(self, nodes: list[TreeItem]) -> None:
        """Add rows at the end (the next page of a paginated list)."""
        known = {n.key for n in self._root.children}
        fresh = [n for n in nodes if n.key not in known]
        if not fresh:
            return
        first = len(self._root.children)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        for node in fresh:
            self._adopt(node, self._root)
        self._root.children.extend(fresh)
        self.endInsertRows()

    def clear(self) -> None:
        self.set_nodes([])

    def _adopt(self, node: TreeItem, parent: TreeItem) -> None:
        node.parent = parent
        unique_keys(node.children)
        for child in node.children:
            self._adopt(child, node)

    def _merge(self, parent_index: QModelIndex, parent: TreeItem, wanted: list[TreeItem]) -> None:
        unique_keys(wanted)
        old = parent.children
        keys = {n.key for n in wanted}
        for row in reversed(range(len(old))):
            if old[row].key not in keys:
                self.beginRemoveRows(parent_index, row, row)
                del old[row]
                self.endRemoveRows()
        for pos, new in enumerate(wanted):
            found = next((r for r in range(pos, len(old)) if old[r].key == new.key), None)
            if found is None:
                self.beginInsertRows(parent_index, pos, pos)
                self._adopt(new, parent)
                old.insert(pos, new)
                self.endInsertRows()
                continue
            if found != pos:
                self.beginMoveRows(parent_index, found, found, parent_index, pos)
                old.insert(pos, old.pop(found))
                self.endMoveRows()
            current = old[pos]
            if not current.same_look(new):
                current.cells, current.open_key, current.line = new.cells, new.open_key, new.line
                current.tooltip, current.group, current.dim = new.tooltip, new.group, new.dim
                current.mark, current.alt_key = new.mark, new.alt_key
                last = max(len(self.headers) - 1, 0)
                self.dataChanged.emit(self.index(pos, 0, parent_index), self.index(pos, last, parent_index))
            self._merge(self.index(pos, 0, parent_index), current, new.children)

    # -- reading -----------------------------------------------------------------------
    def node(self, index: Index) -> TreeItem | None:
        if not index.isValid():
            return None
        node = index.internalPointer()
        return node if isinstance(node, TreeItem) else None

    def top_level(self) -> list[TreeItem]:
        return list(self._root.children)

    def find_key(self, *keys: str) -> QModelIndex:
        """The index reached by following sibling keys from the top (invalid when absent)."""
        index = QModelIndex()
        node = self._root
        for key in keys:
            row = next((r for r, child in enumerate(node.children) if child.key == key), None)
            if row is None:
                return QModelIndex()
            index = self.index(row, 0, index)
            node = node.children[row]
        return index

    # -- QAbstractItemModel ------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        owner = self.node(parent) if parent.isValid() else self._root
        if owner is None or not (0 <= row < len(owner.children)) or not (0 <= column < len(self.headers)):
            return QModelIndex()
        return self.createIndex(row, column, owner.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self.node(index)
        if node is None or node.parent is None or node.parent is self._root:
            return QModelIndex()
        owner = node.parent
        grand = owner.parent or self._root
        return self.createIndex(grand.children.index(owner), 0, owner)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            if parent.column() != 0:
                return 0
            node = self.node(parent)
            return len(node.children) if node is not None else 0
        return len(self._root.children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.headers)

    # A tree view lays out every row on each change and asks these two for each,
    # so they avoid building enum values or going through rowCount.
    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return bool(self._root.children)
        node = parent.internalPointer()
        return parent.column() == 0 and isinstance(node, TreeItem) and bool(node.children)

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _ROW_FLAGS if index.isValid() else _NO_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self.node(index)
        if node is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return node.cells[column] if column < len(node.cells) else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            return literal(node.tooltip) if node.tooltip else None
        if role == Qt.ItemDataRole.FontRole and node.group:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and node.dim:
            return QGuiApplication.palette().brush(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        if role == OPEN_KEY_ROLE:
            return node.open_key
        if role == LINE_ROLE:
            return node.line
        if role == MARK_ROLE:
            return list(node.mark) if node.mark is not None and column == 0 else None
        if role == ALT_KEY_ROLE:
            return node.alt_key
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.headers)
        ):
            return self.headers[section]
        return None
