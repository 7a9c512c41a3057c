"""Timeline and Chronicle follow the page in focus (issue 29 §7; pytest-qt).

With a page open the Timeline is scoped to it and lists what the page takes
part in (the meeting Ada attended, the claims naming her); the scope chip
leads back to the whole vault, follows the record pane unless pinned, scopes
the Chronicle too, and a date typed into the Chronicle's day field moves it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QDate, QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.timeline import TimelinePane
from tests.ui.test_timeline_pane import settle, titles
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]


@pytest.fixture
def people(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    kit.page(
        "private/meetings/standup.md",
        "pg_meet",
        "Stand-up",
        type="meeting",
        fields={"occurred_at": "2026-09-28T09:00:00Z"},
    )
    kit.relationship("private/relationships/att.md", "rl_att", "pg_ada", "pg_meet", "attended")
    kit.claim(
        "private/claims/memo.md", "cl_memo", "Ada writes the memo", owner="pg_ada", occurred_at="2026-09-28"
    )
    kit.claim(
        "private/claims/bob.md", "cl_bob", "Bob calls late", entities=["pg_bob"], occurred_at="2026-09-28"
    )
    return kit


def open_page(qtbot: QtBot, window: MainWindow, record_id: str, chip: str) -> TimelinePane:
    window.open_record(record_id)
    pane = window.timeline
    qtbot.waitUntil(lambda: pane.controls.chip.text() == chip, timeout=5000)
    return settle(qtbot, window)


def test_a_page_opened_scopes_the_timeline_to_what_it_takes_part_in(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    pane = settle(qtbot, window)
    assert titles(pane) == ["Bob calls late", "Ada writes the memo", "Stand-up"]
    pane = open_page(qtbot, window, "pg_ada", "Scoped to Ada Lovelace")
    assert titles(pane) == ["Ada writes the memo", "Stand-up"]  # her claim, the meeting she attended
    assert "about Ada Lovelace" in pane.summary.text()
    assert pane.controls.chip.clear_button.isVisibleTo(pane)

    pane.controls.chip.clear_button.click()  # ✕: back to the whole vault
    assert titles(settle(qtbot, window)) == ["Bob calls late", "Ada writes the memo", "Stand-up"]
    assert pane.controls.chip.text() == "Whole vault"
    assert pane.controls.chip.scope_button.text() == "Only Ada Lovelace"
    pane.controls.chip.scope_button.click()
    assert titles(settle(qtbot, window)) == ["Ada writes the memo", "Stand-up"]

    pane = open_page(qtbot, window, "pg_bob", "Scoped to Bob")  # the scope follows the record pane
    assert titles(pane) == ["Bob calls late"]


def test_a_pinned_scope_stays_while_other_pages_open(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    pane = open_page(qtbot, window, "pg_ada", "Scoped to Ada Lovelace")
    pane.controls.chip.pin.setChecked(True)
    window.open_record("pg_bob")
    qtbot.waitUntil(lambda: pane.controls.chip.scope_button.text() == "Only Bob", timeout=5000)
    settle(qtbot, window)
    assert pane.controls.chip.text() == "Scoped to Ada Lovelace"
    assert titles(pane) == ["Ada writes the memo", "Stand-up"]
    pane.controls.chip.pin.setChecked(False)  # following the record pane again: Bob's
    assert pane.controls.chip.text() == "Scoped to Bob"
    assert titles(settle(qtbot, window)) == ["Bob calls late"]


def test_the_chronicle_is_scoped_to_the_page_and_moves_to_a_typed_date(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    pane = open_page(qtbot, window, "pg_ada", "Scoped to Ada Lovelace")
    controls = pane.controls
    controls.mode_chronicle.setChecked(True)
    controls.day.setDate(QDate(2026, 9, 1))
    settle(qtbot, window)
    assert pane.empty.text() == "Nothing dated about Ada Lovelace in Tuesday 1 September 2026 (UTC)."

    controls.day.setFocus()
    controls.day.lineEdit().selectAll()
    qtbot.keyClicks(controls.day, "2026-09-28")
    qtbot.keyClick(controls.day, Qt.Key.Key_Return)
    assert controls.day_text() == "2026-09-28"
    assert titles(settle(qtbot, window)) == ["Ada writes the memo", "Stand-up"]
    assert controls.day.text() == QDate(2026, 9, 28).toString("ddd yyyy-MM-dd")

    controls.chip.clear_button.click()
    assert titles(settle(qtbot, window)) == ["Bob calls late", "Ada writes the memo", "Stand-up"]


def test_a_change_on_disk_updates_the_scoped_rows_in_place(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    vault = window.vault
    assert vault is not None
    pane = open_page(qtbot, window, "pg_ada", "Scoped to Ada Lovelace")
    selection = pane.tree.selectionModel()
    selection.setCurrentIndex(
        pane.model.find_key(*[n.key for n in pane.model.top_level() if n.cells[2] == "Stand-up"]),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    kept = pane.model.top_level()[1]
    path = "private/claims/late.md"
    people.claim(path, "cl_late", "Ada sends the slides", owner="pg_ada", occurred_at="2026-10-02")
    window.apply_change(vault.reconcile([path]))
    qtbot.waitUntil(lambda: "Ada sends the slides" in titles(pane), timeout=5000)
    assert titles(pane) == ["Ada writes the memo", "Stand-up", "Ada sends the slides"]
    assert pane.model.top_level()[1] is kept  # the row itself, not a new one: selection kept
    assert pane.model.node(pane.tree.currentIndex()) is kept
    assert pane.controls.chip.text() == "Scoped to Ada Lovelace"
