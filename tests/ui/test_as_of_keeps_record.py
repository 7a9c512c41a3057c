"""Open As Of… and Back to Now keep the record that was open (issue 29, §8)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tests.ui.test_as_of_view import ADA, OpenWindow, ada_edited_twice
from tests.vaultkit import VaultKit, wait_idle


def test_the_open_record_stays_open_in_the_past_and_back_to_now(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    first = ada_edited_twice(kit)
    kit.close()
    window = open_window(kit.root, watch=False)
    window.open_record(ADA)
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)

    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.past.open(first, "the first edit")
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "very first program" in window.record.source.toPlainText(), timeout=20_000)

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.past.back_button.click()
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "notes on the engine" in window.record.source.toPlainText(), timeout=20_000)
