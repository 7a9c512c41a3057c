"""The Catalog pane: every file of the vault as a tree, narrowed by a filter and facets.

Partitions hold kinds, kinds hold types, types hold records; each partition
also shows an Invalid and an Unrecognized group when it has such files, so
nothing the scan found is hidden unless the user asks a facet to hide it.
The tree's structure comes from one engine call; files load a page at a
time as branches are expanded or scrolled (`CatalogModel`), so a vault of
100,000 records opens as fast as a small one. A branch holds a bounded
window of its files: revealing one far down loads only the page that holds
it, and scrolling loads the pages above or below as they come into view.

A change on disk refreshes the counts and only the loaded branches that
could hold a changed file, applied as row diffs: expansion, selection and
scroll survive.

A vault that is mostly plain notes says so above the tree, with a link to
File › Adopt Notes… (`adopt_requested`; issue 29, §5): a person who opened
their Obsidian folder sees why the Records groups are nearly empty.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, ChangeSet
from knowledge_desktop.engine.query.catalog_tree import MAX_LIMIT, Branch, CatalogQuery
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.models.catalog_items import EARLIER, CatalogItem, branch_key, branch_totals
from knowledge_desktop.ui.models.catalog_model import CatalogModel
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.catalog_filters import CatalogFilters

FETCH_AHEAD = 40
"""Fetch the next page once the view shows a row this close to a branch's loaded end."""
CONTIGUOUS_PAGES = 5
"""Revealing a file at most this many pages below a branch's window loads the pages
between; further away (or above), the window jumps to the file's page."""
MAX_CHANGED_PATHS = 2000
"""Beyond this many changed files, refresh every loaded branch instead of finding the right ones."""
Rows = tuple[list[dict[str, Any]], int, int]
"""A branch's refreshed window: its file rows, the branch's total, the listing row they start at."""


MOSTLY_NOTES = 4
"""The adopt hint shows when the vault has at least this many notes per record."""


def mostly_notes(records: int, notes: int) -> bool:
    """Whether a vault's notes far outnumber its records (the adopt hint's rule)."""
    return notes > 0 and notes >= MOSTLY_NOTES * records


class CatalogPane(Pane):
    title = "Catalog"
    reads = frozenset((CATALOG,))
    adopt_requested = Signal()
    """The adopt hint's link was clicked: File › Adopt Notes…."""

    def __init__(self, runner: Runner, parent: QWidget | None = None, page_size: int = 200) -> None:
        super().__init__(runner, parent)
        self.query = CatalogQuery()
        self.model = CatalogModel(self._fetch, page_size, self)
        self._syncing = False  # True while the pane itself moves the tree's expansion or selection
        self._restored = False
        self._pending_paths: set[str] = set()
        self._refresh_all = False
        self._reveal_tries = 0

        self.filters = CatalogFilters()
        self.filters.changed.connect(self._query_changed)
        self.filters.filter.installEventFilter(self)

        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setAlternatingRowColors(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(1, self.fontMetrics().horizontalAdvance("2026-12-31") + 14)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        self.tree.activated.connect(self._activated)
        self.tree.expanded.connect(lambda _index: self._schedule_fetch())
        self.tree.verticalScrollBar().valueChanged.connect(lambda _value: self._schedule_fetch())
        self.tree.verticalScrollBar().rangeChanged.connect(lambda _lo, _hi: self._schedule_fetch())
        self.model.rowsInserted.connect(lambda *_args: self._schedule_fetch())
        self.model.window_shifting.connect(self._hold_top)
        self.model.window_shifted.connect(self._restore_top)
        self._top: CatalogItem | None = None
        self._was_syncing = False
        self._fetch_timer = QTimer(self)
        self._fetch_timer.setSingleShot(True)
        self._fetch_timer.setInterval(0)
        self._fetch_timer.timeout.connect(self._fetch_visible)

        self.empty = QLabel()
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setMargin(16)
        self.empty.setForegroundRole(self.empty.foregroundRole())
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tree)
        self.stack.addWidget(self.empty)

        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setForegroundRole(self.summary.foregroundRole())
        self.summary.setEnabled(False)  # drawn in the palette's muted text colour

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        self.adopt_hint = QLabel()
        self.adopt_hint.setObjectName("adoptHint")
        self.adopt_hint.setWordWrap(True)
        self.adopt_hint.setTextFormat(Qt.TextFormat.RichText)
        self.adopt_hint.setFrameShape(QFrame.Shape.StyledPanel)
        self.adopt_hint.setMargin(6)
        self.adopt_hint.linkActivated.connect(lambda _link: self.adopt_requested.emit())
        self.adopt_hint.hide()

        layout.addWidget(self.filters)
        layout.addWidget(self.adopt_hint)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.summary)
        self._show_empty("No vault is open. Open a vault folder to see its records here.")

    def focus_target(self) -> QWidget:
        """The tree when it shows, else the filter box (a message page takes no keys)."""
        return self.tree if self.stack.currentWidget() is self.tree else self.filters.filter

    def show_tag(self, tag: str) -> None:
        """List only what carries `tag` (a `#tag` clicked in the Record pane)."""
        self.filters.choose_tag(tag)
        self._query_changed()

    # -- settings ------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        self.filters.save(settings)

    def restore_settings(self, settings: QSettings) -> None:
        self.filters.restore(settings)
        self.query = self.filters.query()

    def _settings(self) -> QSettings | None:
        settings = getattr(self.window(), "settings", None)
        return settings if isinstance(settings, QSettings) else None

    # -- the query -------------------------------------------------------------------------
    def _query_changed(self) -> None:
        query = self.filters.query()
        if query != self.query:
            self.query = query
            self.refresh()

    @property
    def filtered(self) -> bool:
        q = self.query
        return bool(q.text or q.tag or q.lifecycle != "all" or q.validity != "all")

    # -- loading -----------------------------------------------------------------------------
    def set_vault(self, vault: Vault | None) -> None:
        if not self._restored:
            settings = self._settings()
            if settings is not None:
                self.restore_settings(settings)
            self._restored = True
        self._pending_paths.clear()
        self._refresh_all = False
        self.model.set_tree(None)
        super().set_vault(vault)
        self._load_tags()

    def _load_tags(self) -> None:
        vault = self.vault
        if vault is None:
            return
        self.runner.submit(vault.catalog_tags, self._show_tags, key="catalog-tags")

    def _show_tags(self, tags: list[str]) -> None:
        self.filters.set_tags(tags)
        self._query_changed()

    def refresh(self) -> None:
        """Reload the tree for the current query, keeping what was expanded and selected."""
        vault = self.vault
        if vault is None:
            self.model.set_tree(None)
            self._show_empty("No vault is open. Open a vault folder to see its records here.")
            self.summary.clear()
            self.adopt_hint.hide()
            return
        query = self.query
        expanded = self._expanded_keys()
        self._pending_paths.clear()
        self._refresh_all = False
        self.runner.submit(
            lambda: vault.catalog_tree(query),
            lambda tree: self._show_tree(tree, query, expanded),
            self._failed,
            key="catalog-tree",
        )

    def _show_tree(self, tree: dict[str, Any], query: CatalogQuery, expanded: set[tuple[Any, ...]]) -> None:
        if query != self.query:
            return
        first = self.model.rowCount() == 0 and not expanded
        self.model.set_tree(tree)
        self._syncing = True
        try:
            for node in self.model.root.children:
                if first or node.key in expanded:
                    self.tree.expand(self.model.index_of(node))
                for child in node.children:
                    self._restore_expansion(child, expanded)
        finally:
            self._syncing = False
        self._show_summary(tree)
        if self.current:
            self._reveal_tries = 0
            self.set_current(self.current)

    def _restore_expansion(self, node: CatalogItem, expanded: set[tuple[Any, ...]]) -> None:
        if node.key in expanded:
            self.tree.expand(self.model.index_of(node))
        if not node.is_branch:
            for child in node.children:
                self._restore_expansion(child, expanded)

    def _expanded_keys(self) -> set[tuple[Any, ...]]:
        out: set[tuple[Any, ...]] = set()
        stack = list(self.model.root.children)
        while stack:
            node = stack.pop()
            if node.kind != "record" and self.tree.isExpanded(self.model.index_of(node)):
                out.add(node.key)
                if not node.is_branch:
                    stack.extend(node.children)
        return out

    def _show_summary(self, tree: dict[str, Any]) -> None:
        total = tree["total"]
        invalid = sum(p["invalid"] for p in tree["partitions"])
        unrecognized = tree["unrecognized"]
        notes = (tree.get("notes") or {}).get("count", 0)
        if total == 0 and unrecognized == 0 and notes == 0:
            if self.filtered:
                self._show_empty(
                    "Nothing matches this filter. Clear the filter box or set the facets to All."
                )
            else:
                self._show_empty(
                    "This vault has no records yet. A record is a Markdown file with "
                    "knowledge-record-v1 frontmatter inside a partition folder."
                )
        else:
            self.stack.setCurrentWidget(self.tree)
        parts = [f"{total:,} record{'' if total == 1 else 's'}"]
        if notes:
            parts.append(f"{notes:,} note{'' if notes == 1 else 's'}")
        if invalid:
            parts.append(f"{invalid:,} invalid")
        if unrecognized:
            parts.append(f"{unrecognized:,} unrecognized")
        self.summary.setText(" · ".join(parts) + (" match" if self.filtered else ""))
        self._show_adopt_hint(total, notes)

    def _show_adopt_hint(self, records: int, notes: int) -> None:
        if self.filtered:
            return  # a filter's counts say nothing about the vault
        if not mostly_notes(records, notes):
            self.adopt_hint.hide()
            return
        self.adopt_hint.setText(
            f"Mostly plain notes here ({notes:,} notes, {records:,} record{'' if records == 1 else 's'}): "
            "linked and "
            "searchable as they are. <a href='adopt'>Adopt Notes…</a> (File menu) makes them "
            "page records the app can check."
        )
        self.adopt_hint.show()

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentWidget(self.empty)

    def _failed(self, message: str) -> None:
        self.status_message.emit(f"Catalog: {message}")

    # -- paging ---------------------------------------------------------------------------------
    def _fetch(
        self,
        branch: Branch,
        offset: int,
        limit: int,
        on_done: Any,
        on_failed: Any,
    ) -> None:
        vault = self.vault
        query = self.query
        if vault is None:
            on_failed("no vault")
            return

        def failed(message: str) -> None:
            on_failed(message)
            self._failed(message)

        self.runner.submit(lambda: vault.catalog_branch(query, branch, offset, limit), on_done, failed)

    def _schedule_fetch(self) -> None:
        self._fetch_timer.start()

    def _fetch_visible(self) -> None:
        """Fetch the next page of any branch whose loaded end is (nearly) on screen.

        The model offers QTreeView only a branch's first page (the view would
        otherwise fetch page after page on every relayout until the branch is
        whole); the following pages load here, as their rows come into view.
        """
        viewport = self.tree.viewport()
        index = self.tree.indexAt(QPoint(1, 1))
        bottom = viewport.height()
        seen = 0
        while index.isValid() and seen < 400:
            parent = index.parent()
            kind = self.model.node(index).kind
            if kind == "record":
                branch = self.model.node(parent)
                if index.row() >= len(branch.children) - FETCH_AHEAD and self.model.has_more(branch):
                    self.model.fetch(branch, self.model.page_size)
            elif kind == EARLIER:
                branch = self.model.node(parent)
                if self.model.has_earlier(branch):
                    self.model.fetch_earlier(branch)
            elif self.tree.isExpanded(index) and self.model.canFetchMore(index):
                self.model.fetchMore(index)
            if self.tree.visualRect(index).top() > bottom:
                break
            index = self.tree.indexBelow(index)
            seen += 1

    def _hold_top(self, branch: CatalogItem) -> None:
        """Remember the row to keep in place before rows of `branch` come or go above it:
        the branch's first file row when it shows (so that, once a page comes above,
        the `earlier` row is off screen and loads no more), else the top row."""
        index = self.tree.indexAt(QPoint(1, 1))
        first = branch.children[branch.lead] if branch.loaded else None
        if first is not None:
            rect = self.tree.visualRect(self.model.index_of(first))
            if rect.isValid() and 0 <= rect.top() < self.tree.viewport().height():
                index = self.model.index_of(first)
        if index.isValid() and self.model.node(index).kind == EARLIER:
            index = self.tree.indexBelow(index)
        self._top = self.model.node(index) if index.isValid() else None
        # A row let go may be the current one: Qt then moves the current index, which
        # is not the user choosing another record.
        self._was_syncing, self._syncing = self._syncing, True

    def _restore_top(self) -> None:
        """Put the remembered row back at the top, so the view does not jump."""
        self._syncing = self._was_syncing
        top, self._top = self._top, None
        owner = top.parent if top is not None else None
        if (
            top is None
            or owner is None
            or top.row >= len(owner.children)
            or owner.children[top.row] is not top
        ):
            return  # the row itself went
        self.tree.scrollTo(self.model.index_of(top), QAbstractItemView.ScrollHint.PositionAtTop)

    # -- selection and focus ---------------------------------------------------------------------
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        path = self._path_at(current)
        if path:
            self.current = str(path)
            self.open_requested.emit(str(path), 0)

    def _activated(self, index: QModelIndex) -> None:
        path = self._path_at(index)
        node = self.model.node(index) if index.isValid() else None
        if node is not None and node.kind == EARLIER and node.parent is not None:
            if self.model.has_earlier(node.parent):
                self.model.fetch_earlier(node.parent)
        elif path:
            self.open_requested.emit(str(path), 0)
        elif self.model.hasChildren(index.siblingAtColumn(0)):
            first = index.siblingAtColumn(0)
            self.tree.setExpanded(first, not self.tree.isExpanded(first))

    def selected_path(self) -> str | None:
        return self._path_at(self.tree.currentIndex())

    def _path_at(self, index: QModelIndex) -> str | None:
        """The file a row shows, read from the model's node.

        Not through `index.data()`: PySide6 6.12 on Python 3.11 drops a
        reference to None (and True/False) each time a QVariant holding one
        comes back to Python, and enough of those crash the interpreter.
        """
        if not index.isValid():
            return None
        node = self.model.node(index)
        return str(node.item["path"]) if node.kind == "record" else None

    def set_current(self, path: str | None) -> None:
        super().set_current(path)
        if path is None or self.vault is None:
            return
        if self.selected_path() == path:
            return
        node = self._loaded_node(path)
        if node is not None:
            self._select(node)
            return
        vault = self.vault
        query = self.query
        self.runner.submit(
            lambda: vault.catalog_locate(query, path),
            lambda found: self._located(found, query),
            key="catalog-locate",
        )

    def _loaded_node(self, path: str) -> CatalogItem | None:
        nodes = self.model.nodes_for_path(path)
        preferred = [n for n in nodes if n.parent is not None and n.parent.kind != "invalid"]
        found = preferred or nodes
        return found[0] if found else None

    def _located(self, found: dict[str, Any] | None, query: CatalogQuery) -> None:
        if query != self.query or found is None or found["path"] != self.current:
            if found is None and query == self.query:
                self._clear_selection()
            return
        self._reveal(found["path"], branch_key(Branch(**found["branch"])), int(found["offset"]))

    def _reveal(self, path: str, key: tuple[Any, ...], offset: int) -> None:
        """Load a branch as far as `offset` and select the file there."""
        if path != self.current:
            return
        node = self._loaded_node(path)
        if node is not None:
            self._select(node)
            return
        branch = self.model.branch_node(key)
        if branch is None or branch.start <= offset < branch.end or offset >= branch.count:
            return  # the tree moved on since; the next change or query will place it
        if branch.pending:
            if self._reveal_tries < 100:
                self._reveal_tries += 1
                QTimer.singleShot(30, self, lambda: self._reveal(path, key, offset))  # dropped with the pane
            return
        page = self.model.page_size
        need = offset + 1 - branch.end
        then = lambda: self._reveal(path, key, offset)  # noqa: E731
        if offset >= branch.end and need <= CONTIGUOUS_PAGES * page:
            self.model.fetch(branch, min(MAX_LIMIT, -(-need // page) * page), then=then)
        else:  # far below, or above: only the page holding the file
            self.model.jump(branch, offset, then=then)

    def _select(self, node: CatalogItem) -> None:
        index = self.model.index_of(node)
        self._syncing = True
        try:
            parent = index.parent()
            chain = []
            while parent.isValid():
                chain.append(parent)
                parent = parent.parent()
            for ancestor in reversed(chain):
                self.tree.expand(ancestor)
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        finally:
            self._syncing = False

    def _clear_selection(self) -> None:
        self._syncing = True
        try:
            self.tree.selectionModel().clearSelection()
            self.tree.setCurrentIndex(QModelIndex())
        finally:
            self._syncing = False

    # -- live changes --------------------------------------------------------------------------
    def apply_change(self, change: ChangeSet) -> None:
        """Refresh counts and the loaded branches that may hold a changed file, as row diffs."""
        vault = self.vault
        if vault is None or not change.touches(*self.reads):
            return
        self._pending_paths.update(change.paths, change.affected_paths)
        if change.ontology_changed or len(self._pending_paths) > MAX_CHANGED_PATHS:
            self._refresh_all = True
        paths = sorted(self._pending_paths)
        refresh_all = self._refresh_all
        query = self.query
        loaded = {
            key: (node.branch, node.start, node.loaded, node.end >= node.count, node.count)
            for key, node in self.model.loaded_branches().items()
        }
        holding = {
            n.parent.key for path in paths for n in self.model.nodes_for_path(path) if n.parent is not None
        }

        def work() -> tuple[dict[str, Any], dict[tuple[Any, ...], Rows]]:
            tree = vault.catalog_tree(query)
            totals = branch_totals(tree)
            now = {branch_key(Branch(**b)) for b in vault.catalog_branches_of(query, paths)}
            pages: dict[tuple[Any, ...], Rows] = {}
            for key, (branch, start, count, complete, old_total) in loaded.items():
                total = totals.get(key, 0)
                if not (refresh_all or key in holding or key in now or total != old_total):
                    continue
                if branch is None or total == 0 or start >= total:
                    pages[key] = ([], total, start)
                    continue
                want = total - start if complete else min(count, total - start)
                items: list[dict[str, Any]] = []
                while len(items) < want:
                    at = start + len(items)
                    page = vault.catalog_branch(query, branch, at, min(MAX_LIMIT, want - len(items)))
                    items.extend(page["items"])
                    if page["nextOffset"] is None:
                        break
                pages[key] = (items, total, start)
            return tree, pages

        self.runner.submit(
            work, lambda result: self._changed(result, query, paths), self._failed, key="catalog-change"
        )

    def _changed(
        self,
        result: tuple[dict[str, Any], dict[tuple[Any, ...], Rows]],
        query: CatalogQuery,
        paths: list[str],
    ) -> None:
        if query != self.query:
            return  # a reload for the new query is on its way and shows everything
        tree, pages = result
        keep = self.current
        # Removing the selected row makes Qt move the current index to a neighbour;
        # that is not the user choosing another record, so it must not open it.
        self._syncing = True
        try:
            self.model.update_tree(tree)
            for key, (items, total, start) in pages.items():
                self.model.replace_rows(key, items, total, start)
            if keep and self.selected_path() != keep:
                self.tree.selectionModel().clearCurrentIndex()
                self.tree.clearSelection()
        finally:
            self._syncing = False
        self._pending_paths.difference_update(paths)
        self._refresh_all = False
        self._show_summary(tree)
        if keep and self.selected_path() != keep:
            node = self._loaded_node(keep)
            if node is not None:
                self._select(node)
        self._load_tags()

    # -- keyboard ----------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filters.filter and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Down:
                self.tree.setFocus()
                if not self.tree.currentIndex().isValid():
                    self.tree.setCurrentIndex(self.model.index(0, 0))
                return True
            if event.key() == Qt.Key.Key_Escape and self.filters.filter.text():
                self.filters.filter.clear()
                return True
        return super().eventFilter(watched, event)
