"""The Timeline pane's controls: its two modes, their filter bars, and what they remember.

Both modes are scoped by the chip (`widgets/scope_chip.py`): the page in
focus, or the whole vault. Timeline mode filters by exact type, date field,
range, order, inactive records and grouping by source; Chronicle mode picks
a day (typed, picked or stepped) or its week and a time zone. One type filter
serves both modes and moves to the bar on show. The pane reads the choices through this widget's
accessors and reloads when `changed` fires; restoring saved settings or
refilling the type list never fires it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from PySide6.QtCore import QDate, QSettings, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QToolButton,
    QWidget,
)

from knowledge_desktop.ui.widgets.date_edit import OptionalDateEdit
from knowledge_desktop.ui.widgets.day_edit import DayEdit
from knowledge_desktop.ui.widgets.scope_chip import ScopeChip
from knowledge_desktop.ui.widgets.zone_picker import ZonePicker

TIME_FIELDS = (
    ("occurred_at", "Occurred"),
    ("recorded_at", "Recorded"),
    ("updated_at", "Updated"),
    ("due_at", "Due"),
)


class TimelineControls(QWidget):
    changed = Signal()
    """A choice changed (not while settings are restored or the type list refilled)."""
    message = Signal(str)
    """Something to tell the user in the status bar (a time zone that does not exist)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False
        self.mode_timeline = _tool_button("Timeline", checkable=True)
        self.mode_timeline.setChecked(True)
        self.mode_chronicle = _tool_button("Chronicle", checkable=True)
        self.mode_timeline.setToolTip("Dated records over any range, for the vault or the page in focus")
        self.mode_chronicle.setToolTip("Everything that happened on one day or in its week")
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

        self.chip = ScopeChip()
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
        row.addWidget(self.kind)
        row.addWidget(self.field)
        row.addWidget(_labelled("From", self.since))
        row.addWidget(_labelled("to", self.until))
        row.addWidget(self.order)
        row.addWidget(self.inactive)
        row.addWidget(self.by_source)
        row.addStretch(1)

        self.day = DayEdit(QDate.currentDate())
        self.previous_day = _tool_button("◀")
        self.next_day = _tool_button("▶")
        self.previous_day.setToolTip("Previous day (or week)")
        self.next_day.setToolTip("Next day (or week)")
        self.today = _tool_button("Today")
        self.week = QCheckBox("Week")
        self.week.setToolTip("Show the Monday–Sunday week around the day")
        self.zone = ZonePicker()

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

        controls = QHBoxLayout(self)
        controls.setContentsMargins(4, 4, 4, 0)
        controls.setSpacing(8)
        controls.addWidget(self.mode_timeline)
        controls.addWidget(self.mode_chronicle)
        controls.addWidget(self.chip)
        controls.addWidget(self.bars, 1)

        self.chip.changed.connect(self._changed)
        for combo in (self.kind, self.field, self.order, self.zone):
            combo.currentIndexChanged.connect(self._changed)
        for edit in (self.since, self.until, self.day):
            edit.dateChanged.connect(self._changed)
        for box in (self.inactive, self.by_source, self.week):
            box.toggled.connect(self._changed)
        self.modes.idToggled.connect(lambda _id, on: self._changed() if on else None)
        self.zone.edited.connect(self._changed)
        self.zone.unknown.connect(lambda text: self.message.emit(f"Unknown time zone {text!r}; showing UTC"))
        self.previous_day.clicked.connect(lambda: self._step_day(-1))
        self.next_day.clicked.connect(lambda: self._step_day(1))
        self.today.clicked.connect(lambda: self.day.setDate(QDate.currentDate()))
        self.sync()

    # -- what the pane reads -------------------------------------------------------------
    def chronicle(self) -> bool:
        return self.mode_chronicle.isChecked()

    def page_scope(self) -> bool:
        """Whether both modes ask about one page (the chip's) rather than the whole vault."""
        return self.chip.scope is not None

    def kind_filter(self) -> str | None:
        value = self.kind.currentData()
        return str(value) if value else None

    def current_zone(self) -> str:
        return self.zone.zone()

    def day_text(self) -> str:
        d = self.day.date()
        return f"{d.year():04d}-{d.month():02d}-{d.day():02d}"

    def grouped(self) -> bool:
        """The page's source-grouped Timeline (dated by occurrence, no type filter)."""
        return self.page_scope() and self.by_source.isChecked() and not self.chronicle()

    def nested(self) -> bool:
        """Whether the rows shown have children (sources, or the days of a week)."""
        return self.grouped() or (self.chronicle() and self.week.isChecked())

    def first_control(self) -> QWidget:
        if self.chronicle():
            return self.day
        return self.kind if self.kind.isEnabled() else self.order

    # -- what the pane sets ----------------------------------------------------------------
    def set_types(self, types: list[str]) -> None:
        """Offer these record types, keeping the one chosen."""
        chosen = self.kind_filter()
        with self._quietly():
            while self.kind.count() > 1:
                self.kind.removeItem(1)
            for name in types:
                self.kind.addItem(name, name)
            if chosen:
                self._ensure_kind(chosen)
                _select(self.kind, chosen)

    def sync(self) -> None:
        """Show the current mode's bar, with the type filter in it, and enable what applies."""
        chronicle = self.chronicle()
        self.bars.setCurrentIndex(1 if chronicle else 0)
        if chronicle and self.kind.parentWidget() is not self.bars.widget(1):
            self.chronicle_row.insertWidget(self.chronicle_row.count() - 1, self.kind)
        elif not chronicle and self.kind.parentWidget() is not self.bars.widget(0):
            self.timeline_row.insertWidget(1, self.kind)
        self.by_source.setEnabled(self.page_scope())
        grouped = self.grouped()
        self.field.setEnabled(not grouped)
        self.kind.setEnabled(not grouped)

    # -- settings --------------------------------------------------------------------------
    def save(self, settings: QSettings) -> None:
        settings.beginGroup("timeline")
        settings.setValue("mode", "chronicle" if self.chronicle() else "timeline")
        settings.setValue("scopePinnedToVault", self.chip.pinned_to_vault())
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

    def restore(self, settings: QSettings) -> None:
        with self._quietly():
            settings.beginGroup("timeline")

            def text(name: str) -> str:
                value = settings.value(name, "")
                return str(value) if value is not None else ""

            def flag(name: str) -> bool:
                return str(settings.value(name, "false")).lower() in ("true", "1")

            (self.mode_chronicle if text("mode") == "chronicle" else self.mode_timeline).setChecked(True)
            self.chip.restore(flag("scopePinnedToVault"))
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
        self.sync()

    # -- inside ----------------------------------------------------------------------------
    @contextmanager
    def _quietly(self) -> Iterator[None]:
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _changed(self, *_args: Any) -> None:
        if self._quiet:
            return
        self.sync()
        self.changed.emit()

    def _ensure_kind(self, kind: str) -> None:
        if self.kind.findData(kind) < 0:
            self.kind.addItem(kind, kind)

    def _step_day(self, direction: int) -> None:
        self.day.setDate(self.day.date().addDays(direction * (7 if self.week.isChecked() else 1)))


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


def _tool_button(text: str, checkable: bool = False) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setCheckable(checkable)
    return button


def _select(combo: QComboBox, data: str) -> None:
    index = combo.findData(data)
    if index >= 0:
        combo.setCurrentIndex(index)
