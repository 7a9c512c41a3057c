"""The Search pane and the quick switcher (pytest-qt)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.search_model import (
    SNIPPET_ROLE,
    SPANS_ROLE,
    ResultsModel,
    hit_row,
    plain_passage,
    suggestion_row,
)
from knowledge_desktop.ui.panes.search import SearchPane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


@pytest.fixture
def vault(kit: VaultKit) -> VaultKit:
    kit.page(
        "private/notes/harbour.md",
        "pg_harbour",
        "Harbour lights",
        type="note",
        aliases=["Beacon"],
        tags=["coast"],
        body="The harbour lights were repaired in spring by the [[people/ada|ferry crew]].\n",
    )
    kit.page(
        "private/notes/huts.md",
        "pg_huts",
        "Mountain huts",
        type="note",
        body="Huts above the harbour valley stay open in winter.\n",
    )
    kit.claim(
        "private/claims/ferry.md",
        "cl_ferry",
        "The ferry leaves at nine",
        body="The ferry to the harbour leaves at nine every morning.\n",
    )
    return kit


@pytest.fixture
def pane(open_window: OpenWindow, vault: VaultKit) -> SearchPane:
    return open_window(vault.root).search


def window_of(pane: SearchPane) -> MainWindow:
    window = pane.window()
    assert isinstance(window, MainWindow)
    return window


def count_greps(monkeypatch: pytest.MonkeyPatch, pane: SearchPane) -> list[GrepQuery]:
    """Record every GrepQuery the pane sends (the calls run on workers)."""
    assert pane.vault is not None
    seen: list[GrepQuery] = []
    real = pane.vault.grep

    def grep(q: GrepQuery, scope: str | None = None) -> dict[str, Any]:
        seen.append(q)
        return real(q, scope)

    monkeypatch.setattr(pane.vault, "grep", grep)
    return seen


def type_and_wait(qtbot: QtBot, pane: SearchPane, text: str) -> None:
    QTest.keyClicks(pane.field, text)
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window_of(pane))


def titles(model: ResultsModel) -> list[str]:
    return [model.row_at(i)["title"] for i in range(model.rowCount())]


def test_typing_runs_one_debounced_search_with_snippets(
    qtbot: QtBot, pane: SearchPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = count_greps(monkeypatch, pane)
    type_and_wait(qtbot, pane, "harbour lights")
    assert [q.query for q in seen] == ["harbour lights"]  # one request for the whole burst
    assert titles(pane.model) == ["Harbour lights"]
    index = pane.model.index(0, 0)
    snippet = index.data(SNIPPET_ROLE)
    assert "ferry crew" in snippet  # link text kept, link target dropped
    assert "people/ada" not in snippet
    marked = [snippet[start : start + length] for start, length in index.data(SPANS_ROLE)]
    assert [m.lower() for m in marked] == ["harbour", "lights"]
    assert pane.summary.text().startswith("1 result · index ready")


def test_no_results_says_so_and_offers_any_word(qtbot: QtBot, pane: SearchPane) -> None:
    type_and_wait(qtbot, pane, "harbour zeppelin")
    assert pane.model.rowCount() == 0
    assert "No results for “harbour zeppelin”" in pane.summary.text()
    pane._summary_link("mode:any")
    wait_idle(qtbot, window_of(pane))
    assert pane.mode.currentData() == "any"
    assert pane.model.rowCount() == 3


def test_mode_and_filters_reach_the_grep_query(
    qtbot: QtBot, pane: SearchPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = count_greps(monkeypatch, pane)
    pane.filters_button.click()
    assert pane.filters.isVisible()
    pane.mode.setCurrentIndex(pane.mode.findData("phrase"))
    pane.kind.setCurrentIndex(pane.kind.findData("page"))
    pane.type_field.setText("note, person")
    pane.tag.setText("coast")
    pane.lifecycle.setCurrentIndex(pane.lifecycle.findData("all"))
    pane.time_field.setCurrentIndex(pane.time_field.findData("recorded_at"))
    pane.since.setText("2026-01-01")
    pane.until.setText("2026-12-31")
    type_and_wait(qtbot, pane, "harbour lights")
    q = seen[-1]
    assert (q.query, q.mode, q.kind, q.tag, q.lifecycle) == (
        "harbour lights",
        "phrase",
        "page",
        "coast",
        "all",
    )
    assert q.types is not None
    assert {"note", "person"} <= q.types  # the vault adds the types' aliases
    assert (q.time_field, q.since, q.until) == ("recorded_at", "2026-01-01", "2026-12-31")
    assert titles(pane.model) == ["Harbour lights"]


def test_a_bad_filter_shows_the_engine_message_inline(
    qtbot: QtBot, pane: SearchPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QMessageBox, "warning", lambda *_a: pytest.fail("no dialog for a bad filter"))
    pane.filters_button.click()
    pane.time_field.setCurrentIndex(pane.time_field.findData("occurred_at"))
    pane.since.setText("last tuesday")
    type_and_wait(qtbot, pane, "harbour")
    assert pane.error.isVisible()
    assert "since must be a YYYY-MM-DD date" in pane.error.text()
    assert pane.model.rowCount() == 0
    pane.since.clear()
    QTest.keyClicks(pane.since, "2020-01-01")
    qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
    wait_idle(qtbot, window_of(pane))
    assert not pane.error.isVisible()


@pytest.mark.parametrize("text", ["Harbour lights", "  harbour   LIGHTS ", "beacon", "pg_harbour"])
def test_enter_on_an_exact_name_or_id_opens_it(qtbot: QtBot, pane: SearchPane, text: str) -> None:
    pane.field.setText(text)
    with qtbot.waitSignal(pane.open_requested, timeout=10_000) as opened:
        QTest.keyClick(pane.field, Qt.Key.Key_Return)
    assert opened.args == ["private/notes/harbour.md", 0]
    wait_idle(qtbot, window_of(pane))
    assert window_of(pane).current_path == "private/notes/harbour.md"


def test_enter_without_an_exact_match_opens_the_first_hit(
    qtbot: QtBot, pane: SearchPane, vault: VaultKit
) -> None:
    lines = (vault.root / "private/claims/ferry.md").read_text("utf-8").splitlines()
    body_line = next(n for n, line in enumerate(lines, 1) if "every morning" in line)
    QTest.keyClicks(pane.field, "ferry morning")
    with qtbot.waitSignal(pane.open_requested, timeout=10_000) as opened:
        QTest.keyClick(pane.field, Qt.Key.Key_Return)  # before the debounce fires: waits for the hits
    assert opened.args == ["private/claims/ferry.md", 0]  # the record, rendered (issue 29 §8)
    with qtbot.waitSignal(pane.open_requested, timeout=10_000) as opened:
        QTest.keyClick(pane.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert opened.args == ["private/claims/ferry.md", body_line]  # the line of the matched passage


def test_arrows_move_through_results_and_enter_opens_the_chosen_one(qtbot: QtBot, pane: SearchPane) -> None:
    type_and_wait(qtbot, pane, "harbour")
    assert pane.model.rowCount() == 3
    QTest.keyClick(pane.field, Qt.Key.Key_Down)
    QTest.keyClick(pane.field, Qt.Key.Key_Down)
    assert pane.results.currentIndex().row() == 1
    chosen = pane.model.row_at(1)["key"]
    with qtbot.waitSignal(pane.open_requested, timeout=5000) as opened:
        QTest.keyClick(pane.field, Qt.Key.Key_Return)
    assert opened.args[0] == chosen
    QTest.keyClick(pane.field, Qt.Key.Key_Escape)
    assert pane.field.text() == ""
    assert pane.model.rowCount() == 0


def test_an_ambiguous_name_lists_the_candidates(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    kit.page("private/notes/a.md", "pg_a", "Anchor", type="note")
    kit.page("private/notes/b.md", "pg_b", "Boat", type="note", aliases=["anchor"])
    pane = open_window(kit.root).search
    pane.field.setText("anchor")
    QTest.keyClick(pane.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pane.summary.text().startswith("Several records are named"), timeout=10_000)
    assert titles(pane.model) == ["Anchor", "Boat"]
    QTest.keyClick(pane.field, Qt.Key.Key_Down)
    with qtbot.waitSignal(pane.open_requested, timeout=5000) as opened:
        QTest.keyClick(pane.field, Qt.Key.Key_Return)
    assert opened.args == ["private/notes/b.md", 0]


def test_a_stale_answer_never_replaces_a_newer_one(
    qtbot: QtBot, pane: SearchPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert pane.vault is not None
    real = pane.vault.grep
    release = threading.Event()

    def grep(q: GrepQuery, scope: str | None = None) -> dict[str, Any]:
        if q.query == "mountain":
            release.wait(10)  # the first answer arrives last
        return real(q, scope)

    monkeypatch.setattr(pane.vault, "grep", grep)
    pane.set_query("mountain")
    pane.set_query("ferry")
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0, timeout=10_000)
    release.set()
    wait_idle(qtbot, window_of(pane))
    assert "Mountain huts" not in titles(pane.model)
    assert titles(pane.model)[0] == "The ferry leaves at nine"


def test_a_change_re_runs_the_search_and_keeps_the_selection(
    qtbot: QtBot, pane: SearchPane, vault: VaultKit
) -> None:
    type_and_wait(qtbot, pane, "harbour")
    QTest.keyClick(pane.field, Qt.Key.Key_Down)
    QTest.keyClick(pane.field, Qt.Key.Key_Down)
    kept = pane.selected_key()
    vault.page("private/notes/quay.md", "pg_quay", "Harbour quay", type="note", body="Harbour quay.\n")
    window = window_of(pane)
    assert window.vault is not None
    change = window.vault.reconcile(["private/notes/quay.md"])
    window.apply_change(change)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 4, timeout=10_000)
    wait_idle(qtbot, window)
    assert "Harbour quay" in titles(pane.model)
    assert pane.selected_key() == kept


def test_more_results_appends_the_next_page(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    for n in range(25):
        kit.page(f"private/notes/n{n:02}.md", f"pg_{n:02}", f"Lantern {n:02}", type="note")
    pane = open_window(kit.root).search
    type_and_wait(qtbot, pane, "lantern")
    assert pane.model.rowCount() == 20
    assert pane.more.isVisibleTo(pane)
    assert "25 results (showing 20)" in pane.summary.text()
    pane.more.click()
    qtbot.waitUntil(lambda: pane.model.rowCount() == 25, timeout=10_000)
    assert not pane.more.isVisibleTo(pane)


def test_ctrl_k_focuses_the_search_field(qtbot: QtBot, pane: SearchPane) -> None:
    window = window_of(pane)
    window.activateWindow()
    window.commands.search.trigger()
    assert window.docks["Search"].isVisible()
    qtbot.waitUntil(pane.field.hasFocus, timeout=5000)


def test_quick_switcher_finds_by_title_prefix_and_alias(qtbot: QtBot, pane: SearchPane) -> None:
    window = window_of(pane)
    window.commands.switch.trigger()
    switcher = pane.switcher
    assert switcher is not None
    assert switcher.isVisible()
    QTest.keyClicks(switcher.field, "mount")
    qtbot.waitUntil(lambda: switcher.model.rowCount() == 1, timeout=10_000)
    assert switcher.model.row_at(0)["title"] == "Mountain huts"
    with qtbot.waitSignal(pane.open_requested, timeout=5000) as opened:
        QTest.keyClick(switcher.field, Qt.Key.Key_Return)
    assert opened.args == ["private/notes/huts.md", 0]
    assert not switcher.isVisible()
    wait_idle(qtbot, window)
    assert window.current_path == "private/notes/huts.md"

    window.commands.switch.trigger()
    assert switcher.field.text() == ""
    QTest.keyClicks(switcher.field, "beac")
    qtbot.waitUntil(lambda: switcher.model.rowCount() == 1, timeout=10_000)
    assert switcher.model.row_at(0)["note"] == "alias: Beacon"
    QTest.keyClick(switcher.field, Qt.Key.Key_Escape)
    assert not switcher.isVisible()


def test_quick_switcher_enter_right_after_typing_waits_for_suggestions(
    qtbot: QtBot, pane: SearchPane
) -> None:
    window_of(pane).commands.switch.trigger()
    switcher = pane.switcher
    assert switcher is not None
    QTest.keyClicks(switcher.field, "harb")
    with qtbot.waitSignal(pane.open_requested, timeout=10_000) as opened:
        QTest.keyClick(switcher.field, Qt.Key.Key_Return)
    assert opened.args == ["private/notes/harbour.md", 0]


def test_results_model_passes_the_model_tester(qtmodeltester: Any) -> None:
    model = ResultsModel()
    hit = {
        "id": "pg_a",
        "kind": "page",
        "type": "note",
        "title": "Harbour",
        "path": "private/notes/a.md",
        "lifecycle": "active",
        "snippet": {"text": "The harbour", "start": 0, "end": 11, "lineStart": 5, "matchLocated": True},
        "via": {"id": "pg_old", "title": "Old harbour"},
    }
    model.set_rows([hit_row(hit, "harbour")])
    model.append_rows(
        [
            suggestion_row(
                {
                    "title": "Boat",
                    "path": "private/notes/b.md",
                    "matched": "alias",
                    "alias": "B",
                    "eligible": False,
                }
            )
        ]
    )
    assert model.row_at(0)["note"] == "via Old harbour"
    assert model.row_at(0)["line"] == 5
    assert model.row_at(1)["dim"] is True
    qtmodeltester.check(model)


def test_passages_read_as_text() -> None:
    assert plain_passage("# Title\nSee [Ada](../people/ada.md) and [[people/bo|Bo]] | a | b |") == (
        "Title See Ada and Bo a b"
    )


def test_a_total_past_a_thousand_is_grouped(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    """1,030 matches read "1,030 results (showing 20)", as the catalog writes its counts
    (on a million-record vault the summary had read "861091 results")."""
    for n in range(1030):
        kit.page(f"private/notes/n{n:04}.md", f"pg_{n:04}", f"Lantern {n:04}", type="note")
    pane = open_window(kit.root).search
    type_and_wait(qtbot, pane, "lantern")
    assert pane.summary.text().startswith("1,030 results (showing 20) · ")
