"""A date edit that can also say "no date": an open bound of a date range."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDateEdit, QWidget

NO_DATE = QDate(1900, 1, 1)
"""The lowest value, shown as "any": Qt's date edit has no empty state of its own."""


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
