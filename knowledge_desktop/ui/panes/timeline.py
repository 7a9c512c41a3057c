"""The Timeline pane: dated records of the vault or of one page, and a day/week chronicle.

Timeline mode lists `Vault.timeline` rows — for the whole vault or for the
page in focus (the scope follows the record pane whenever it shows a page,
and keeps the last page while a claim or relationship is open) — filtered by
date field, exact record type and range, in either order, with inactive
records on request. For a page, "By source" shows its entity Timeline: one
row per dated source with what that source says about the page beneath it.
Chronicle mode shows one day, or its Monday–Sunday week, in a chosen time
zone. Pages arrive on demand (scrolling to the end, or "Load more").
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from zoneinfo import available_timezones

from PySide6.QtCore import QDate, QEvent, QModelIndex, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.changes import CATALOG, DATES, ChangeSet
from knowledge_desktop.ui.models.backlinks_model import OPEN_KEY_ROLE
from knowledge_desktop.ui.models.timeline_model import (
    TimelineModel,
    chronicle_nodes,
    day_heading,
    plural,
    source_nodes,
    timeline_nodes,
)
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner

PAGE = 100
MAX_RELOAD = 500
TIME_FIELDS = (
    ("occurred_at", "Occurred"),
    ("recorded_at", "Recorded"),
    ("updated_at", "Updated"),
    ("due_at", "Due"),
)
NO_DATE = QDate(1900, 1, 1)


def system_zone() -> str | None:
    """The system's IANA zone name, when Qt can tell it."""
    from PySide6.QtCore import QTimeZone

    name = bytes(QTimeZone.systemTimeZoneId().data()).decode("ascii", "replace")
    return name if name in available_timezones() else None


def zone_names() -> list[str]:
    """UTC and the system zone first, then every IANA zone alphabetically."""
    first = ["UTC"]
    local = system_zone()
    if local and local != "UTC":
        first.insert(0, local)
    rest = sorted(
        z for z in available_timezones() if z not in first and not z.startswith(("posix/", "right/"))
    )
    return first + rest


class OptionalDateEdit(QDateEdit):
    """A date edit whose lowest value reads "any": no bound on that side.

    Stepping up from "any" lands on today (not on 2 January 1900), the
    calendar opens on this month, and Delete clears the bound again.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCalendarPopup(True)
        self.setDisplayFormat("yyyy-MM-dd")
        self.setMinimumDate(NO_DATE)
        self.setSpecialValueText("any")
        self.setDate(NO_DATE)
        self.setToolTip("Pick a date, or press Delete for no bound")
        self.calendarWidget().installEventFilter(self)

    def value(self) -> date | None:
        current = self.date()
        return None if current == NO_DATE else date(current.year(), current.month(), current.day())

    def set_value(self, value: date | None) -> None:
        self.setDate(NO_DATE if value is None else QDate(value.year, value.month, value.day))

    def stepBy(self, steps: int) -> None:
        if self.date() == NO_DATE:
            self.setDate(QDate.currentDate())
            return
        super().stepBy(steps)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and (
            self.date() == NO_DATE or self.lineEdit().selectedText() == self.lineEdit().text()
        ):
            self.setDate(NO_DATE)
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and self.date() == NO_DATE:
            today = QDate.currentDate()
            self.calendarWidget().setCurrentPage(today.year(), today.month())
        return super().eventFilter(watched, event)


def _labelled(text: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    label = QLabel(text)
    label.setBuddy(widget)
    layout.addWidget(label)
    layout.addWidget(widget)
    return box


class TimelinePane(Pane):
    title = "Timeline"
    # Dated events, and the titles and types (the type filter) of their records.
    reads = frozenset((DATES, CATALOG))

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        self.entity: dict[str, Any] | None = None
        self.next_offset: int | None = None
        self.total = 0
        self._generation = 0
        self._restoring = False
        self._settings_restored = False

        self.reload_timer = QTimer(self)
        self.reload_timer.setSingleShot(True)
        self.reload_timer.setInterval(150)
        self.reload_timer.timeout.connect(self.refresh)

        # -- controls ------------------------------------------------------------------------
        self.mode_timeline = _tool_button("Timeline", checkable=True)
        self.mode_timeline.setChecked(True)
        self.mode_chronicle = _tool_button("Chronicle", checkable=True)
        self.mode_timeline.setToolTip("Dated records over any range, for the vault or the page in focus")
        self.mode_chronicle.setToolTip("Everything that happened on one day or in its week")
        self._fitted_for: tuple[int, int, bool] | None = None
        self.modes = QButtonGroup(self)
        self.modes.setExclusive(True)
        self.modes.addButton(self.mode_timeline, 0)
        self.modes.addButton(self.mode_chronicle, 1)

        self.kind = QComboBox()
        self.kind.setToolTip(
            "Only records of this exact type (a page type, claim kind or relationship label)"
        )
        self.kind.addItem("Any type", None)
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

        self.scope = QComboBox()
        self.scope.addItem("Whole vault", "vault")
        self.scope.addItem("Selected page", "entity")
        self.scope.setToolTip("The whole vault, or only records about the page in focus")
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.field = QComboBox()
        for name, text in TIME_FIELDS:
            self.field.addItem(text, name)
        self.field.setToolTip(
            "Which date to place records by: when it happened, was recorded, was updated, or is due"
        )
        self.since = OptionalDateEdit()
        self.until = OptionalDateEdit()
        self.order = QComboBox()
        self.order.addItem("Oldest first", "asc")
        self.order.addItem("Newest first", "desc")
        self.inactive = QCheckBox("Inactive")
        self.inactive.setToolTip("Also show superseded and expired records (never withdrawn ones)")
        self.by_source = QCheckBox("By source")
        self.by_source.setToolTip(
            "The page's Timeline: one row per dated source, with what it says about the page"
        )

        timeline_bar = QWidget()
        row = self.timeline_row = QHBoxLayout(timeline_bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.scope)
        row.addWidget(self.kind)
        row.addWidget(self.field)
        row.addWidget(_labelled("From", self.since))
        row.addWidget(_labelled("to", self.until))
        row.addWidget(self.order)
        row.addWidget(self.inactive)
        row.addWidget(self.by_source)
        row.addStretch(1)

        self.day = QDateEdit(QDate.currentDate())
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("ddd yyyy-MM-dd")
        self.day.setToolTip("The day to show (in the chosen time zone)")
        self.previous_day = _tool_button("◀")
        self.next_day = _tool_button("▶")
        self.previous_day.setToolTip("Previous day (or week)")
        self.next_day.setToolTip("Next day (or week)")
        self.today = _tool_button("Today")
        self.week = QCheckBox("Week")
        self.week.setToolTip("Show the Monday–Sunday week around the day")
        self.zone = QComboBox()
        self.zone.setEditable(True)
        self.zone.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.zone.addItems(zone_names())
        self.zone.setCurrentText("UTC")
        self.zone.setMinimumContentsLength(16)
        self.zone.setToolTip("IANA time zone the day runs in, and times are shown in")
        completer = QCompleter(self.zone.model(), self.zone)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.zone.setCompleter(completer)

        chronicle_bar = QWidget()
        row = QHBoxLayout(chronicle_bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        for widget in (self.previous_day, self.day, self.next_day, self.today):
            row.addWidget(widget)
        row.addSpacing(8)
        row.addWidget(self.week)
        row.addSpacing(8)
        row.addWidget(_labelled("Time zone", self.zone))
        row.addSpacing(8)
        row.addStretch(1)
        self.chronicle_row = row

        self.bars = QStackedWidget()
        self.bars.addWidget(timeline_bar)
        self.bars.addWidget(chronicle_bar)

        controls = QHBoxLayout()
        controls.setContentsMargins(4, 4, 4, 0)
        controls.setSpacing(8)
        controls.addWidget(self.mode_timeline)
        controls.addWidget(self.mode_chronicle)
        controls.addWidget(self.bars, 1)

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
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.results = QStackedWidget()
        self.results.addWidget(self.empty)
        self.results.addWidget(self.tree)

        self.summary = QLabel("")
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
        layout.addLayout(controls)
        layout.addWidget(self.results, 1)
        layout.addLayout(footer)

        for combo in (self.kind, self.scope, self.field, self.order):
            combo.currentIndexChanged.connect(self._controls_changed)
        for edit in (self.since, self.until, self.day):
            edit.dateChanged.connect(self._controls_changed)
        for box in (self.inactive, self.by_source, self.week):
            box.toggled.connect(self._controls_changed)
        self.modes.idToggled.connect(self._mode_toggled)
        self.zone.currentIndexChanged.connect(self._controls_changed)
        zone_edit = self.zone.lineEdit()
        if zone_edit is not None:
            zone_edit.editingFinished.connect(self._zone_edited)
        self.previous_day.clicked.connect(lambda: self._step_day(-1))
        self.next_day.clicked.connect(lambda: self._step_day(1))
        self.today.clicked.connect(lambda: self.day.setDate(QDate.currentDate()))
        self._sync_controls()
        self._show_message("No vault open.")

    def focus_target(self) -> QWidget:
        """The list when it shows, else the first control of the current mode's bar."""
        if self.results.currentWidget() is self.tree:
            return self.tree
        return self.day if self.mode_chronicle.isChecked() else self.scope

    # -- settings --------------------------------------------------------------------------
    def save_settings(self, settings: QSettings) -> None:
        settings.beginGroup("timeline")
        settings.setValue("mode", "chronicle" if self.mode_chronicle.isChecked() else "timeline")
        settings.setValue("scope", self.scope.currentData())
        settings.setValue("field", self.field.currentData())
        settings.setValue("kind", self.kind.currentData() or "")
        for name, edit in (("since", self.since), ("until", self.until)):
            bound = edit.value()
            settings.setValue(name, bound.isoformat() if bound is not None else "")
        settings.setValue("order", self.order.currentData())
        settings.setValue("inactive", self.inactive.isChecked())
        settings.setValue("bySource", self.by_source.isChecked())
        settings.setValue("week", self.week.isChecked())
        settings.setValue("zone", self.current_zone())
        settings.endGroup()

    def restore_settings(self, settings: QSettings) -> None:
        self._settings_restored = True
        self._restoring = True
        try:
            settings.beginGroup("timeline")

            def text(name: str) -> str:
                value = settings.value(name, "")
                return str(value) if value is not None else ""

            def flag(name: str) -> bool:
                return str(settings.value(name, "false")).lower() in ("true", "1")

            (self.mode_chronicle if text("mode") == "chronicle" else self.mode_timeline).setChecked(True)
            _select(self.scope, text("scope"))
            _select(self.field, text("field"))
            _select(self.order, text("order"))
            kind = text("kind")
            if kind:
                self._ensure_kind(kind)
                _select(self.kind, kind)
            for edit, name in ((self.since, "since"), (self.until, "until")):
                try:
                    edit.set_value(date.fromisoformat(text(name)) if text(name) else None)
                except ValueError:
                    edit.set_value(None)
            self.inactive.setChecked(flag("inactive"))
            self.by_source.setChecked(flag("bySource"))
            self.week.setChecked(flag("week"))
            zone = text("zone")
            if zone and self.zone.findText(zone) >= 0:
                self.zone.setCurrentText(zone)
            settings.endGroup()
        finally:
            self._restoring = False
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
        self.entity = None
        self.model.clear()
        self._update_scope_text()
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
        chronicle = self.mode_chronicle.isChecked()
        if not chronicle and self.scope.currentData() == "entity" and self.entity is None:
            self.model.clear()
            self.next_offset = None
            self._show_message("Open a page — a person, project, company… — to see its timeline here.")
            return
        if chronicle:
            day, week, zone, kind = self._day_text(), self.week.isChecked(), self.current_zone(), self._kind()

            def chronicle_work() -> dict[str, Any]:
                return vault.chronicle_day(day, tz=zone, week=week, kind=kind)

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
        if vault is None or offset is None or self.mode_chronicle.isChecked():
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
    def _kind(self) -> str | None:
        value = self.kind.currentData()
        return str(value) if value else None

    def current_zone(self) -> str:
        text = self.zone.currentText().strip()
        return text if text in available_timezones() else "UTC"

    def _day_text(self) -> str:
        d = self.day.date()
        return f"{d.year():04d}-{d.month():02d}-{d.day():02d}"

    def _options(self, limit: int, offset: int) -> dict[str, Any]:
        entity_mode = self.scope.currentData() == "entity" and self.entity is not None
        grouped = entity_mode and self.by_source.isChecked()
        since, until = self.since.value(), self.until.value()
        options: dict[str, Any] = {
            "order": self.order.currentData(),
            "eligibility": "include_inactive" if self.inactive.isChecked() else "current",
            "since": since.isoformat() if since else None,
            "until": until.isoformat() if until else None,
            "limit": limit,
            "offset": offset,
        }
        if entity_mode and self.entity is not None:
            options["entity"] = self.entity["id"]
        if grouped:
            options["group"] = "source"
        else:
            options["time_field"] = self.field.currentData()
            options["kind"] = self._kind()
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
        week = self.week.isChecked()
        nodes = chronicle_nodes(result["items"], week)
        self.tree.setRootIsDecorated(week)
        self.model.set_nodes(nodes)
        self.model.more = False
        self.next_offset = None
        self.more_button.setVisible(False)
        count = len(result["items"])
        day = date.fromisoformat(self._day_text())
        monday = day - timedelta(days=day.weekday())
        span = f"the week of {day_heading(monday.isoformat())}" if week else day_heading(day.isoformat())
        zone = result.get("range", {}).get("timeZone", self.current_zone())
        capped = " (first 500)" if result.get("nextOffset") is not None else ""
        if count == 0:
            self._show_message(f"Nothing dated in {span} ({zone}).")
            self.summary.setText("")
        else:
            self.results.setCurrentWidget(self.tree)
            self.summary.setText(f"{plural(count, 'record')} in {span}, {zone}{capped}")
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
            about = f" about {self.entity['title']}" if self.entity and self._entity_mode() else ""
            count = f"{shown} of {self.total}" if shown < self.total else f"{shown}"
            return f"{count} dated record{'' if self.total == 1 else 's'}{about}"
        rows = self.model.top_level()
        sources = sum(1 for n in rows if n.key.startswith("source:"))
        parts = [plural(sources, "dated source")] if sources else []
        if len(rows) - sources:
            parts.append(f"{plural(len(rows) - sources, 'claim')} dated on their own")
        more = f" (of {self.total} rows)" if shown < self.total else ""
        title = f"{self.entity['title']}: " if self.entity else ""
        return title + ", ".join(parts) + more

    def _entity_mode(self) -> bool:
        return self.scope.currentData() == "entity" and self.entity is not None

    def _nothing_text(self) -> str:
        if self.scope.currentData() == "entity" and self.entity is not None:
            if self.by_source.isChecked():
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
        if self.entity is not None and self.entity["id"] == row["id"]:
            return
        self.entity = {"id": row["id"], "title": row.get("title") or row["id"], "path": row["path"]}
        self._update_scope_text()
        if self.scope.currentData() == "entity" and not self.mode_chronicle.isChecked():
            self.model.clear()
            self.refresh()

    def _load_types(self) -> None:
        vault = self.vault
        if vault is not None:
            self.runner.submit(vault.record_types, self._types_loaded, lambda _m: None, key="timeline-types")

    def _types_loaded(self, types: list[str]) -> None:
        chosen = self._kind()
        self._restoring = True
        try:
            while self.kind.count() > 1:
                self.kind.removeItem(1)
            for name in types:
                self.kind.addItem(name, name)
            if chosen:
                self._ensure_kind(chosen)
                _select(self.kind, chosen)
        finally:
            self._restoring = False

    def _ensure_kind(self, kind: str) -> None:
        if self.kind.findData(kind) < 0:
            self.kind.addItem(kind, kind)

    # -- controls ------------------------------------------------------------------------
    def _controls_changed(self, *_args: Any) -> None:
        if self._restoring:
            return
        self._sync_controls()
        self.reload_timer.start()

    def _sync_controls(self) -> None:
        chronicle = self.mode_chronicle.isChecked()
        self.bars.setCurrentIndex(1 if chronicle else 0)
        # One type filter serves both modes; it moves to the bar on show.
        if chronicle and self.kind.parentWidget() is not self.bars.widget(1):
            self.chronicle_row.insertWidget(self.chronicle_row.count() - 1, self.kind)
        elif not chronicle and self.kind.parentWidget() is not self.bars.widget(0):
            self.timeline_row.insertWidget(1, self.kind)
        entity_mode = self.scope.currentData() == "entity"
        self.by_source.setEnabled(entity_mode)
        grouped = entity_mode and self.by_source.isChecked() and not chronicle
        # The source-grouped Timeline is dated by occurrence and takes no type filter.
        self.field.setEnabled(not grouped)
        self.kind.setEnabled(not grouped)
        self.tree.setRootIsDecorated(grouped or (chronicle and self.week.isChecked()))

    def _update_scope_text(self) -> None:
        title = self.entity["title"] if self.entity else None
        self.scope.setItemText(1, f"Page: {title}" if title else "Selected page")

    def _zone_edited(self) -> None:
        text = self.zone.currentText().strip()
        match = next((z for z in available_timezones() if z.lower() == text.lower()), None)
        self.zone.setCurrentText(match or "UTC")
        if not match:
            self.status_message.emit(f"Unknown time zone {text!r}; showing UTC")
        self._controls_changed()

    def _fit_columns(self) -> None:
        """When and Kind as wide as their widest shown text; the title takes the rest.

        Measuring reads every shown row, so it runs once per view (a new vault, mode or
        filter), not on each live refresh, which keeps refreshes cheap on the UI thread.
        """
        key = (id(self.vault), self.modes.checkedId(), self.tree.rootIsDecorated())
        if key == self._fitted_for:
            return
        self._fitted_for = key
        for column in (0, 1):
            self.tree.resizeColumnToContents(column)
            self.tree.setColumnWidth(column, min(self.tree.columnWidth(column) + 12, 260))

    def _mode_toggled(self, _id: int, on: bool) -> None:
        if on:
            self._controls_changed()

    def _step_day(self, direction: int) -> None:
        self.day.setDate(self.day.date().addDays(direction * (7 if self.week.isChecked() else 1)))

    def _activate(self, index: QModelIndex) -> None:
        key = index.data(OPEN_KEY_ROLE)
        if key:
            self.open_requested.emit(str(key), 0)
        elif self.model.rowCount(index):
            self.tree.setExpanded(index, not self.tree.isExpanded(index))


def _tool_button(text: str, checkable: bool = False) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setCheckable(checkable)
    return button


def _select(combo: QComboBox, data: str) -> None:
    index = combo.findData(data)
    if index >= 0:
        combo.setCurrentIndex(index)


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
