"""The small editors a record form is made of, each reading and writing one frontmatter value.

A `Field` pairs a key with a widget and the two functions that move a value
between them; the form only ever deals in keys and values. Dates keep the
text they were read with when the day shown is unchanged, so a timestamp's
time of day survives a correction that did not touch it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QSizePolicy, QWidget

from knowledge_desktop.ui.widgets.date_edit import OptionalDateEdit


@dataclass(slots=True)
class Field:
    key: str
    label: str
    widget: QWidget
    get: Callable[[], Any]
    set: Callable[[Any], None]
    hint: str = ""


class DateField(OptionalDateEdit):
    """A day, or "not set"; `utc` writes a UTC timestamp at midnight (validity, expiry)."""

    def __init__(self, utc: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.utc = utc
        self.original: str | None = None
        self.setSpecialValueText("not set")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(170)
        self.setToolTip("Type a date (YYYY-MM-DD) or pick one from the calendar; Delete leaves it unset")

    def read(self, value: Any) -> None:
        self.original = str(value) if value not in (None, "") else None
        day = None
        if self.original is not None:
            try:
                day = date.fromisoformat(self.original[:10])
            except ValueError:
                day = None
        self.set_value(day)

    def written(self) -> str | None:
        day = self.value()
        if day is None:
            return None
        if self.original is not None and self.original[:10] == day.isoformat():
            return self.original
        return f"{day.isoformat()}T00:00:00.000Z" if self.utc else day.isoformat()


def text_field(key: str, label: str, placeholder: str = "", hint: str = "") -> Field:
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    return Field(
        key,
        label,
        edit,
        lambda: edit.text().strip() or None,
        lambda v: edit.setText("" if v is None else str(v)),
        hint,
    )


def body_field(key: str, label: str, placeholder: str) -> Field:
    edit = QPlainTextEdit()
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setMinimumHeight(64)
    edit.setMaximumHeight(110)
    return Field(key, label, edit, lambda: edit.toPlainText().strip(), lambda v: edit.setPlainText(v or ""))


def choice_field(key: str, label: str, choices: list[tuple[Any, str]], hint: str = "") -> Field:
    """A value from `choices` (value, shown text); "" first, for not set; an unknown value
    read from the file is offered too, so reading and writing back never changes it."""
    box = QComboBox()
    box.addItem("", None)
    for value, shown in choices:
        box.addItem(shown, value)

    def put(value: Any) -> None:
        index = box.findData(value)
        if index < 0 and value not in (None, ""):
            box.addItem(str(value), value)
            index = box.count() - 1
        box.setCurrentIndex(max(index, 0))

    return Field(key, label, box, box.currentData, put, hint)


def list_field(key: str, label: str, placeholder: str) -> Field:
    """A list of short texts, typed separated by commas."""
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)

    def put(value: Any) -> None:
        items = value if isinstance(value, list) else [] if value in (None, "") else [value]
        edit.setText(", ".join(str(v) for v in items))

    return Field(key, label, edit, lambda: [v.strip() for v in edit.text().split(",") if v.strip()], put)


def date_field(key: str, label: str, utc: bool, hint: str = "") -> Field:
    edit = DateField(utc)
    return Field(key, label, edit, edit.written, edit.read, hint)


def typed_value(kind: str | None, text: str) -> Any:
    """An ontology field's text as its declared type (number, boolean) when it reads as one."""
    text = text.strip()
    if kind == "number":
        try:
            return int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                return text
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text
