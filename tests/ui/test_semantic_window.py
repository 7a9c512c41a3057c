"""Search by meaning in the window (issue 27): the search pane's Keyword | Hybrid toggle and
the record pane's Related line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]


def vault(kit: VaultKit) -> VaultKit:
    kit.page(
        "private/people/tomas.md",
        "pg_tomas",
        "Tomás",
        "Tomás is on parental leave, looking after his baby daughter.\n",
        type="person",
    )
    kit.page("private/notes/budget.md", "pg_budget", "Budget", "The board froze all spending.\n", type="note")
    kit.page(
        "private/notes/infants.md",
        "pg_infants",
        "Infants",
        "Newborn babies sleep most of the day; parents take leave to look after them.\n",
        type="note",
    )
    kit.page(
        "private/notes/nursery.md",
        "pg_nursery",
        "Nursery",
        "A nursery for the baby: parents on leave. See [[Tomás]].\n",
        type="note",
    )
    return kit


def titles(window: MainWindow) -> list[str]:
    model = window.search.model
    return [model.row_at(i)["title"] for i in range(model.rowCount())]


def test_hybrid_finds_by_meaning_what_keyword_does_not(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    window = open_window(vault(kit).root, watch=False)
    wait_idle(qtbot, window)
    pane = window.search
    assert pane.keyword_button.isChecked()
    QTest.keyClicks(pane.field, "paternity absence")
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window)
    assert titles(window) == []
    pane.hybrid_button.click()
    assert not pane.mode.isEnabled()
    qtbot.waitUntil(lambda: "Tomás" in titles(window), timeout=20_000)
    pane.keyword_button.click()
    qtbot.waitUntil(lambda: titles(window) == [], timeout=20_000)


def test_the_record_pane_lists_related_records_it_does_not_link(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    window = open_window(vault(kit).root, watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("pg_tomas", 0)
    wait_idle(qtbot, window)
    related = window.record.related
    qtbot.waitUntil(related.isVisible, timeout=20_000)
    paths = [item["path"] for item in related.items]
    assert "private/notes/infants.md" in paths
    assert "private/notes/nursery.md" not in paths, "it links to Tomás: the backlinks show it"
    assert "private/people/tomas.md" not in paths
    with qtbot.waitSignal(window.record.open_requested) as opened:
        related.linkActivated.emit("record:private/notes/infants.md")
    assert opened.args[0] == "private/notes/infants.md"


def test_a_record_with_nothing_related_hides_the_line(
    open_window: OpenWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    kit = VaultKit(tmp_path / "lonely")
    kit.page("private/notes/only.md", "pg_only", "Only", "The only record.\n", type="note")
    window = open_window(kit.root, watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("pg_only", 0)
    wait_idle(qtbot, window)
    assert window.record.related.items == []
    assert not window.record.related.isVisible()


def test_hybrid_search_and_related_take_in_notes(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    """Notes (issue 25) are searched by meaning too, and a note's Related line lists records."""
    vault(kit).write("Daycare.md", "Our baby daughter starts at the daycare after the parental leave.\n")
    window = open_window(kit.root, watch=False)
    wait_idle(qtbot, window)
    pane = window.search
    pane.hybrid_button.click()
    QTest.keyClicks(pane.field, "paternity absence")
    qtbot.waitUntil(lambda: "Daycare" in titles(window), timeout=20_000)
    model = window.search.model
    row = next(model.row_at(i) for i in range(model.rowCount()) if model.row_at(i)["title"] == "Daycare")
    assert (row["meta"], row["id"], row["key"]) == ("note · Daycare.md", None, "Daycare.md")
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("Daycare.md", 0)
    related = window.record.related
    qtbot.waitUntil(related.isVisible, timeout=20_000)
    assert "private/people/tomas.md" in [item["path"] for item in related.items]
