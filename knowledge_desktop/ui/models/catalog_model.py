"""The catalog tree as a Qt model: partitions, kinds, types and lazily paged files.

The structural part of the tree (partitions → kinds → types, and each
partition's Invalid and Unrecognized groups) comes whole from one engine
call; it is small even for a huge vault. Nodes whose children are files
("branches") load them a page at a time through `fetchMore`, which asks a
`Fetcher` the pane supplies (the pane runs it on a worker; tests may answer
synchronously). The model itself never touches the vault.

A branch holds a window of its listing, not necessarily from the top: to
reveal a file 400,000 rows down a million-record vault, the branch drops
what it held and loads only the page holding that file (`jump`), with one
`earlier` row above standing for the files before it; scrolling up to that
row loads the page above (`fetch_earlier`). Past `max_rows` file rows a
branch lets go of those furthest from where rows were last added, so
scrolling through a huge branch holds a bounded number of rows. Around
such a shift the model emits `window_shifting` and `window_shifted`, for the
view's owner to keep the rows on screen where they were.

Changes never reset the model: `update_tree` diffs the new counts tree
against the shown one and `replace_rows` diffs a branch's fresh rows against
its loaded ones, emitting row insertions, removals and `dataChanged`, so a
view keeps its expansion, selection and scroll position.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from knowledge_desktop.engine.query.catalog_tree import Branch
from knowledge_desktop.ui.models.catalog_items import EARLIER, CatalogItem, build_items
from knowledge_desktop.ui.render.values import literal

Index = QModelIndex | QPersistentModelIndex
Fetcher = Callable[[Branch, int, int, Callable[[dict[str, Any]], None], Callable[[str], None]], None]
"""fetcher(branch, offset, limit, on_done, on_failed): deliver one `listing` page."""

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
NODE_ROLE = Qt.ItemDataRole.UserRole + 2
"""The node's kind: scope, kind, type, invalid, unrecognized, notes, note-folder or record."""

KIND_LABELS = {"page": "Pages", "claim": "Claims", "relationship": "Relationships"}
NOT_ACTIVE = ("superseded", "withdrawn", "merged")
MAX_ROWS = 5000
"""File rows one branch holds at most (25 default pages): a few MB, however long the branch."""


# Built once: the tree view asks for every row's flags on each layout.
_BRANCH_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_RECORD_FLAGS = _BRANCH_FLAGS | Qt.ItemFlag.ItemNeverHasChildren
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


def error_color(palette: QPalette) -> QColor:
    """Red that reads on the palette's base: darker on light themes, lighter on dark ones."""
    dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
    return QColor("#ff7b72") if dark else QColor("#b3261e")


class CatalogModel(QAbstractItemModel):
    window_shifting = Signal(object)
    """Rows of a branch (the argument) are about to come or go above its window's rows."""
    window_shifted = Signal()

    def __init__(
        self,
        fetcher: Fetcher,
        page_size: int = 200,
        parent: QObject | None = None,
        max_rows: int = MAX_ROWS,
    ) -> None:
        super().__init__(parent)
        self.fetcher = fetcher
        self.page_size = page_size
        self.max_rows = max_rows
        self.root = CatalogItem("root", ("root",))
        self._generation = 0
        self._branches: dict[tuple[Any, ...], CatalogItem] = {}
        self._by_path: dict[str, list[CatalogItem]] = {}

    # -- loading ----------------------------------------------------------------------
    def set_tree(self, tree: dict[str, Any] | None) -> None:
        """Show a new counts tree from scratch (a new vault, filter, facet or sort)."""
        self.beginResetModel()
        self._generation += 1
        self.root.children = build_items(tree) if tree else []
        for node in self.root.children:
            node.parent = self.root
        self.root.renumber()
        self._branches = {}
        self._by_path = {}
        for node in self._walk_structure(self.root):
            if node.is_branch:
                self._branches[node.key] = node
        self.endResetModel()

    def _walk_structure(self, node: CatalogItem) -> Iterable[CatalogItem]:
        for child in node.children:
            if child.kind == "record":
                continue
            yield child
            yield from self._walk_structure(child)

    def loaded_branches(self) -> dict[tuple[Any, ...], CatalogItem]:
        """Branches with some file rows loaded (those a change may need to refresh)."""
        return {key: node for key, node in self._branches.items() if node.children}

    def branch_node(self, key: tuple[Any, ...]) -> CatalogItem | None:
        return self._branches.get(key)

    def nodes_for_path(self, path: str) -> list[CatalogItem]:
        return list(self._by_path.get(path, ()))

    # -- Qt model API -------------------------------------------------------------------
    def node(self, index: Index) -> CatalogItem:
        if not index.isValid():
            return self.root
        node = index.internalPointer()
        assert isinstance(node, CatalogItem)
        return node

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return QModelIndex()
        owner = self.node(parent)
        if not (0 <= row < len(owner.children) and 0 <= column < 2):
            return QModelIndex()
        return self.createIndex(row, column, owner.children[row])

    def index_of(self, node: CatalogItem, column: int = 0) -> QModelIndex:
        if node is self.root or node.parent is None:
            return QModelIndex()
        return self.createIndex(node.row, column, node)

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        owner = self.node(index).parent
        if owner is None or owner is self.root:
            return QModelIndex()
        return self.createIndex(owner.row, 0, owner)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 2

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return False
        node = self.node(parent)
        if node.is_branch:
            return node.count > 0 or bool(node.children)
        return bool(node.children)

    def canFetchMore(self, parent: Index) -> bool:
        """Only a branch's first page: QTreeView asks again on every relayout of an
        expanded branch, which would load it whole; later pages are `fetch`ed by
        the view's owner as rows scroll into sight."""
        if not parent.isValid() or parent.column() != 0:
            return False
        node = self.node(parent)
        return node.is_branch and not node.children and self.has_more(node)

    @staticmethod
    def has_more(node: CatalogItem) -> bool:
        """A branch with rows not loaded below its window and no request on the way."""
        return node.is_branch and not node.pending and node.end < node.count

    @staticmethod
    def has_earlier(node: CatalogItem) -> bool:
        """A branch whose window does not start at the top, and no request on the way."""
        return node.is_branch and not node.pending and node.start > 0

    def held_rows(self) -> int:
        """File rows held in the whole tree (what the window costs in memory)."""
        return sum(node.loaded for node in self._branches.values())

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        self.fetch(self.node(parent), self.page_size)

    def fetch(self, node: CatalogItem, limit: int, then: Callable[[], None] | None = None) -> None:
        """Ask for the next `limit` rows below a branch's window; `then` runs once they are in."""
        self._request(node, node.end, limit, then, below=True)

    def fetch_earlier(self, node: CatalogItem, then: Callable[[], None] | None = None) -> None:
        """Ask for the page just above a branch's window."""
        offset = max(0, node.start - self.page_size)
        self._request(node, offset, node.start - offset, then, below=False)

    def jump(self, node: CatalogItem, offset: int, then: Callable[[], None] | None = None) -> None:
        """Let go of a branch's rows and load only the page holding listing row `offset`."""
        assert node.is_branch
        self._drop_rows(node)
        self._set_start(node, offset // self.page_size * self.page_size)
        self.fetch(node, self.page_size, then)

    def _request(
        self, node: CatalogItem, offset: int, limit: int, then: Callable[[], None] | None, *, below: bool
    ) -> None:
        assert node.branch is not None
        node.pending = True
        generation = self._generation
        key = node.key
        start = node.start

        def done(page: dict[str, Any]) -> None:
            target = self._branches.get(key)
            if generation != self._generation or target is None:
                return
            target.pending = False
            if below and page["offset"] == target.end:
                self._append_rows(target, page["items"], page["total"])
            elif not below and page["offset"] == offset and target.start == start:
                self._prepend_rows(target, page["items"], page["total"], offset)
            if then is not None:
                then()

        def failed(_message: str) -> None:
            target = self._branches.get(key)
            if target is not None and generation == self._generation:
                target.pending = False

        self.fetcher(node.branch, offset, max(1, limit), done, failed)

    def _append_rows(self, node: CatalogItem, items: list[dict[str, Any]], total: int) -> None:
        if total != node.count:
            node.count = total
            self._changed(node)
        if not items:
            return
        start = len(node.children)
        self.beginInsertRows(self.index_of(node), start, start + len(items) - 1)
        for item in items:
            node.children.append(self._record_node(node, item))
        node.renumber(start)
        self.endInsertRows()
        excess = node.loaded - self.max_rows
        if excess > 0:  # let go of the rows furthest above
            self.window_shifting.emit(node)
            self._remove(node, node.lead, node.lead + excess)
            self._set_start(node, node.start + excess)
            self.window_shifted.emit()

    def _prepend_rows(self, node: CatalogItem, items: list[dict[str, Any]], total: int, offset: int) -> None:
        if total != node.count:
            node.count = total
            self._changed(node)
        self.window_shifting.emit(node)
        lead = node.lead
        if items:
            self.beginInsertRows(self.index_of(node), lead, lead + len(items) - 1)
            node.children[lead:lead] = [self._record_node(node, item) for item in items]
            node.renumber(lead)
            self.endInsertRows()
        self._set_start(node, offset)
        excess = node.loaded - self.max_rows
        if excess > 0:  # let go of the rows furthest below
            self._remove(node, len(node.children) - excess, len(node.children))
        self.window_shifted.emit()

    def _set_start(self, node: CatalogItem, start: int) -> None:
        """Move the window's top to `start`, adding, updating or removing the `earlier` row."""
        node.start = start
        parent = self.index_of(node)
        if start > 0 and node.lead == 0:
            self.beginInsertRows(parent, 0, 0)
            node.children.insert(0, CatalogItem(EARLIER, (EARLIER, *node.key), node))
            node.renumber()
            self.endInsertRows()
        elif start > 0:
            self._changed(node.children[0])
        elif node.lead:
            self._remove(node, 0, 1)

    def _remove(self, node: CatalogItem, first: int, stop: int) -> None:
        """Remove children rows [first, stop)."""
        if stop <= first:
            return
        self.beginRemoveRows(self.index_of(node), first, stop - 1)
        for gone in node.children[first:stop]:
            self._forget(gone)
        del node.children[first:stop]
        node.renumber(first)
        self.endRemoveRows()

    def _drop_rows(self, node: CatalogItem) -> None:
        self._remove(node, 0, len(node.children))
        node.start = 0

    def _record_node(self, parent: CatalogItem, item: dict[str, Any]) -> CatalogItem:
        child = CatalogItem("record", ("record", item["path"]), parent)
        child.item = item
        self._by_path.setdefault(item["path"], []).append(child)
        return child

    def _forget(self, node: CatalogItem) -> None:
        if node.kind == EARLIER:
            return
        if node.kind == "record":
            nodes = self._by_path.get(node.item["path"], [])
            if node in nodes:
                nodes.remove(node)
            if not nodes:
                self._by_path.pop(node.item["path"], None)
            return
        self._branches.pop(node.key, None)
        for child in node.children:
            self._forget(child)

    def _adopt(self, node: CatalogItem) -> None:
        if node.is_branch:
            self._branches[node.key] = node
        for child in node.children:
            self._adopt(child)

    def _changed(self, node: CatalogItem) -> None:
        self.dataChanged.emit(self.index_of(node, 0), self.index_of(node, 1))

    # -- updating in place ------------------------------------------------------------------
    def update_tree(self, tree: dict[str, Any]) -> None:
        """Bring the structure and counts in line with a fresh counts tree, row by row."""
        fresh = CatalogItem("root", ("root",))
        fresh.children = build_items(tree)
        self._sync(self.root, fresh.children)

    def _sync(self, owner: CatalogItem, fresh: list[CatalogItem]) -> None:
        old_keys = [c.key for c in owner.children]
        new_keys = [c.key for c in fresh]
        matcher = difflib.SequenceMatcher(a=old_keys, b=new_keys, autojunk=False)
        for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
            if tag == "equal":
                for old, new in zip(owner.children[i1:i2], fresh[j1:j2], strict=True):
                    self._merge(old, new)
                continue
            if i2 > i1:
                self.beginRemoveRows(self.index_of(owner), i1, i2 - 1)
                for gone in owner.children[i1:i2]:
                    self._forget(gone)
                del owner.children[i1:i2]
                owner.renumber(i1)
                self.endRemoveRows()
            if j2 > j1:
                self.beginInsertRows(self.index_of(owner), i1, i1 + (j2 - j1) - 1)
                for added in fresh[j1:j2]:
                    added.parent = owner
                    self._adopt(added)
                owner.children[i1:i1] = fresh[j1:j2]
                owner.renumber(i1)
                self.endInsertRows()

    def _merge(self, old: CatalogItem, new: CatalogItem) -> None:
        if (old.count, old.why) != (new.count, new.why):
            old.count, old.why = new.count, new.why
            self._changed(old)
        if not old.is_branch:
            self._sync(old, new.children)

    def replace_rows(
        self, key: tuple[Any, ...], items: list[dict[str, Any]], total: int, start: int = 0
    ) -> None:
        """A branch's window as the engine lists it now, from listing row `start`:
        apply the difference (nothing when the window has moved since)."""
        node = self._branches.get(key)
        if node is None:
            return
        if total != node.count:
            node.count = total
            self._changed(node)
        if start != node.start:
            return
        if start and start >= total:  # the branch shrank above the window: start again at the top
            self._drop_rows(node)
            return
        lead = node.lead
        old_paths = [c.item["path"] for c in node.children[lead:]]
        new_paths = [item["path"] for item in items]
        matcher = difflib.SequenceMatcher(a=old_paths, b=new_paths, autojunk=False)
        parent = self.index_of(node)
        for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
            if tag == "equal":
                for offset, item in enumerate(items[j1:j2]):
                    child = node.children[lead + i1 + offset]
                    if child.item != item:
                        child.item = item
                        self._changed(child)
                continue
            self._remove(node, lead + i1, lead + i2)
            if j2 > j1:
                at = lead + i1
                self.beginInsertRows(parent, at, at + (j2 - j1) - 1)
                node.children[at:at] = [self._record_node(node, item) for item in items[j1:j2]]
                node.renumber(at)
                self.endInsertRows()

    # -- what the rows look like ---------------------------------------------------------------
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self.node(index)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._label(node) if column == 0 else self._detail(node)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = self._tooltip(node)
            return literal(tip) if tip else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(node)
        if role == Qt.ItemDataRole.FontRole:
            return self._font(node)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._icon(node)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == PATH_ROLE:
            return node.item.get("path") if node.kind == "record" else None
        if role == NODE_ROLE:
            return node.kind
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        return _RECORD_FLAGS if self.node(index).kind in ("record", EARLIER) else _BRANCH_FLAGS

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ("Name", "Count")[section] if 0 <= section < 2 else None
        return None

    @staticmethod
    def _label(node: CatalogItem) -> str:
        kind = node.kind
        if kind == "scope":
            scope = node.key[1]
            return scope if scope is not None else "Outside partitions"
        if kind == "kind":
            name = node.key[2]
            return KIND_LABELS.get(name, name or "(no kind)")
        if kind == "type":
            return node.key[3] or "(untyped)"
        if kind == "invalid":
            return "Invalid"
        if kind == "unrecognized":
            return "Unrecognized"
        if kind == "notes":
            return "Notes"
        if kind == "note-folder":
            return node.key[1] or "Vault root"
        if kind == EARLIER:
            above = node.parent.start if node.parent is not None else 0
            return f"↑ {above:,} earlier"
        label = str(node.item.get("label") or "")
        if node.item.get("status") == "note" and not node.item.get("title"):
            return label.removesuffix(".md")  # as Obsidian names a note: its file name
        return label

    @staticmethod
    def _detail(node: CatalogItem) -> str:
        if node.kind == EARLIER:
            return ""
        if node.kind != "record":
            return f"{node.count:,}"
        lifecycle = node.item.get("lifecycle")
        if lifecycle in NOT_ACTIVE:
            return str(lifecycle)
        updated = node.item.get("updatedAt") or ""
        return str(updated)[:10]

    @staticmethod
    def _tooltip(node: CatalogItem) -> str | None:
        kind = node.kind
        if kind == "invalid":
            why = f"\nFirst problem: {node.why}" if node.why else ""
            return (
                f"{node.count:,} records break the format or the ontology; each is also listed "
                f"under its type.{why}"
            )
        if kind == "unrecognized":
            why = f"\nFirst problem: {node.why}" if node.why else ""
            return f"{node.count:,} files are not readable records (see Diagnostics).{why}"
        if kind == "notes":
            return (
                f"{node.count:,} notes: Markdown files that are not records, listed by folder. "
                "They are linked and searchable; File › Adopt Notes… makes them records."
            )
        if kind == "note-folder":
            where = node.key[1] or "the vault root"
            return f"{node.count:,} notes in {where}"
        if kind == EARLIER:
            return (
                "The files listed above these are not loaded: scroll up to here, "
                "or press Enter, to load them a page at a time"
            )
        if kind == "scope":
            scope = node.key[1]
            if scope is None:
                return "Files at the vault root, outside any partition folder"
            return f"Partition {scope}: {node.count:,} records"
        if kind != "record":
            return f"{node.count:,} records"
        item = node.item
        lines = [str(item.get("title") or item.get("label") or "")]
        lines.append(str(item["path"]))
        if item.get("status") == "unrecognized":
            lines.append("Not a readable record")
        elif item.get("status") == "note":
            lines.append("Note")
        else:
            facts = [
                str(item.get("id") or "(no id)"),
                f"{item.get('kind')} / {item.get('type') or 'untyped'}",
            ]
            if item.get("lifecycle") and item["lifecycle"] != "active":
                facts.append(str(item["lifecycle"]))
            if item.get("duplicate"):
                facts.append("duplicate id")
            if not item.get("inWindow", True):
                facts.append("outside its validity window")
            if item.get("updatedAt"):
                facts.append(f"updated {item['updatedAt']}")
            lines.append(" · ".join(facts))
            if not item.get("valid", True):
                lines.append("Invalid")
        if item.get("problem") and item.get("status") != "note":
            lines.append(str(item["problem"]))
        return "\n".join(lines)

    @staticmethod
    def _palette() -> QPalette:
        return QGuiApplication.palette()

    def _foreground(self, node: CatalogItem) -> QColor | None:
        palette = self._palette()
        if node.kind in ("invalid", "unrecognized"):
            return error_color(palette)
        if node.kind != "record":
            return None
        item = node.item
        if item.get("status") == "unrecognized" or not item.get("valid", True):
            return error_color(palette)
        if item.get("lifecycle") in NOT_ACTIVE or not item.get("inWindow", True):
            return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        return None

    @staticmethod
    def _font(node: CatalogItem) -> QFont | None:
        if node.kind in ("scope", "invalid", "unrecognized", "notes"):
            font = QFont()
            font.setBold(True)
            return font
        if node.kind == "record" and node.item.get("lifecycle") in NOT_ACTIVE:
            font = QFont()
            font.setStrikeOut(node.item["lifecycle"] != "merged")
            font.setItalic(True)
            return font
        return None

    @staticmethod
    def _icon(node: CatalogItem) -> QIcon | None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return None
        pixmap = {
            "scope": QStyle.StandardPixmap.SP_DirIcon,
            "invalid": QStyle.StandardPixmap.SP_MessageBoxCritical,
            "unrecognized": QStyle.StandardPixmap.SP_MessageBoxWarning,
            "notes": QStyle.StandardPixmap.SP_FileDialogDetailedView,
            "note-folder": QStyle.StandardPixmap.SP_DirIcon,
        }.get(node.kind)
        return app.style().standardIcon(pixmap) if pixmap is not None else None
