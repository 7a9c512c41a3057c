"""Open As Of… and Back to Now keep the record that was open (issue 29, §8)."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, fence_of, wait_idle

OpenWindow = Callable[..., MainWindow]
ADA = "private/people/ada.md"


def test_the_open_record_stays_open_in_the_past_and_back_to_now(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Ada wrote the first program.\n", type="person")
    vault = kit.scan()
    first = vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote the very first program.\n")
    vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote notes on the engine.\n")
    kit.close()
    window = open_window(kit.root, watch=False)
    window.open_record(ADA)
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)

    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.past.open(first["git"]["commit"], "the first edit")
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "very first program" in window.record.source.toPlainText(), timeout=20_000)

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.past.back_button.click()
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "notes on the engine" in window.record.source.toPlainText(), timeout=20_000)
