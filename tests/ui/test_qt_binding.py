"""The Qt binding itself must not corrupt the interpreter.

PySide6 6.12.0 under Python 3.11 released a reference to `None` on every call
returning nothing; after enough calls the interpreter aborted. The pin in
pyproject.toml avoids it; this test notices if a future binding brings it back.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot


def test_void_qt_calls_keep_the_reference_count_of_none(qtbot: QtBot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.update()
        label.setText("x")
    assert sys.getrefcount(None) >= before - 50
