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

from PySide6.QtCore import QDate, QDateTime, QSignalBlocker, Qt, QTime
from PySide6.QtGui import QKeyEvent, QValidator
from PySide6.QtWidgets import QDateEdit, QDateTimeEdit, QWidget

DISPLAY = "ddd yyyy-MM-dd"
_DAY = re.compile(r"(?:[^\W\d_]+\.?,?\s*)?(\d{4})-(\d{1,2})-(\d{1,2})")
_PARTIAL = re.compile(r"[^\W\d_]*\.?,?\s*[\d-]{0,10}")


_TYPING = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
"""The modifiers a typed character may come with (not a shortcut's)."""


def type_into_text(edit: QDateTimeEdit, event: QKeyEvent) -> bool:
    """Put a typed character into `edit`'s text as a text field would; whether it was one.

    Qt's date edit sends a key to the section under the cursor, even over a selection
    of the whole text (Ctrl+A with the cursor in the day gave "2026-12-02" for a typed
    "2026-06-03"), and takes "-" for "go to the next section"."""
    typed = event.text()
    if event.modifiers() & ~_TYPING or not typed.isprintable() or not typed.strip():
        return False
    line = edit.lineEdit()
    start = line.selectionStart() if line.hasSelectedText() else line.cursorPosition()
    end = start + len(line.selectedText())
    text = line.text()[:start] + typed + line.text()[end:]
    if edit.validate(text, start + 1)[0] != QValidator.State.Invalid:
        # Quietly: told of the cursor's move, the date edit would take the new section
        # under it as a cue to reread a half-typed text and put the old date back.
        with QSignalBlocker(line):
            line.setText(text)
            line.setCursorPosition(start + 1)
        line.textChanged.emit(text)  # so leaving the field reads it, as after any typing
    return True


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

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not type_into_text(self, event):
            super().keyPressEvent(event)

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
