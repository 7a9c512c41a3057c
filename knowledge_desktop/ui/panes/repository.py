"""The Repository pane: decisions, concepts and changes of the documentation repositories
added to the vault, each with its evidence, the claims that support it, and coverage.

Issue 17 §3; the document it shows is the engine's `KnowledgeEntitiesV1`
(docs/extraction.md, "Repository pane"). One tab per kind plus Coverage, a
filter box, and an evidence viewer below: activating an entity or one of its
evidence rows shows the cited region highlighted (or the commit with its
touched paths); activating a supporting claim opens it in the Record pane.
Extraction runs on a worker with the repository's kept `Extractor`
(ui/repositories.py) when the vault opens, when its claims change and when
the repository's files or HEAD move; the trees are rebuilt in place, keeping
the selection, the expanded rows and the scroll position.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, TEXT
from knowledge_desktop.engine.extraction import ExtractOptions
from knowledge_desktop.engine.extraction.history import local_tags
from knowledge_desktop.engine.extraction.inline import visible_text
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.panes import repository_words as words
from knowledge_desktop.ui.panes.backlinks_docs import DocIndex, DocumentationSection
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.region_viewer import RegionViewer, read_commit, read_region, region_text
from knowledge_desktop.ui.panes.repository_history import HistoryRow
from knowledge_desktop.ui.panes.repository_symbols import (
    SymbolIndex,
    concept_pages,
    fill_symbols_tree,
    symbol_rows,
)
from knowledge_desktop.ui.repositories import (
    Extraction,
    RepositoryWatcher,
    added_repositories,
    history_options,
    set_history_options,
    set_repositories,
)
from knowledge_desktop.ui.tasks import Runner

ROLE = Qt.ItemDataRole.UserRole
COLUMNS = {
    "decision": ("Decision", "Status", "Date", "Supersession"),
    "concept": ("Term", "Aliases", "Definition"),
    "change": ("Change", "Release or commit", "Type", "Breaking"),
}
TAB_TITLES = {"decision": "Decisions", "concept": "Concepts", "change": "Changes"}


class RepositoryPane(Pane):
    title = "Repository"
    reads = frozenset((CATALOG, TEXT))  # the claims linked to the entities

    def __init__(self, runner: Runner, settings: QSettings, documentation: DocumentationSection) -> None:
        super().__init__(runner)
        self.settings = settings
        self.documentation = documentation
        documentation.entity_requested.connect(self.reveal)
        self.extractions: dict[str, Extraction] = {}
        self.definitions: dict[str, dict[str, str]] = {}
        self.pending_reveal: tuple[str, str] | None = None
        """(folder, entity id) to reveal once that folder's extraction arrives (`--select`)."""
        self.watcher = RepositoryWatcher(self)
        self.watcher.changed.connect(self.extract)

        self.repos = QComboBox()
        self.repos.setToolTip("Documentation repositories added to this vault (File › Add Repository…)")
        self.repos.currentIndexChanged.connect(lambda _: self._show())
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by name, alias or path")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _: self._apply_filter())
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(90)
        self.progress.setFormat("")
        self.progress.setToolTip("Reading the repository…")
        self.progress.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.repos, 2)
        top.addWidget(self.filter, 2)
        top.addWidget(self.progress)
        self.history = HistoryRow(self)
        self.history.changed.connect(self._history_changed)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setContentsMargins(4, 0, 4, 0)

        self.trees: dict[str, QTreeWidget] = {}
        self._fitted: set[tuple[str, str]] = set()
        """(repository, kind) whose short columns were sized to their contents once."""
        self.tabs = QTabWidget()
        for kind, columns in COLUMNS.items():
            tree = QTreeWidget()
            tree.setColumnCount(len(columns))
            tree.setHeaderLabels(list(columns))
            tree.setAlternatingRowColors(True)
            tree.itemActivated.connect(self._activate)  # Enter or double-click
            tree.itemClicked.connect(self._activate)  # issue 17: "a click opens the exact region"
            tree.setColumnWidth(0, 280)
            self.trees[kind] = tree
            self.tabs.addTab(tree, TAB_TITLES[kind])
        self.symbols = QTreeWidget()
        self.symbols.setHeaderLabels(["Module or symbol", "Kind", "Lines"])
        self.symbols.setUniformRowHeights(True)
        self.symbols.setAlternatingRowColors(True)
        self.symbols.setColumnWidth(0, 320)
        # a module's file name is what a person scans for: cut long paths in the middle
        self.symbols.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.symbols.itemActivated.connect(self._activate)
        self.symbols.itemClicked.connect(self._activate)
        self.tabs.addTab(self.symbols, "Symbols")
        self.named_pages: dict[str, DocIndex] = {}
        """Per repository: vault page id → the concepts of its name that are defined in code."""
        self.coverage = QTreeWidget()
        self.coverage.setHeaderLabels(["Area", "Status"])
        self.coverage.setColumnWidth(0, 260)
        self.tabs.addTab(self.coverage, "Coverage")
        self.viewer = RegionViewer()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tabs)
        split.addWidget(self.viewer)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.empty = QLabel("No repository added to this vault.\nUse File › Add Repository… to add one.")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setContentsMargins(12, 12, 12, 12)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(top)
        body.addWidget(self.history)
        body.addWidget(self.summary)
        body.addWidget(split)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.body)
        self.body.setVisible(False)

    # -- repositories ------------------------------------------------------------------
    @property
    def root(self) -> str | None:
        data = self.repos.currentData()
        return str(data) if data else None

    def set_vault(self, vault: Vault | None) -> None:
        self.watcher.stop()
        self.extractions.clear()
        self.definitions.clear()
        self.named_pages.clear()
        self.repos.blockSignals(True)
        self.repos.clear()
        for folder in added_repositories(self.settings, vault.root) if vault is not None else []:
            self._add_entry(folder)
        self.repos.blockSignals(False)
        self._publish()
        super().set_vault(vault)  # refresh(): extract each one

    def _add_entry(self, folder: str) -> None:
        options = history_options(self.settings, self.vault.root, folder) if self.vault else None
        self.extractions[folder] = Extraction(Path(folder), options)
        self.repos.addItem(Path(folder).name or folder, folder)
        self.repos.setItemData(self.repos.count() - 1, folder, Qt.ItemDataRole.ToolTipRole)
        self.watcher.watch(Path(folder))

    def add_repository(self, folder: Path) -> None:
        """Remember `folder` for this vault, show it and read it."""
        if self.vault is None:
            return
        key = str(folder.resolve())
        if key not in self.extractions:
            set_repositories(self.settings, self.vault.root, [*self.extractions, key])
            self._add_entry(key)
        self.repos.setCurrentIndex(self.repos.findData(key))
        self.extract(key)

    def remove_repository(self, folder: str | None = None) -> None:
        key = folder or self.root
        if self.vault is None or key is None or key not in self.extractions:
            return
        self.watcher.unwatch(Path(key))
        del self.extractions[key]
        self.definitions.pop(key, None)
        self.named_pages.pop(key, None)
        set_repositories(self.settings, self.vault.root, list(self.extractions))
        set_history_options(self.settings, self.vault.root, key, None)
        self.repos.removeItem(self.repos.findData(key))
        self._publish()
        self._show()

    # -- extraction --------------------------------------------------------------------
    def refresh(self) -> None:
        for folder in self.extractions:
            self.extract(folder)
        self._show()

    def extract(self, folder: str) -> None:
        extraction, vault = self.extractions.get(folder), self.vault
        if extraction is None:
            return

        def work() -> tuple[dict[str, Any], dict[str, str], list[str], dict[str, Any] | None, DocIndex]:
            document, snapshot = extraction.run_with_symbols(vault)
            named = concept_pages(document, vault, extraction.root)
            defs = {
                e["id"]: region_text(extraction.root, e["evidence"][0])
                for e in document["entities"]
                if e["kind"] == "concept" and e["evidence"] and e["evidence"][0]["kind"] == "document-region"
            }
            return document, defs, local_tags(extraction.root), snapshot, named

        self.progress.setVisible(True)
        self.runner.submit(
            work,
            lambda result: self._extracted(folder, *result),
            lambda message: self._failed(folder, message),
            key=f"repository:{folder}",
        )

    def _extracted(
        self,
        folder: str,
        document: dict[str, Any],
        defs: dict[str, str],
        tags: list[str],
        snapshot: dict[str, Any] | None = None,
        named: DocIndex | None = None,
    ) -> None:
        extraction = self.extractions.get(folder)
        if extraction is None:
            return
        extraction.document = document
        extraction.snapshot = snapshot
        self.named_pages[folder] = named or {}
        extraction.tags = tags
        self.definitions[folder] = defs
        self.progress.setVisible(False)
        self._publish()
        if folder == self.root:
            self._show()
            viewer = self.viewer.region
            if viewer is not None and not viewer.matches:  # the region shown was stale: show it anew
                self._open_selected()
        if self.pending_reveal is not None and self.pending_reveal[0] == folder:
            self.reveal(*self.pending_reveal)
            self.pending_reveal = None

    def _failed(self, folder: str, message: str) -> None:
        self.progress.setVisible(False)
        if folder == self.root:
            self.summary.setText(f"Could not read {folder}: {message}")
        self.status_message.emit(f"Repository {folder}: {message}")

    def _publish(self) -> None:
        """Hand the Backlinks pane its index: claim id → the entities it supports."""
        index: DocIndex = {}
        for folder, extraction in self.extractions.items():
            doc = extraction.document
            if doc is None:
                continue
            by_id = {e["id"]: e for e in doc["entities"]}
            for target, claims in words.supporters(doc).items():
                e = by_id.get(target)
                if e is None:
                    continue
                for claim in claims:
                    index.setdefault(claim, []).append((folder, target, e["kind"], e["name"]))
            for page, rows in self.named_pages.get(folder, {}).items():
                index.setdefault(page, []).extend(rows)
        self.documentation.set_index(index)

    def _history_changed(self, options: ExtractOptions) -> None:
        """The person chose another history window for the shown repository: keep it for
        this vault and read the repository again with it."""
        folder, extraction = self.root, self.extractions.get(self.root or "")
        if folder is None or extraction is None or self.vault is None or options == extraction.options:
            return
        extraction.options = options
        set_history_options(self.settings, self.vault.root, folder, options)
        self.extract(folder)

    # -- showing -----------------------------------------------------------------------
    def _show(self) -> None:
        folder = self.root
        self.empty.setVisible(folder is None)
        self.body.setVisible(folder is not None)
        extraction = self.extractions.get(folder or "")
        if extraction is not None:
            self.history.set_state(extraction.options, extraction.tags)
        document = extraction.document if extraction is not None else None
        if document is None:
            for tree in (*self.trees.values(), self.symbols, self.coverage):
                tree.clear()
            self.summary.setText("Reading the repository…" if folder else "")
            return
        by_id = {e["id"]: e for e in document["entities"]}
        support = words.supporters(document)
        defs = self.definitions.get(str(folder), {})
        assert extraction is not None
        code = SymbolIndex(extraction.snapshot)
        for kind, tree in self.trees.items():
            state = _save_state(tree)
            tree.clear()
            rows = [e for e in document["entities"] if e["kind"] == kind]
            for e in rows:
                tree.addTopLevelItem(_entity_item(e, by_id, support.get(e["id"], []), defs, code))
            self.tabs.setTabText(list(self.trees).index(kind), f"{TAB_TITLES[kind]} ({len(rows)})")
            _restore_state(tree, state)
            if rows and (str(folder), kind) not in self._fitted:
                self._fitted.add((str(folder), kind))  # once: a width the person set stays
                _fit_columns(tree)
        state = _save_state(self.symbols)
        count = fill_symbols_tree(self.symbols, extraction.snapshot)
        _restore_state(self.symbols, state)
        self.tabs.setTabText(self.tabs.indexOf(self.symbols), f"Symbols ({count})")
        self._show_coverage(document["coverage"])
        self.summary.setText(words.coverage_summary(document["coverage"]))
        self._apply_filter()

    def _show_coverage(self, coverage: dict[str, Any]) -> None:
        expanded = {item.text(0) for item in top_items(self.coverage) if item.isExpanded()}
        self.coverage.clear()
        for area, status, reasons in words.coverage_lines(coverage):
            item = QTreeWidgetItem([area, status])
            for reason in reasons:
                child = QTreeWidgetItem([reason])
                child.setFirstColumnSpanned(True)
                child.setToolTip(0, reason)
                item.addChild(child)
            self.coverage.addTopLevelItem(item)
            item.setExpanded(area in expanded or status != "complete")
            for child in children(item):
                child.setFirstColumnSpanned(True)

    def _apply_filter(self) -> None:
        needle = self.filter.text().strip().lower()
        for tree in (*self.trees.values(), self.symbols):
            for item in top_items(tree):
                hay = str(item.data(0, Qt.ItemDataRole.UserRole + 1) or "").lower()
                item.setHidden(bool(needle) and needle not in hay)

    # -- opening -----------------------------------------------------------------------
    def _activate(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        role, value = item.data(0, ROLE)
        folder = self.root
        if folder is None:
            return
        if role == "claim":
            self.open_requested.emit(str(value), 0)
            return
        if role == "module":
            self.reveal_module(str(value))
            return
        if role == "entity":
            evidence = item.data(0, Qt.ItemDataRole.UserRole + 2) or []
            if not evidence:
                return
            value = evidence[0]
        root = Path(folder)
        if value.get("kind") == "commit":
            sha = str(value["sha"])
            self.runner.submit(lambda: read_commit(root, sha), self.viewer.show_commit, key="repository-view")
        else:
            ev = dict(value)
            self.runner.submit(lambda: read_region(root, ev), self.viewer.show_region, key="repository-view")

    def _open_selected(self) -> None:
        tree = self.tabs.currentWidget()
        current = tree.currentItem() if isinstance(tree, QTreeWidget) else None
        if current is not None and tree is not self.coverage:
            self._activate(current)

    def reveal(self, folder: str, entity_id: str) -> None:
        """Show `entity_id` of the repository `folder`, selected, with its evidence open."""
        index = self.repos.findData(folder)
        if index < 0:
            return
        self.repos.setCurrentIndex(index)
        dock = self.parentWidget()
        if dock is not None:
            dock.show()
            dock.raise_()
        for tree in self.trees.values():
            for item in top_items(tree):
                if item.data(0, ROLE) == ("entity", entity_id):
                    self.filter.clear()
                    self.tabs.setCurrentWidget(tree)
                    tree.setCurrentItem(item)
                    tree.scrollToItem(item)
                    self._activate(item)
                    return

    def reveal_module(self, module_id: str) -> None:
        """Show a module's row in the Symbols tab, expanded (a change's touched code)."""
        for item in top_items(self.symbols):
            if item.data(0, ROLE) == ("module", module_id):
                self.filter.clear()
                self.tabs.setCurrentWidget(self.symbols)
                item.setExpanded(True)
                self.symbols.setCurrentItem(item)
                self.symbols.scrollToItem(item)
                return

    def focus_target(self) -> QWidget:
        return self.tabs.currentWidget() if self.body.isVisible() else self.empty

    def close_watchers(self) -> None:
        self.watcher.stop()


def _entity_item(
    e: dict[str, Any],
    by_id: dict[str, dict[str, Any]],
    claims: list[str],
    defs: dict[str, str],
    code: SymbolIndex,
) -> QTreeWidgetItem:
    kind = e["kind"]
    if kind == "decision":
        status = visible_text(str(e.get("status", "")))  # "Superseded by [3. …](0003-….md)" reads as shown
        cells = [e["name"], status, e.get("date", ""), words.supersession_chain(e, by_id)]
    elif kind == "concept":
        cells = [e["name"], ", ".join(e.get("aliases", [])), defs.get(e["id"], "")]
    else:
        conventional = e.get("conventional") or {}
        kind_text = conventional.get("type", "")
        if conventional.get("scope"):
            kind_text += f"({conventional['scope']})"
        cells = [
            e["name"],
            words.change_release(e),
            kind_text,
            "breaking" if conventional.get("breaking") else "",
        ]
    item = QTreeWidgetItem([str(c) for c in cells])
    item.setData(0, ROLE, ("entity", e["id"]))
    item.setData(
        0,
        ROLE + 1,
        " ".join(
            [e["id"], e["name"], *e.get("aliases", [])] + [str(ev.get("path", "")) for ev in e["evidence"]]
        ),
    )
    item.setData(0, ROLE + 2, e["evidence"])
    item.setToolTip(0, e["id"])
    for col, text in enumerate(cells):
        if text and col:
            item.setToolTip(col, str(text))
    for row in symbol_rows(e, code):
        item.addChild(row)
        row.setFirstColumnSpanned(True)
    for ev in e["evidence"]:
        if ev.get("kind") == "fact":
            continue  # the symbol row above says it in words
        child = QTreeWidgetItem([f"Evidence: {words.evidence_label(ev)}"])
        child.setData(0, ROLE, ("evidence", ev))
        item.addChild(child)
        child.setFirstColumnSpanned(True)
    for claim in claims:
        child = QTreeWidgetItem([f"Supported by claim {claim}"])
        child.setData(0, ROLE, ("claim", claim))
        child.setToolTip(0, "Open this claim in the Record pane")
        item.addChild(child)
        child.setFirstColumnSpanned(True)
    return item


def _key(item: QTreeWidgetItem | None) -> str | None:
    return None if item is None else repr(item.data(0, ROLE))


def _save_state(tree: QTreeWidget) -> tuple[str | None, set[str], int]:
    expanded = {str(_key(item)) for item in top_items(tree) if item.isExpanded()}
    return _key(tree.currentItem()), expanded, tree.verticalScrollBar().value()


def _restore_state(tree: QTreeWidget, state: tuple[str | None, set[str], int]) -> None:
    current, expanded, scroll = state
    for item in top_items(tree):
        if _key(item) in expanded:
            item.setExpanded(True)
        for node in [item, *children(item)]:
            if current is not None and _key(node) == current:
                tree.setCurrentItem(node)
    tree.verticalScrollBar().setValue(scroll)


def top_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """The tree's top-level items (Qt's accessor may answer None; these never are)."""
    found = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return [item for item in found if item is not None]


def children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    found = (item.child(i) for i in range(item.childCount()))
    return [child for child in found if child is not None]


def _fit_columns(tree: QTreeWidget, widest: int = 170) -> None:
    """Size the short columns (status, date, release, type…) to what they hold, up to `widest`,
    so a release heading or a date is not cut to "[1.0.0] - 202…"; the name column keeps its width."""
    for column in range(1, tree.columnCount()):
        tree.resizeColumnToContents(column)
        tree.setColumnWidth(column, min(tree.columnWidth(column), widest))
