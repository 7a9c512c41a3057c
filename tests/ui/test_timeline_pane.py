"""The Timeline pane: filters, entity scope, source grouping, chronicle, paging, settings (pytest-qt)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QSettings, Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes import timeline as timeline_pane
from knowledge_desktop.ui.panes.timeline import TimelinePane
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.widgets.date_edit import OptionalDateEdit
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]
CHANGE = {"reason": "r", "at": "2026-10-01T09:00:00.000Z"}


@pytest.fixture
def dated(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    kit.page(
        "private/sources/standup.md",
        "pg_src",
        "Stand-up notes",
        type="source",
        fields={"occurred_at": "2026-09-28T09:00:00Z"},
    )
    kit.claim(
        "private/claims/decided.md",
        "cl_dec",
        "Ship on Friday",
        claim_kind="decision",
        occurred_at="2026-09-28",
        entities=["pg_ada"],
        evidence=[{"source": "pg_src"}],
    )
    kit.claim(
        "private/claims/promise.md",
        "cl_due",
        "Ada writes the memo",
        claim_kind="commitment",
        owner="pg_ada",
        occurred_at="2026-09-29",
        due_at="2026-10-03",
    )
    kit.claim(
        "private/claims/late.md",
        "cl_late",
        "Bob calls late",
        occurred_at="2026-09-28T23:30:00Z",
        entities=["pg_bob"],
    )
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Old plan",
        occurred_at="2026-09-01",
        lifecycle="superseded",
        superseded_by="cl_dec",
        lifecycle_change=CHANGE,
    )
    return kit


def settle(qtbot: QtBot, window: MainWindow) -> TimelinePane:
    pane = window.timeline
    qtbot.waitUntil(lambda: not pane.reload_timer.isActive(), timeout=5000)
    wait_idle(qtbot, window)
    return pane


def titles(pane: TimelinePane) -> list[str]:
    return [node.cells[2] for node in pane.model.top_level()]


def choose(combo: QComboBox, data: str) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def test_filters_by_time_field_kind_range_and_inactive(
    qtbot: QtBot, open_window: OpenWindow, dated: VaultKit
) -> None:
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    assert titles(pane) == ["Ship on Friday", "Stand-up notes", "Bob calls late", "Ada writes the memo"]
    assert pane.model.top_level()[0].cells[:2] == ("2026-09-28", "claim · decision")
    assert pane.model.top_level()[1].cells[0] == "2026-09-28 09:00 UTC"

    choose(pane.controls.field, "due_at")
    assert titles(settle(qtbot, window)) == ["Ada writes the memo"]
    choose(pane.controls.field, "occurred_at")
    choose(pane.controls.kind, "decision")
    assert titles(settle(qtbot, window)) == ["Ship on Friday"]
    pane.controls.kind.setCurrentIndex(0)
    pane.controls.since.set_value(date(2026, 9, 29))
    assert titles(settle(qtbot, window)) == ["Ada writes the memo"]
    pane.controls.since.set_value(None)
    pane.controls.until.set_value(date(2026, 9, 10))
    assert titles(settle(qtbot, window)) == []
    assert pane.results.currentWidget() is pane.empty
    assert pane.focus_target() is pane.controls.kind  # the hidden list would take the focus out of sight
    pane.controls.inactive.setChecked(True)
    assert titles(settle(qtbot, window)) == ["Old plan"]
    pane.controls.until.set_value(None)
    choose(pane.controls.order, "desc")
    assert titles(settle(qtbot, window))[0] == "Ada writes the memo"


def test_entity_scope_follows_the_page_in_focus(
    qtbot: QtBot, open_window: OpenWindow, dated: VaultKit
) -> None:
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    assert pane.controls.chip.text() == "Whole vault"  # no page open yet
    assert len(titles(pane)) == 4
    window.open_record("pg_ada")
    qtbot.waitUntil(lambda: pane.controls.chip.text() == "Scoped to Ada", timeout=5000)
    assert titles(settle(qtbot, window)) == ["Ship on Friday", "Ada writes the memo"]
    window.open_record("cl_late")  # a claim: the timeline stays on the last page
    assert titles(settle(qtbot, window)) == ["Ship on Friday", "Ada writes the memo"]
    window.open_record("pg_bob")
    qtbot.waitUntil(lambda: pane.controls.chip.text() == "Scoped to Bob", timeout=5000)
    assert titles(settle(qtbot, window)) == ["Bob calls late"]


def test_entity_timeline_grouped_by_source(
    qtbot: QtBot, qtmodeltester: ModelTester, open_window: OpenWindow, dated: VaultKit
) -> None:
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    window.open_record("pg_ada")
    qtbot.waitUntil(pane.controls.page_scope, timeout=5000)
    pane.controls.by_source.setChecked(True)
    settle(qtbot, window)
    assert not pane.controls.field.isEnabled()
    assert not pane.controls.kind.isEnabled()
    rows = pane.model.top_level()
    assert [row.cells[2] for row in rows] == ["Stand-up notes", "Ada writes the memo"]
    source = rows[0]
    assert source.cells[:2] == ("2026-09-28 09:00 UTC", "page · source")
    assert [child.cells[2] for child in source.children] == ["1 claim from this source"]
    assert pane.tree.isExpanded(pane.model.find_key("source:pg_src"))
    qtmodeltester.check(pane.model)


def test_chronicle_day_and_week_in_a_time_zone(
    qtbot: QtBot, qtmodeltester: ModelTester, open_window: OpenWindow, dated: VaultKit
) -> None:
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    pane.controls.mode_chronicle.setChecked(True)
    pane.controls.day.setDate(QDate(2026, 9, 28))
    settle(qtbot, window)
    assert pane.controls.bars.currentIndex() == 1
    assert "Bob calls late" in titles(pane)  # 23:30 UTC is still the 28th in UTC
    late = next(n for n in pane.model.top_level() if n.cells[2] == "Bob calls late")
    assert late.cells[0] == "23:30"

    pane.controls.zone.setCurrentIndex(pane.controls.zone.findText("Europe/Lisbon"))
    settle(qtbot, window)
    assert "Bob calls late" not in titles(pane)  # in Lisbon it is 00:30 on the 29th
    pane.controls.next_day.click()
    settle(qtbot, window)
    late = next(n for n in pane.model.top_level() if n.cells[2] == "Bob calls late")
    assert late.cells[0] == "00:30"
    assert "Europe/Lisbon" in pane.summary.text()

    pane.controls.week.setChecked(True)
    settle(qtbot, window)
    days = [node.cells[0] for node in pane.model.top_level()]
    assert days[:2] == ["Monday 28 September 2026", "Tuesday 29 September 2026"]
    tuesday = pane.model.top_level()[1]
    assert "Bob calls late" in [child.cells[2] for child in tuesday.children]
    assert "the week of Monday 28 September 2026" in pane.summary.text()
    qtmodeltester.check(pane.model)


def test_more_rows_arrive_on_request(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    open_window: OpenWindow,
    dated: VaultKit,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline_pane, "PAGE", 3)
    window = open_window(dated.root)
    window.docks["Timeline"].raise_()  # in sight (by default its tab is behind Diagnostics)
    pane = settle(qtbot, window)
    qtbot.waitUntil(lambda: len(titles(pane)) == 4)  # the view fetched the rest on its own
    wait_idle(qtbot, window)
    assert pane.next_offset is None
    assert not pane.more_button.isVisible()
    assert pane.summary.text() == "4 dated records"
    qtmodeltester.check(pane.model)


def test_a_timeline_out_of_sight_loads_no_more_pages_until_shown(
    qtbot: QtBot, open_window: OpenWindow, dated: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeline_pane, "PAGE", 3)
    window = open_window(dated.root)
    pane = window.timeline
    window.docks["Diagnostics"].raise_()  # the timeline's tab is behind
    qtbot.waitUntil(lambda: pane.tree.visibleRegion().isEmpty(), timeout=5000)
    pane.refresh()
    settle(qtbot, window)
    assert len(titles(pane)) == 3  # a hidden view looks scrolled to its end: it must not page on
    window.docks["Timeline"].raise_()
    qtbot.waitUntil(lambda: len(titles(pane)) == 4, timeout=5000)


def test_load_more_button_appends_the_next_page(
    qtbot: QtBot, open_window: OpenWindow, dated: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeline_pane, "PAGE", 2)
    monkeypatch.setattr(timeline_pane.TimelineModel, "canFetchMore", lambda _self, _parent: False)
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    assert len(titles(pane)) == 2
    assert pane.more_button.isVisible()
    pane.more_button.click()
    wait_idle(qtbot, window)
    assert titles(pane) == ["Ship on Friday", "Stand-up notes", "Bob calls late", "Ada writes the memo"]
    assert not pane.more_button.isVisible()


def test_double_click_opens_the_record(qtbot: QtBot, open_window: OpenWindow, dated: VaultKit) -> None:
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    index = pane.model.index(3, 2)
    centre = pane.tree.visualRect(index).center()
    with qtbot.waitSignal(pane.open_requested) as opened:
        qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert opened.args == ["private/claims/promise.md", 0]


def test_controls_are_saved_and_restored(qtbot: QtBot, settings: QSettings) -> None:
    first = TimelinePane(Runner())
    qtbot.addWidget(first)
    runner = first.runner
    runner.setParent(first)  # it goes with the pane, deleted on this thread
    first.controls.mode_chronicle.setChecked(True)
    first.controls.chip.pin.setChecked(True)  # on the whole vault: no page is open
    choose(first.controls.field, "due_at")
    choose(first.controls.order, "desc")
    first.controls.since.set_value(date(2026, 9, 1))
    first.controls.inactive.setChecked(True)
    first.controls.by_source.setChecked(True)
    first.controls.week.setChecked(True)
    first.controls.zone.setCurrentIndex(first.controls.zone.findText("Asia/Tokyo"))
    first.controls.set_types(["decision"])
    choose(first.controls.kind, "decision")
    first.reload_timer.stop()
    first.save_settings(settings)

    second = TimelinePane(runner)
    qtbot.addWidget(second)
    second.restore_settings(settings)
    assert second.controls.mode_chronicle.isChecked()
    assert second.controls.chip.pinned_to_vault()
    assert second.controls.field.currentData() == "due_at"
    assert second.controls.order.currentData() == "desc"
    assert second.controls.since.value() == date(2026, 9, 1)
    assert second.controls.until.value() is None
    assert second.controls.inactive.isChecked()
    assert second.controls.by_source.isChecked()
    assert second.controls.week.isChecked()
    assert second.controls.current_zone() == "Asia/Tokyo"
    assert second.controls.kind.currentData() == "decision"
    assert not second.reload_timer.isActive()
    runner.close()


def test_an_optional_date_reads_any_until_set(qtbot: QtBot) -> None:
    edit = OptionalDateEdit()
    qtbot.addWidget(edit)
    assert edit.value() is None
    assert edit.text() == "any"
    edit.stepBy(1)
    assert edit.value() == date.today()
    edit.lineEdit().selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    assert edit.value() is None
