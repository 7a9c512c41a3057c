"""The Timeline pane: dated records of the vault or of one page, and a day/week chronicle.

Both modes follow the page in focus (issue 29 §7): when the record pane
opens a page, the scope chip reads "Scoped to <title> ✕" and the rows are the
page's — what names it and what it takes part in (`Vault.timeline`'s entity
filter, the CLI's `knowledge timeline --entity`) — until ✕ shows the whole
vault again or the pin holds a scope (`widgets/scope_chip.py`). A claim or
relationship opened keeps the last page.

Timeline mode lists dated records filtered by date field, exact record type
and range, in either order, with inactive records on request. For a page,
"By source" shows its entity Timeline: one row per dated source with what
that source says about the page beneath it. Chronicle mode shows one day, or
its Monday–Sunday week, in a chosen time zone. Pages arrive on demand
(scrolling to the end, or "Load more"); a change on disk updates the rows in
place, keeping selection and scroll.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, DATES, ChangeSet
from knowledge_desktop.ui.models.timeline_model import (
    TimelineModel,
    chronicle_nodes,
    day_heading,
    plural,
    source_nodes,
    timeline_nodes,
)
from knowledge_desktop.ui.models.tree_model import OPEN_KEY_ROLE
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.timeline_controls import TimelineControls
from knowledge_desktop.ui.tasks import Runner

PAGE = 100
MAX_RELOAD = 500


class TimelinePane(Pane):
    title = "Timeline"
    # Dated events, and the titles and types (the type filter) of their records.
    reads = frozenset((DATES, CATALOG))

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.next_offset: int | None = None
        self.total = 0
        self._generation = 0
        self._settings_restored = False

        self.reload_timer = QTimer(self)
        self.reload_timer.setSingleShot(True)
        self.reload_timer.setInterval(150)
        self.reload_timer.timeout.connect(self.refresh)

        self.controls = TimelineControls()
        self.controls.changed.connect(self._controls_changed)
        self.controls.message.connect(self.status_message)
        self._fitted_for: tuple[int, int, bool, str] | None = None

        # -- results -----------------------------------------------------------------------
        self.model = TimelineModel(self)
        self.model.fetch_more_requested.connect(self.load_more)
        self.tree = QTreeView()
        # In sight: a docked pane behind another tab still reports isVisible().
        self.model.fetch_allowed = lambda: not self.tree.visibleRegion().isEmpty()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.setColumnWidth(0, 150)
        self.tree.setColumnWidth(1, 150)
        self.tree.activated.connect(self._activate)

        self.empty = QLabel("")
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.results = QStackedWidget()
        self.results.addWidget(self.empty)
        self.results.addWidget(self.tree)

        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.more_button = QPushButton("Load more")
        self.more_button.setVisible(False)
        self.more_button.clicked.connect(self.load_more)
        footer = QHBoxLayout()
        footer.setContentsMargins(6, 0, 4, 2)
        footer.addWidget(self.summary, 1)
        footer.addWidget(self.more_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.controls)
        layout.addWidget(self.results, 1)
        layout.addLayout(footer)

        self._sync_controls()
        self._show_message("No vault open.")

    def focus_target(self) -> QWidget:
        """The list when it shows, else the first control of the current mode's bar."""
        if self.results.currentWidget() is self.tree:
            return self.tree
        return self.controls.first_control()

    # -- settings --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        self.controls.save(settings)

    def restore_settings(self, settings: QSettings) -> None:
        self._settings_restored = True
        self.controls.restore(settings)
        self._sync_controls()

    def _restore_from_window(self) -> None:
        """The window keeps one QSettings; read this pane's part once, when first docked."""
        if self._settings_restored:
            return
        settings = getattr(self.window(), "settings", None)
        if isinstance(settings, QSettings):
            self.restore_settings(settings)

    # -- the Pane contract ---------------------------------------------------------------
    def set_vault(self, vault: Any) -> None:
        self._restore_from_window()
        self.controls.chip.forget()
        self.model.clear()
        super().set_vault(vault)
        self._load_types()

    def set_current(self, path: str | None) -> None:
        super().set_current(path)
        vault = self.vault
        if vault is None or path is None:
            return
        self.runner.submit(
            lambda: vault.find(path), self._current_found, lambda _m: None, key="timeline-entity"
        )

    def apply_change(self, change: ChangeSet) -> None:
        if not change.touches(*self.reads):
            return
        self._load_types()
        self.refresh(keep=True)

    def refresh(self, keep: bool = False) -> None:
        """Load the first page for the controls (keep: as many rows as are shown, in place)."""
        self.reload_timer.stop()
        self._generation += 1
        generation = self._generation
        self.model.loading = False
        vault = self.vault
        if vault is None:
            self.model.clear()
            self._show_message("No vault open.")
            return
        if self.controls.chronicle():
            day, week, zone, kind = (
                self.controls.day_text(),
                self.controls.week.isChecked(),
                self.controls.current_zone(),
                self.controls.kind_filter(),
            )
            entity = self.entity["id"] if self.entity is not None else None

            def chronicle_work() -> dict[str, Any]:
                return vault.chronicle_day(day, tz=zone, week=week, kind=kind, notes=True, entity=entity)

            self.runner.submit(
                chronicle_work,
                lambda result: self._chronicle_loaded(generation, result),
                lambda message: self._failed(generation, message),
                key="timeline",
            )
            return
        shown = len(self.model.top_level())
        limit = min(MAX_RELOAD, max(PAGE, shown)) if keep else PAGE
        options = self._options(limit, 0)
        self.runner.submit(
            lambda: _timeline_work(vault, options),
            lambda result: self._timeline_loaded(generation, result, append=False),
            lambda message: self._failed(generation, message),
            key="timeline",
        )

    def load_more(self) -> None:
        vault, offset = self.vault, self.next_offset
        if vault is None or offset is None or self.controls.chronicle():
            self.model.loading = False
            return
        self.model.loading = True
        self.more_button.setEnabled(False)
        generation = self._generation
        options = self._options(PAGE, offset)
        self.runner.submit(
            lambda: _timeline_work(vault, options),
            lambda result: self._timeline_loaded(generation, result, append=True),
            lambda message: self._failed(generation, message),
            key="timeline-more",
        )

    # -- building queries --------------------------------------------------------------------
    def _options(self, limit: int, offset: int) -> dict[str, Any]:
        grouped = self.entity is not None and self.controls.by_source.isChecked()
        since, until = self.controls.since.value(), self.controls.until.value()
        options: dict[str, Any] = {
            "order": self.controls.order.currentData(),
            "eligibility": "include_inactive" if self.controls.inactive.isChecked() else "current",
            "since": since.isoformat() if since else None,
            "until": until.isoformat() if until else None,
            "limit": limit,
            "offset": offset,
        }
        if self.entity is not None:
            options["entity"] = self.entity["id"]
        if grouped:
            options["group"] = "source"
        else:
            options["time_field"] = self.controls.field.currentData()
            options["kind"] = self.controls.kind_filter()
            options["notes"] = True  # dated notes are entries too (issue 25 §3)
        return options

    # -- answers ---------------------------------------------------------------------------
    def _timeline_loaded(self, generation: int, result: dict[str, Any], append: bool) -> None:
        if generation != self._generation:
            return
        items, titles = result["items"], result.get("titles")
        nodes = source_nodes(items, titles) if titles is not None else timeline_nodes(items)
        self.tree.setRootIsDecorated(titles is not None)
        if append:
            self.model.append_nodes(nodes)
        else:
            self.model.set_nodes(nodes)
        self.next_offset = result.get("nextOffset")
        self.total = int(result.get("total", len(self.model.top_level())))
        self.model.more = self.next_offset is not None
        self.model.loading = False
        shown = len(self.model.top_level())
        if shown == 0:
            self._show_message(self._nothing_text())
        else:
            self.results.setCurrentWidget(self.tree)
        self.summary.setText(self._summary_text(shown, grouped=titles is not None) if shown else "")
        self.more_button.setVisible(self.model.more)
        self.more_button.setEnabled(True)
        if titles is not None:
            self.tree.expandAll()
        if not append:
            self._fit_columns()

    def _chronicle_loaded(self, generation: int, result: dict[str, Any]) -> None:
        if generation != self._generation:
            return
        week = self.controls.week.isChecked()
        nodes = chronicle_nodes(result["items"], week)
        self.tree.setRootIsDecorated(week)
        self.model.set_nodes(nodes)
        self.model.more = False
        self.next_offset = None
        self.more_button.setVisible(False)
        count = len(result["items"])
        day = date.fromisoformat(self.controls.day_text())
        monday = day - timedelta(days=day.weekday())
        span = f"the week of {day_heading(monday.isoformat())}" if week else day_heading(day.isoformat())
        zone = result.get("range", {}).get("timeZone", self.controls.current_zone())
        capped = " (first 500)" if result.get("nextOffset") is not None else ""
        if count == 0:
            about = f" about {self.entity['title']}" if self.entity is not None else ""
            self._show_message(f"Nothing dated{about} in {span} ({zone}).")
            self.summary.setText("")
        else:
            self.results.setCurrentWidget(self.tree)
            about = f" about {self.entity['title']}" if self.entity is not None else ""
            self.summary.setText(f"{plural(count, 'record')}{about} in {span}, {zone}{capped}")
        if week:
            self.tree.expandAll()
        self._fit_columns()

    def _failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self.model.loading = False
        self.more_button.setEnabled(True)
        self._show_message(message)
        self.status_message.emit(message)

    def _summary_text(self, shown: int, grouped: bool) -> str:
        if not grouped:
            about = f" about {self.entity['title']}" if self.entity is not None else ""
            count = f"{shown:,} of {self.total:,}" if shown < self.total else f"{shown:,}"
            return f"{count} dated record{'' if self.total == 1 else 's'}{about}"
        rows = self.model.top_level()
        sources = sum(1 for n in rows if n.key.startswith("source:"))
        parts = [plural(sources, "dated source")] if sources else []
        if len(rows) - sources:
            parts.append(f"{plural(len(rows) - sources, 'claim')} dated on their own")
        more = f" (of {self.total} rows)" if shown < self.total else ""
        title = f"{self.entity['title']}: " if self.entity else ""
        return title + ", ".join(parts) + more

    @property
    def entity(self) -> dict[str, Any] | None:
        """The page the rows are about (the scope chip's); None for the whole vault."""
        return self.controls.chip.scope

    def _nothing_text(self) -> str:
        if self.entity is not None:
            if self.controls.by_source.isChecked():
                return f"No dated sources or dated claims about {self.entity['title']}."
            return f"No dated records about {self.entity['title']} match these filters."
        return "No dated records match these filters."

    def _show_message(self, text: str) -> None:
        self.empty.setText(text)
        self.results.setCurrentWidget(self.empty)
        self.summary.setText("")
        self.more_button.setVisible(False)

    def _current_found(self, rows: list[dict[str, Any]]) -> None:
        if not rows or rows[0].get("kind") != "page" or not rows[0].get("id"):
            return  # not a page: the timeline keeps the last page
        row = rows[0]
        page = {"id": row["id"], "title": row.get("title") or row["id"], "path": row["path"]}
        if self.controls.chip.follow(page):
            self._sync_controls()
            self.model.clear()  # another page's rows: nothing of the last list is kept
            self.refresh()

    def _load_types(self) -> None:
        vault = self.vault
        if vault is not None:
            self.runner.submit(vault.record_types, self._types_loaded, lambda _m: None, key="timeline-types")

    def _types_loaded(self, types: list[str]) -> None:
        self.controls.set_types(types)

    # -- controls ------------------------------------------------------------------------
    def _controls_changed(self) -> None:
        self._sync_controls()
        self.reload_timer.start()

    def _sync_controls(self) -> None:
        self.controls.sync()
        self.tree.setRootIsDecorated(self.controls.nested())

    def _fit_columns(self) -> None:
        """When and Kind as wide as their widest shown text; the title takes the rest.

        Measuring reads every shown row, so it runs once per view (a new vault, mode or
        filter), not on each live refresh, which keeps refreshes cheap on the UI thread.
        A view with no rows is not measured (the walkthrough's Chronicle kept the width of
        an empty day, its Kind cut to "clai…"), and each Chronicle day or week is its own
        view: at most 500 rows, and its kinds differ from day to day.
        """
        if not self.model.top_level():
            return
        chronicle = self.controls.mode_chronicle.isChecked()
        day = f"{self.controls.day_text()} {self.controls.week.isChecked()}" if chronicle else ""
        key = (id(self.vault), self.controls.modes.checkedId(), self.tree.rootIsDecorated(), day)
        if key == self._fitted_for:
            return
        self._fitted_for = key
        for column in (0, 1):
            self.tree.resizeColumnToContents(column)
            self.tree.setColumnWidth(column, min(self.tree.columnWidth(column) + 12, 260))

    def _activate(self, index: QModelIndex) -> None:
        key = index.data(OPEN_KEY_ROLE)
        if key:
            self.open_requested.emit(str(key), 0)
        elif self.model.rowCount(index):
            self.tree.setExpanded(index, not self.tree.isExpanded(index))


def _timeline_work(vault: Any, options: dict[str, Any]) -> dict[str, Any]:
    """One timeline page; source-grouped pages also get the catalog facts their ids need."""
    result: dict[str, Any] = vault.timeline(**options)
    if options.get("group") != "source":
        return result
    wanted: set[str] = set()
    for item in result["items"]:
        if item.get("source"):
            wanted.add(str(item["source"]["id"]))
            wanted.update(str(link) for link in item.get("links") or [])
        elif item.get("id"):
            wanted.add(str(item["id"]))
    titles: dict[str, dict[str, Any]] = {}
    for record_id in sorted(wanted):
        rows = vault.find(record_id)
        if rows:
            row = rows[0]
            titles[record_id] = {k: row.get(k) for k in ("title", "kind", "type", "path", "lifecycle")}
    return {**result, "titles": titles}
