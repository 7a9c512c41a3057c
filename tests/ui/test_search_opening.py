"""A name typed in the Search pane finds its page first; Enter opens the rendered record;
the quick switcher gives the focus back when it closes (issue 29 §8; pytest-qt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import RENDERED_TAB
from knowledge_desktop.ui.panes.search import SearchPane
from tests.vaultkit import VaultKit, envelope, record_text, wait_idle

OpenWindow = Callable[[Path], MainWindow]
BODY = "Ada Lovelace wrote the first published program for the Analytical Engine.\n\n" * 4


@pytest.fixture
def window(open_window: OpenWindow, kit: VaultKit) -> MainWindow:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", BODY, type="person")
    kit.page("private/people/bab.md", "pg_bab", "Charles Babbage", "Knew Ada Lovelace.\n", type="person")
    for n, label in enumerate(("relates_to", "advises", "partner_of")):
        fields = {"from": "pg_ada", "to": "pg_bab", "label": label, "attribution": "letters"}
        title = f"Ada Lovelace {label.replace('_', ' ')} Babbage"
        record = envelope(f"rl_{n}", "relationship", title, evidence=[{"url": "https://x.org"}], **fields)
        kit.write(f"private/relationships/r{n}.md", record_text(record))
    return open_window(kit.root)


def search(qtbot: QtBot, window: MainWindow, text: str) -> SearchPane:
    pane = window.search
    QTest.keyClicks(pane.field, text)
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0, timeout=10_000)
    return pane


def test_a_name_query_lists_the_page_before_what_mentions_it(qtbot: QtBot, window: MainWindow) -> None:
    pane = search(qtbot, window, "ada lovelace")
    rows = [pane.model.row_at(i) for i in range(pane.model.rowCount())]
    assert rows[0]["key"] == "private/people/ada.md"
    assert len(rows) == 5  # every hit is still there, once


def test_enter_on_a_hit_opens_the_rendered_record(qtbot: QtBot, window: MainWindow) -> None:
    pane = search(qtbot, window, "analytical engine")
    QTest.keyClick(pane.field, Qt.Key.Key_Down)  # the hit itself, chosen with the keys
    assert pane.model.row_at(0).get("line")  # a body match: it has a line to show
    with qtbot.waitSignal(pane.open_requested, timeout=5000):
        QTest.keyClick(pane.field, Qt.Key.Key_Return)
    record = window.record
    qtbot.waitUntil(lambda: record.loaded is not None and record.loaded.path == "private/people/ada.md")
    wait_idle(qtbot, window)
    assert record.tabs.currentIndex() == RENDERED_TAB


def test_closing_the_quick_switcher_gives_the_focus_back(qtbot: QtBot, window: MainWindow) -> None:
    tree = window.catalog.tree
    window.activateWindow()
    tree.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree, timeout=5000)
    window.commands.switch.trigger()
    switcher = window.search.switcher
    assert switcher is not None
    qtbot.waitUntil(lambda: QApplication.focusWidget() is switcher.field, timeout=5000)
    QTest.keyClick(switcher.field, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree, timeout=5000)

    window.commands.switch.trigger()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is switcher.field, timeout=5000)
    QTest.keyClicks(switcher.field, "babbage")
    with qtbot.waitSignal(window.search.open_requested, timeout=10_000):
        QTest.keyClick(switcher.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree, timeout=5000)
    wait_idle(qtbot, window)
    assert window.current_path == "private/people/bab.md"
