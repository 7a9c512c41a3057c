"""A day field that takes a typed date as well as the calendar and the arrows (issue 29, §7).

Qt's date edit edits its display one section at a time: with "Fri 2026-12-04"
shown, selecting it all and typing "2026-09-28" goes nowhere, so the
Chronicle's day could only be moved with the calendar or the arrow buttons.
This edit reads the whole text instead: an ISO date (`2026-09-28`, or
`2026-9-28`), with or without the weekday in front, moves the day when Enter
is pressed or the field loses the focus; anything else falls back to the day
shown. Up/Down and the calendar work as before.
"""

from __future__ import annotations

import re
from datetime import date

from PySide6.QtCore import QDate, QDateTime, QTime
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDateEdit, QWidget

DISPLAY = "ddd yyyy-MM-dd"
_DAY = re.compile(r"(?:[^\W\d_]+\.?,?\s*)?(\d{4})-(\d{1,2})-(\d{1,2})")
_PARTIAL = re.compile(r"[^\W\d_]*\.?,?\s*[\d-]{0,10}")


def parse_day(text: str) -> QDate | None:
    """The day `text` names (ISO, an optional weekday before it), or None."""
    found = _DAY.fullmatch(text.strip())
    if found is None:
        return None
    try:
        day = date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        return None
    return QDate(day.year, day.month, day.day)


class DayEdit(QDateEdit):
    """A calendar-popup day edit whose text can be typed whole."""

    def __init__(self, day: QDate, parent: QWidget | None = None) -> None:
        super().__init__(day, parent)
        self.setCalendarPopup(True)
        self.setDisplayFormat(DISPLAY)
        # One change when the typing is done (Enter or leaving the field), not one per key.
        self.setKeyboardTracking(False)
        self.setToolTip("The day to show: type a date (YYYY-MM-DD) and press Enter, or pick one")

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        if parse_day(text) is not None:
            return QValidator.State.Acceptable, text, pos
        if _PARTIAL.fullmatch(text.strip()):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos

    def dateTimeFromText(self, text: str) -> QDateTime:
        day = parse_day(text)
        return QDateTime(day if day is not None else self.date(), QTime(0, 0))

    def textFromDateTime(self, moment: QDateTime) -> str:
        return moment.date().toString(DISPLAY)
