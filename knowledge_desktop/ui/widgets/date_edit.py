"""A date edit that can also say "no date": an open bound of a date range, an unset form date.

Qt's date edit edits its text one section at a time, and over its special
"no date" text it appends what is typed ("not set2026…", never a date). A
person types dates whole, so this edit reads its whole text the way the
Chronicle's day does (widgets/day_edit.py): an ISO date (`2026-09-28`,
`2026-9-28`) is the day, the first key typed over the "no date" text
replaces it, and Delete brings the "no date" back.
"""

from __future__ import annotations

import re
from datetime import date

from PySide6.QtCore import QDate, QDateTime, QEvent, QObject, Qt, QTime
from PySide6.QtGui import QKeyEvent, QValidator
from PySide6.QtWidgets import QDateEdit, QWidget

from knowledge_desktop.ui.widgets.day_edit import parse_day, type_into_text

NO_DATE = QDate(1900, 1, 1)
"""The lowest value, shown as "any": Qt's date edit has no empty state of its own."""
DISPLAY = "yyyy-MM-dd"
_PARTIAL = re.compile(r"[\d-]{0,10}")
"""Text on its way to a date: digits and dashes, no longer than one."""


class OptionalDateEdit(QDateEdit):
    """A date edit whose lowest value reads "any": no bound on that side.

    Stepping up from "any" lands on today (not on 2 January 1900), the
    calendar opens on this month, Delete clears the bound again, and a date
    can be typed whole.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCalendarPopup(True)
        self.setDisplayFormat(DISPLAY)
        self.setMinimumDate(NO_DATE)
        self.setSpecialValueText("any")
        self.setDate(NO_DATE)
        # Take a typed date when the typing is done (Enter, or leaving the field): mid-way,
        # "2026-09-2" is a date too, and taking it would rewrite the text under the cursor.
        self.setKeyboardTracking(False)
        self.setToolTip("Type a date (YYYY-MM-DD) or pick one; Delete for no bound")
        self.calendarWidget().installEventFilter(self)

    def value(self) -> date | None:
        """The day shown; a date still being typed counts once it is whole."""
        if self.lineEdit().text() != self.text_now():
            self.interpretText()
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
        shown_no_date = self._shows_no_date()
        if shown_no_date:
            self.lineEdit().selectAll()  # a typed first key replaces "any", it does not append
        if not type_into_text(self, event):
            if shown_no_date:
                self.lineEdit().deselect()
            super().keyPressEvent(event)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        if text == self.specialValueText() or parse_day(text) is not None:
            return QValidator.State.Acceptable, text, pos
        if _PARTIAL.fullmatch(text.strip()):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos

    def dateTimeFromText(self, text: str) -> QDateTime:
        if text == self.specialValueText():
            return QDateTime(NO_DATE, QTime(0, 0))
        day = parse_day(text)
        return QDateTime(day if day is not None else self.date(), QTime(0, 0))

    def textFromDateTime(self, moment: QDateTime) -> str:
        return moment.date().toString(DISPLAY)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and self.date() == NO_DATE:
            today = QDate.currentDate()
            self.calendarWidget().setCurrentPage(today.year(), today.month())
        return super().eventFilter(watched, event)

    def text_now(self) -> str:
        """The text the current value is shown with."""
        return self.specialValueText() if self.date() == NO_DATE else self.date().toString(DISPLAY)

    def _shows_no_date(self) -> bool:
        return self.date() == NO_DATE and self.lineEdit().text() == self.specialValueText()
