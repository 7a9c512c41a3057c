"""Choosing an IANA time zone: a searchable list that also takes a typed name."""

from __future__ import annotations

from zoneinfo import available_timezones

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QWidget


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


class ZonePicker(QComboBox):
    """Every zone, UTC first; typing filters by any part of the name, case aside.

    A typed name that is no zone falls back to UTC and is reported through
    `unknown`, so the pane can say so; `edited` follows every finished edit.
    """

    edited = Signal()
    unknown = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.addItems(zone_names())
        self.setCurrentText("UTC")
        self.setMinimumContentsLength(16)
        self.setToolTip("IANA time zone the day runs in, and times are shown in")
        completer = QCompleter(self.model(), self)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompleter(completer)
        line = self.lineEdit()
        if line is not None:
            line.editingFinished.connect(self._typed)

    def zone(self) -> str:
        """The zone chosen, UTC while the text names none."""
        text = self.currentText().strip()
        return text if text in available_timezones() else "UTC"

    def _typed(self) -> None:
        text = self.currentText().strip()
        match = next((z for z in available_timezones() if z.lower() == text.lower()), None)
        self.setCurrentText(match or "UTC")
        if not match:
            self.unknown.emit(text)
        self.edited.emit()
