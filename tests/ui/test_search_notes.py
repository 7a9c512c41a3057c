"""Notes in the window's search pane (Ctrl+K) and quick switcher (issue 25 §3, pytest-qt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.search import SearchPane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


@pytest.fixture
def pane(open_window: OpenWindow, kit: VaultKit) -> SearchPane:
    kit.page(
        "private/notes/harbour.md",
        "pg_harbour",
        "Harbour lights",
        type="note",
        body="The harbour lights were repaired in spring.\n",
    )
    kit.write("Harbour walk.md", "Evening walk along the harbour wall.\n")
    kit.write("ideas/Lamp ideas.md", "---\naliases: [Lantern plans]\n---\nA brass lantern.\n")
    return open_window(kit.root).search


def test_switcher_finds_a_note_by_name_and_alias_after_records_and_opens_it(
    qtbot: QtBot, pane: SearchPane
) -> None:
    window = pane.window()
    assert isinstance(window, MainWindow)
    window.commands.switch.trigger()
    switcher = pane.switcher
    assert switcher is not None
    QTest.keyClicks(switcher.field, "harb")
    qtbot.waitUntil(lambda: switcher.model.rowCount() == 2, timeout=10_000)
    rows = [switcher.model.row_at(i) for i in range(2)]
    assert [(r["title"], r["key"]) for r in rows] == [
        ("Harbour lights", "private/notes/harbour.md"),
        ("Harbour walk", "Harbour walk.md"),
    ]
    assert rows[1]["meta"].startswith("note")
    switcher.field.clear()
    QTest.keyClicks(switcher.field, "lantern")
    qtbot.waitUntil(lambda: switcher.model.rowCount() == 1, timeout=10_000)
    assert switcher.model.row_at(0)["note"] == "alias: Lantern plans"
    with qtbot.waitSignal(pane.open_requested, timeout=5000) as opened:
        QTest.keyClick(switcher.field, Qt.Key.Key_Return)
    assert opened.args == ["ideas/Lamp ideas.md", 0]


def test_search_pane_lists_records_then_notes_and_opens_a_note_hit(qtbot: QtBot, pane: SearchPane) -> None:
    window = pane.window()
    assert isinstance(window, MainWindow)
    QTest.keyClicks(pane.field, "harbour")
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 2, timeout=10_000)
    assert [pane.model.row_at(i)["key"] for i in range(2)] == ["private/notes/harbour.md", "Harbour walk.md"]
    assert pane.summary.text().startswith("2 results")
    with qtbot.waitSignal(pane.open_requested, timeout=5000) as opened:
        pane.results.activated.emit(pane.model.index(1, 0))
    assert opened.args == ["Harbour walk.md", 0]  # rendered; Shift+Enter would give its line
    # the kind filter can ask for notes alone
    pane.kind.setCurrentIndex(pane.kind.findData("note"))
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 1, timeout=10_000)
    assert pane.model.row_at(0)["key"] == "Harbour walk.md"
