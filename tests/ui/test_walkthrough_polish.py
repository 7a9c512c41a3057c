"""Small window problems a new user's walkthrough left (issue 29; docs/walkthrough.md).

Ctrl+Z right after a write undoes the write even with the focus in a text field
that has nothing of its own to undo since the write.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_write_actions import ADA, TEA, supersede_tea
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]


def test_ctrl_z_in_the_catalog_filter_right_after_a_write_undoes_the_write(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """The filter was typed in before the supersede; after it, the filter has nothing of its
    own to undo, so Ctrl+Z there is Edit › Undo — once what was typed after it is undone."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/coffee.md", "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    window.activateWindow()
    qtbot.waitExposed(window)
    field = window.catalog.filters.filter
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "a")
    assert field.isUndoAvailable()
    supersede_tea(qtbot, window)
    wait_idle(qtbot, window)
    field.setFocus()  # where the focus went back to
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    undo = window.writes.undoing
    assert undo.action.isEnabled()
    # typed in after the write, Ctrl+Z is the field's first
    qtbot.keyClicks(field, "d")
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert field.text() == "a"
    assert undo.action.isEnabled()  # the write is still there to undo
    # and with nothing of its own left, the window's
    with qtbot.waitSignal(undo.undone, timeout=20_000) as blocker:
        qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(blocker.args[0], dict)
    assert blocker.args[0]["operation"] == "unsupersede"
    assert field.text() == "a"  # the typing before the write stayed
