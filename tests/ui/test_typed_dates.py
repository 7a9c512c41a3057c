"""A date is typed whole into a form's date field, the Timeline's range bounds and the Chronicle's day.

Found on the walkthrough of issue 29: in File › New › New Claim, clicking
"Occurred on: not set" and typing 2026-09-28 gave "not set20260928" and no
date, and over a date already there, selecting it and typing a new one kept
the old one. Qt edits a date one section at a time, appends to the special
"not set" text, and takes "-" for "go to the next section"; the edit reads
its whole text instead (widgets/date_edit.py).
"""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QDateTimeEdit
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.forms.fields import DateField
from knowledge_desktop.ui.widgets.date_edit import OptionalDateEdit
from knowledge_desktop.ui.widgets.day_edit import DayEdit


def _shown(qtbot: QtBot, edit: OptionalDateEdit) -> None:
    qtbot.addWidget(edit)
    edit.show()
    qtbot.waitExposed(edit)
    edit.setFocus()


def test_a_date_typed_over_not_set_is_the_date(qtbot: QtBot) -> None:
    field = DateField(utc=False)
    _shown(qtbot, field)
    assert field.lineEdit().text() == "not set"
    qtbot.keyClicks(field, "2026-09-28")
    assert field.lineEdit().text() == "2026-09-28"
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert field.value() == date(2026, 9, 28)
    assert field.written() == "2026-09-28"


def test_a_date_typed_over_a_selected_date_replaces_it(qtbot: QtBot) -> None:
    field = DateField(utc=True)
    _shown(qtbot, field)
    field.read("2026-06-03T12:10:00.000Z")
    field.lineEdit().selectAll()
    qtbot.keyClicks(field, "2026-9-28")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.value() == date(2026, 9, 28)
    assert field.lineEdit().text() == "2026-09-28"
    assert field.written() == "2026-09-28T00:00:00.000Z"


def test_a_range_bound_moves_once_when_the_typing_is_done(qtbot: QtBot) -> None:
    bound = OptionalDateEdit()
    _shown(qtbot, bound)
    changes: list[object] = []
    bound.dateChanged.connect(changes.append)
    qtbot.keyClicks(bound, "2026-09-28")
    assert changes == []  # "2026-09-2" on the way is not taken for a day
    qtbot.keyClick(bound, Qt.Key.Key_Return)
    assert bound.value() == date(2026, 9, 28)
    assert len(changes) == 1


def test_letters_are_refused_and_delete_clears_the_date(qtbot: QtBot) -> None:
    field = DateField(utc=False)
    _shown(qtbot, field)
    qtbot.keyClicks(field, "soon")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    assert field.value() is None
    field.set_value(date(2026, 6, 3))
    field.lineEdit().selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Delete)
    assert field.value() is None
    assert field.lineEdit().text() == "not set"


def test_the_chronicle_day_takes_a_date_typed_after_ctrl_a_in_any_section(qtbot: QtBot) -> None:
    """In the real window: a click in the day part of "Fri 2026-12-04", Ctrl+A, 2026-06-03,
    Enter showed "Wed 2026-12-02" — the typing went into the day section alone."""
    day = DayEdit(QDate(2026, 12, 4))
    qtbot.addWidget(day)
    day.show()
    qtbot.waitExposed(day)
    day.setFocus()
    day.setCurrentSection(QDateTimeEdit.Section.DaySection)  # where the click put the cursor
    qtbot.keyClick(day, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(day, "2026-06-03")
    qtbot.keyClick(day, Qt.Key.Key_Return)
    assert day.date() == QDate(2026, 6, 3)
    assert day.text() == "Wed 2026-06-03"
    day.setCurrentSection(QDateTimeEdit.Section.MonthSection)
    qtbot.keyClick(day, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(day, "2026-9-28")
    qtbot.keyClick(day, Qt.Key.Key_Enter)  # the keypad's Enter too
    assert day.date() == QDate(2026, 9, 28)


def test_a_form_date_takes_a_date_typed_after_ctrl_a_in_any_section(qtbot: QtBot) -> None:
    field = DateField(utc=False)
    _shown(qtbot, field)
    field.set_value(date(2026, 6, 3))
    field.setCurrentSection(QDateTimeEdit.Section.DaySection)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, "2026-09-28")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.value() == date(2026, 9, 28)
