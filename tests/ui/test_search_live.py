"""The window's reads see a file saved just before them (issue 28 §5): the search, the
lookup on Enter and the quick switcher sync with the window's watcher on their worker."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.fs.watch import VaultWatcher
from knowledge_desktop.engine.live_vault import Freshness
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.search_model import KEY_ROLE
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]


@pytest.fixture
def window(open_window: OpenWindow, kit: VaultKit) -> MainWindow:
    kit.page("private/notes/harbour.md", "pg_harbour", "Harbour lights", body="The harbour at night.\n")
    return open_window(kit.root)


def shown_keys(window: MainWindow) -> list[str]:
    model = window.search.model
    return [str(model.index(row, 0).data(KEY_ROLE)) for row in range(model.rowCount())]


def test_a_file_saved_just_before_a_search_is_in_its_first_results(
    qtbot: QtBot, window: MainWindow, kit: VaultKit
) -> None:
    kit.page("private/notes/kestrel.md", "pg_kestrel", "Kestrel", body="A quillwort grows by the pier.\n")
    with qtbot.waitSignal(window.search.results_shown, timeout=10_000):
        window.search.set_query("quillwort")
    assert shown_keys(window) == ["private/notes/kestrel.md"]


def test_enter_finds_a_record_saved_just_before(qtbot: QtBot, window: MainWindow, kit: VaultKit) -> None:
    kit.page("private/notes/osprey.md", "pg_osprey", "Osprey nest", body="Above the quay.\n")
    window.search.field.setText("Osprey nest")
    with qtbot.waitSignal(window.search.open_requested, timeout=10_000) as opened:
        window.search.enter()
    assert opened.args == ["private/notes/osprey.md", 0]


def test_the_quick_switcher_suggests_a_record_saved_just_before(
    qtbot: QtBot, window: MainWindow, kit: VaultKit
) -> None:
    window.commands.switch.trigger()
    switcher = window.search.switcher
    assert switcher is not None
    kit.page("private/notes/plover.md", "pg_plover", "Plover flats", body="Mud at low tide.\n")
    QTest.keyClicks(switcher.field, "plover")
    with qtbot.waitSignal(window.search.open_requested, timeout=10_000) as opened:
        QTest.keyClick(switcher.field, Qt.Key.Key_Return)
    assert opened.args == ["private/notes/plover.md", 0]


def test_a_watcher_that_cannot_vouch_makes_the_search_walk(
    qtbot: QtBot, window: MainWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As an MCP call does: the marker never comes through, so the worker walks instead."""
    monkeypatch.setattr(VaultWatcher, "sync", lambda self, timeout=0.0: "the marker did not come through")
    kit.page("private/notes/tern.md", "pg_tern", "Tern", body="A sandwort patch on the dune.\n")
    with qtbot.waitSignal(window.search.results_shown, timeout=10_000):
        window.search.set_query("sandwort")
    assert shown_keys(window) == ["private/notes/tern.md"]


def test_the_window_syncs_its_watcher_rather_than_walking(
    qtbot: QtBot, window: MainWindow, kit: VaultKit
) -> None:
    """The watcher has a sync folder (the vault's .knowledge/), so it vouches by itself."""
    live = window.search.live
    assert live is not None
    assert live.watcher is window.watcher
    kit.page("private/notes/gannet.md", "pg_gannet", "Gannet", body="Cliffs.\n")
    answer: list[Freshness | None] = []
    worker = threading.Thread(target=lambda: answer.append(live.fresh()))
    worker.start()
    worker.join(timeout=10)
    assert answer == [Freshness("live")]
    assert window.vault is not None
    assert window.vault.lookup("Gannet")["status"] == "found"
