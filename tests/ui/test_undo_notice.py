"""The status bar's Undo stays offered while menus are browsed (issue 29, §3).

Found on the walkthrough: right after a merge the status bar read "merge …
written [Undo]"; opening the Edit menu to look for Undo put the menu item's
tip in the status bar, and the notice hid itself for good, its Undo button
gone although the undo was still there. A passing message now only covers
it; the status bar shows it again after.
"""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_write_actions import ADA, TEA, supersede_tea
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]


def test_a_passing_status_message_does_not_take_the_undo_button_away(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/coffee.md", "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    undo = window.writes.undoing
    supersede_tea(qtbot, window)
    assert undo.notice.isVisible()
    bar = window.statusBar()
    bar.showMessage(undo.action.statusTip())  # as hovering Edit › Undo does
    assert not undo.notice.isVisible()  # covered by the message meanwhile
    bar.clearMessage()  # the pointer left the menu
    assert undo.notice.isVisible()
    assert undo.notice.button.isVisible()
    assert undo.action.isEnabled()
