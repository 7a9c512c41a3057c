"""The Diagnostics pane and File › Export Diagnostics… (pytest-qt)."""

from __future__ import annotations

import random
import shutil
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QSettings, Qt, QThread
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from knowledge_desktop import cli
from knowledge_desktop.cli import diagnostics as cli_diagnostics
from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.diagnostics import Diagnostic, Severity, make
from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui import export
from knowledge_desktop.ui.export import choose_format
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.diagnostics_model import (
    CODE,
    LINE,
    MESSAGE,
    PATH,
    RECORD,
    SEVERITY,
    DiagnosticsModel,
    code_description,
    identity,
)
from knowledge_desktop.ui.panes.diagnostics import EMPTY_CLEAN, EMPTY_FILTERED, DiagnosticsPane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]
FIXED_TIME = "2026-09-28T18:30:00.000Z"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A private copy of the demo vault, so tests never write its index into the repo."""
    target = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


def broken_vault(kit: VaultKit) -> Path:
    """Two errors, one warning, one info."""
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada", type="person", fields={"shoe_size": 3}, body="[[Nobody]]\n"
    )
    # a broken record (a plain YAML error is a note now)
    kit.write("private/notes/bad.md", "---\ntitle: [oops\nformat: knowledge-record-v1\n---\n")
    kit.write("private/notes/unclosed.md", "---\ntitle: x\n")
    return kit.root


def rows(pane: DiagnosticsPane) -> list[Diagnostic]:
    """The problems listed: every row but the one grouping the notes' plain-note rows."""
    return [pane.model.diagnostic(r) for r in range(pane.model.rowCount()) if not pane.model.is_group(r)]


def problems(items: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in items if d.code != "plain-note"]


def settle(pane: DiagnosticsPane) -> None:
    """Wait for the rows the pane asked its worker for (filters and sorts are SQL there)."""
    deadline = time.monotonic() + 20
    while pane.model.waiting:
        assert time.monotonic() < deadline, "the diagnostics never arrived"
        QApplication.processEvents()
        QThread.msleep(2)


def cell(pane: DiagnosticsPane, row: int, column: int) -> str:
    return str(pane.model.index(row, column).data())


def on_main(qtbot: QtBot, window: MainWindow, work: Callable[[], Any]) -> Any:
    """Run engine work the way the app does (on a worker) and wait for the answer."""
    answers: list[Any] = []
    window.runner.submit(work, answers.append)
    qtbot.waitUntil(lambda: bool(answers), timeout=20_000)
    return answers[0]


def test_table_lists_exactly_the_vaults_diagnostics(
    open_window: OpenWindow, demo: Path, qtbot: QtBot
) -> None:
    window = open_window(demo)
    pane = window.diagnostics
    vault = window.vault
    assert vault is not None
    expected = on_main(qtbot, window, vault.diagnostics)
    assert Counter(rows(pane)) == Counter(problems(expected))
    assert len(expected) == 13
    assert pane.model.group_count == 1  # README.md is a note (issue 25), listed in the group row
    first = pane.model.diagnostic(0)
    assert [cell(pane, 0, c) for c in (CODE, PATH, RECORD, MESSAGE)] == [
        first.code,
        first.path,
        first.record_id or "",
        first.message,
    ]
    assert cell(pane, 0, SEVERITY) == "Error"
    assert cell(pane, 0, LINE) == ("" if first.line is None else str(first.line))
    tip = str(pane.model.index(0, MESSAGE).data(Qt.ItemDataRole.ToolTipRole))
    assert first.message in tip
    assert code_description(first.code) in tip
    assert [b.text() for b in pane.toggles.values()] == ["9 Errors", "3 Warnings", "1 Info"]
    assert pane.focus_target() is pane.table
    assert pane.stack.currentWidget() is pane.table


def test_sorting_by_severity_uses_rank_not_the_alphabet(open_window: OpenWindow, kit: VaultKit) -> None:
    window = open_window(broken_vault(kit))
    pane = window.diagnostics
    pane.table.sortByColumn(SEVERITY, Qt.SortOrder.AscendingOrder)
    settle(pane)
    assert [d.severity for d in rows(pane)] == [
        Severity.ERROR,
        Severity.ERROR,
        Severity.WARNING,
        Severity.INFO,
    ]
    pane.table.sortByColumn(SEVERITY, Qt.SortOrder.DescendingOrder)
    settle(pane)
    severities = [d.severity for d in rows(pane)]
    assert (severities[0], severities[-1]) == (Severity.INFO, Severity.ERROR)
    pane.table.sortByColumn(LINE, Qt.SortOrder.AscendingOrder)
    settle(pane)
    lines = [d.line or 0 for d in rows(pane)]
    assert lines == sorted(lines)
    pane.table.sortByColumn(PATH, Qt.SortOrder.DescendingOrder)
    settle(pane)
    paths = [d.path for d in rows(pane)]
    assert paths == sorted(paths, reverse=True)


def test_sorting_keeps_the_selected_problem(open_window: OpenWindow, kit: VaultKit) -> None:
    window = open_window(broken_vault(kit))
    pane = window.diagnostics
    pane.select_row(3)
    chosen = pane.selected_diagnostic()
    pane.table.sortByColumn(CODE, Qt.SortOrder.AscendingOrder)
    settle(pane)
    assert pane.selected_diagnostic() == chosen


def test_filter_text_toggles_and_code(open_window: OpenWindow, demo: Path) -> None:
    window = open_window(demo)
    pane = window.diagnostics
    pane.filter_edit.setText("duplicate")
    settle(pane)
    assert {d.code for d in rows(pane)} == {"duplicate-id"}
    assert pane.shown_label.text() == "2 of 13 shown"
    pane.filter_edit.setText("BROKEN-LINKS kickoff")  # words, any case, all must match
    settle(pane)
    assert [d.code for d in rows(pane)] == ["link-ambiguous"]
    pane.filter_edit.setText("pg_01K4DUPLICATEID")  # record ids match too
    settle(pane)
    assert len(rows(pane)) == 2
    pane.filter_edit.clear()
    settle(pane)
    pane.toggles[Severity.ERROR].setChecked(False)
    settle(pane)
    assert {d.severity for d in rows(pane)} == {Severity.WARNING}
    assert len(rows(pane)) == 3
    pane.toggles[Severity.WARNING].setChecked(False)
    settle(pane)
    pane.toggles[Severity.INFO].setChecked(False)
    settle(pane)
    assert rows(pane) == []
    assert pane.stack.currentWidget() is pane.empty_label
    assert pane.empty_label.text() == EMPTY_FILTERED
    for button in pane.toggles.values():
        button.setChecked(True)
        settle(pane)
    pane.code_box.setCurrentIndex(pane.code_box.findData("link-missing"))
    settle(pane)
    assert [d.code for d in rows(pane)] == ["link-missing"]
    assert pane.code_box.currentText() == "link-missing (1)"
    pane.code_box.setCurrentIndex(0)
    settle(pane)
    assert len(rows(pane)) == 12


def test_double_click_and_enter_open_the_file_at_the_line(
    open_window: OpenWindow, demo: Path, qtbot: QtBot
) -> None:
    window = open_window(demo)
    pane = window.diagnostics
    pane.filter_edit.setText("broken-impossible-date")
    settle(pane)
    target = pane.model.diagnostic(0)
    rect = pane.table.visualRect(pane.model.index(0, MESSAGE))
    # Qt's item views open on a double-click only after a press on the same row.
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(pane.open_requested) as blocker:
        qtbot.mouseDClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [target.path, target.line]
    wait_idle(qtbot, window)
    assert window.current_path == target.path
    pane.select_row(0)
    with qtbot.waitSignal(pane.open_requested) as blocker:
        qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    assert blocker.args == ["private/claims/broken-impossible-date.md", 14]
    pane.filter_edit.setText("README")  # the note's row, under the notes' group row
    settle(pane)
    pane.select_row(0)
    assert pane.model.is_group(0)
    with qtbot.assertNotEmitted(pane.open_requested):
        qtbot.keyClick(pane.table, Qt.Key.Key_Enter)  # Enter on the group row unfolds it
    settle(pane)
    pane.select_row(1)
    with qtbot.waitSignal(pane.open_requested) as blocker:  # a row without a line asks for line 0
        qtbot.keyClick(pane.table, Qt.Key.Key_Enter)
    assert blocker.args == ["README.md", 0]
    wait_idle(qtbot, window)


def test_a_clean_vault_says_so(open_window: OpenWindow, kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    pane = window.diagnostics
    assert pane.model.rowCount() == 0
    assert pane.stack.currentWidget() is pane.empty_label
    assert pane.empty_label.text() == EMPTY_CLEAN == "No problems found in this vault"
    assert pane.focus_target() is pane.filter_edit
    assert QObject.parent(pane.model) is pane


@pytest.mark.parametrize(
    ("name", "chosen", "fmt"),
    [
        ("report.html", "HTML report (*.html *.htm)", "html"),
        ("report", "JSON (*.json)", "json"),
        ("report.csv", "HTML report (*.html *.htm)", "csv"),  # the typed extension wins
        ("report.md", "Markdown (*.md *.markdown)", "md"),
    ],
)
def test_export_writes_the_same_bytes_as_the_cli(
    open_window: OpenWindow,
    demo: Path,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    chosen: str,
    fmt: str,
) -> None:
    monkeypatch.setattr(export, "utc_now_text", lambda: FIXED_TIME)
    monkeypatch.setattr(cli_diagnostics, "utc_now_text", lambda: FIXED_TIME)
    window = open_window(demo)
    out = tmp_path / "out"
    out.mkdir()
    asked: list[tuple[Any, ...]] = []

    def fake_dialog(*args: Any, **_: Any) -> tuple[str, str]:
        asked.append(args)
        return str(out / name), chosen

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_dialog))
    with qtbot.waitSignal(window.diagnostics.status_message, timeout=20_000) as blocker:
        window.commands.export.trigger()
    written = out / name if "." in name else out / f"{name}.{fmt}"
    assert blocker.args == [f"Exported 13 diagnostics to {written}"]
    assert all(f"*.{ext}" in asked[0][3] for ext in ("html", "json", "csv", "md"))  # every format
    reference = tmp_path / f"cli.{fmt}"
    assert cli.main(["diagnostics", str(demo), "--format", fmt, "--output", str(reference)]) == 0
    capsys.readouterr()
    assert written.read_bytes() == reference.read_bytes()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the atomic write cleaned up
    wait_idle(qtbot, window)


def test_cancelling_the_export_writes_nothing(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_window(broken_vault(kit))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    window.commands.export.trigger()
    assert window.runner.running == 0


def test_a_failed_export_shows_a_message_not_a_traceback(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = open_window(broken_vault(kit))
    blocker_file = tmp_path / "not-a-folder"
    blocker_file.write_text("a file where a folder should be")
    target = blocker_file / "report.html"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "HTML report (*.html)"))
    )
    shown: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "warning", staticmethod(lambda _parent, _title, text: shown.append(text))
    )
    crashes: list[str] = []
    window.runner.crashed.connect(crashes.append)
    window.diagnostics.export_dialog(window)
    qtbot.waitUntil(lambda: bool(shown), timeout=20_000)
    assert crashes == []
    assert "Traceback" not in shown[0]
    assert str(target) in shown[0]
    assert not target.exists()


def test_fixing_a_file_removes_its_rows_and_keeps_the_selection(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    window = open_window(broken_vault(kit))
    pane = window.diagnostics
    keep = next(r for r, d in enumerate(rows(pane)) if d.code == "link-missing")
    pane.select_row(keep)
    chosen = pane.selected_diagnostic()
    assert chosen is not None
    kit.page("private/notes/bad.md", "pg_bad", "Bad no more", type="note")
    vault = window.vault
    assert vault is not None
    change: ChangeSet = on_main(qtbot, window, lambda: vault.reconcile(["private/notes/bad.md"]))
    reset: list[bool] = []
    pane.model.modelReset.connect(lambda: reset.append(True))
    window.apply_change(change)
    wait_idle(qtbot, window)
    assert "private/notes/bad.md" not in {d.path for d in rows(pane)}
    assert len(rows(pane)) == 3
    assert pane.selected_diagnostic() == chosen
    assert reset == []  # rows were removed, not the model reset
    assert pane.toggles[Severity.ERROR].text() == "1 Error"


def test_a_fixed_selection_moves_to_the_next_problem(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    window = open_window(broken_vault(kit))
    pane = window.diagnostics
    row = next(r for r, d in enumerate(rows(pane)) if d.path == "private/notes/bad.md")
    pane.select_row(row)
    kit.page("private/notes/bad.md", "pg_bad", "Bad no more", type="note")
    vault = window.vault
    assert vault is not None
    window.apply_change(on_main(qtbot, window, lambda: vault.reconcile(["private/notes/bad.md"])))
    wait_idle(qtbot, window)
    assert pane.selected_diagnostic() == pane.model.diagnostic(row)


def test_settings_keep_sort_toggles_and_widths(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, settings: QSettings
) -> None:
    window = open_window(broken_vault(kit))
    pane = window.diagnostics
    pane.table.sortByColumn(CODE, Qt.SortOrder.DescendingOrder)
    settle(pane)
    pane.toggles[Severity.INFO].setChecked(False)
    settle(pane)
    pane.table.horizontalHeader().resizeSection(CODE, 277)
    window.close()
    again = open_window(kit.root)
    pane = again.diagnostics
    assert not pane.toggles[Severity.INFO].isChecked()
    assert pane.toggles[Severity.ERROR].isChecked()
    assert (pane.model.sort_column, pane.model.sort_order) == (CODE, Qt.SortOrder.DescendingOrder)
    codes = [d.code for d in rows(pane)]
    assert codes == sorted(codes, reverse=True)
    assert Severity.INFO not in {d.severity for d in rows(pane)}
    assert pane.table.horizontalHeader().sectionSize(CODE) == 277


def test_the_model_passes_the_qt_model_tester(
    open_window: OpenWindow, demo: Path, qtmodeltester: ModelTester
) -> None:
    window = open_window(demo)
    pane = window.diagnostics
    qtmodeltester.check(pane.model)
    pane.filter_edit.setText("broken")
    settle(pane)
    pane.table.sortByColumn(MESSAGE, Qt.SortOrder.DescendingOrder)
    settle(pane)
    qtmodeltester.check(pane.model)


def synthetic(n: int, seed: int) -> list[Diagnostic]:
    rng = random.Random(seed)
    codes = ["yaml-syntax", "link-missing", "field-undeclared", "duplicate-id", "misfiled"]
    return [
        make(
            rng.choice(codes),
            f"private/notes/n{rng.randrange(40)}.md",
            f"problem {rng.randrange(6)}",
            line=rng.choice([None, 1, 2, 30]),
            record_id=rng.choice([None, "pg_a", "pg_b"]),
        )
        for _ in range(n)
    ]


@pytest.mark.parametrize("seed", range(3))
def test_incremental_updates_match_a_fresh_sort(
    qapp: QApplication, qtmodeltester: ModelTester, seed: int
) -> None:
    """Reloads and filters reach the same rows as sorting from scratch, duplicates included."""
    model = DiagnosticsModel()
    qtmodeltester.check(model)  # Qt's tester stays attached and checks every change
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    pool = synthetic(90, seed)
    rng = random.Random(seed)
    items = rng.sample(pool, 40)
    text = ""
    for step in range(10):
        if step % 2:  # a few files changed: a handful of rows come and go
            gone = set(rng.sample(range(len(items)), min(3, len(items))))
            items = [d for n, d in enumerate(items) if n not in gone] + rng.sample(pool, 4)
        else:
            items = rng.sample(pool, rng.randrange(len(pool)))
        if step % 4 == 3:
            model.sort(rng.randrange(6), rng.choice(list(Qt.SortOrder)))
        if step % 3 == 2:
            text = rng.choice(["", "n1", "problem 2", "pg_a"])
            model.set_filter(text=text)
        model.set_items(items)
        fresh = DiagnosticsModel()
        fresh.sort(model.sort_column, model.sort_order)
        fresh.set_filter(text=text)
        fresh.set_items(items)
        assert [identity(d) for d in model.shown()] == [identity(d) for d in fresh.shown()]
        assert Counter(model.shown()) == Counter(fresh.shown())
    assert len(resets) < 10  # small changes went through row insertions and removals


def test_the_severity_sort_is_by_rank_in_the_model(qapp: QApplication) -> None:
    items = [
        make("field-undeclared", "a.md", "i"),
        make("link-missing", "a.md", "w"),
        make("yaml-syntax", "a.md", "e"),
    ]
    model = DiagnosticsModel()
    model.set_items(items)
    model.sort(SEVERITY, Qt.SortOrder.AscendingOrder)
    assert [d.severity.value for d in model.shown()] == ["error", "warning", "info"]
    model.sort(SEVERITY, Qt.SortOrder.DescendingOrder)
    assert [d.severity.value for d in model.shown()] == ["info", "warning", "error"]


def test_format_follows_the_extension_then_the_filter() -> None:
    assert choose_format("/x/r.HTM", "JSON (*.json)") == ("html", Path("/x/r.HTM"))
    assert choose_format("/x/r.markdown", "") == ("md", Path("/x/r.markdown"))
    assert choose_format("/x/r", "CSV spreadsheet (*.csv)") == ("csv", Path("/x/r.csv"))
    assert choose_format("/x/r.txt", "Markdown (*.md *.markdown)") == ("md", Path("/x/r.txt.md"))


def test_possible_duplicates_are_a_filter_of_the_pane(
    open_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    """Merge candidates (spec: corrections-and-merges, mergeCandidates) are listed as
    "Possible duplicates", a choice of the code picker; a new shared alias adds one."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person", aliases=["email:ada@example.org"])
    kit.page("private/people/b.md", "pg_b", "A. Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.page("private/people/c.md", "pg_c", "Grace", type="person", fields={"shoe_size": 3})
    window = open_window(kit.root)
    pane = window.diagnostics
    labels = [pane.code_box.itemText(i) for i in range(pane.code_box.count())]
    assert labels[:2] == ["All codes", "Possible duplicates (1)"]
    pane.code_box.setCurrentIndex(1)
    settle(pane)
    (row,) = rows(pane)
    assert (row.code, row.path, row.record_id) == ("merge-candidate", "private/people/a.md", "pg_a")
    assert "A. Lovelace (pg_b)" in row.message
    assert "email:ada@example.org" in row.message
    kit.page("private/people/c.md", "pg_c", "Grace", type="person", aliases=["email:ada@example.org"])
    qtbot.waitUntil(lambda: len(rows(pane)) == 1 and "Grace (pg_c)" in rows(pane)[0].message, timeout=20_000)


def test_counts_past_a_thousand_are_grouped_as_the_catalog_groups_them(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """A vault with 1,203 broken records: the severity buttons, the code list and the status
    bar write their counts as the catalog tree does ("1,203"), not "1203" beside "1,203"
    (seen on the million-record vault: "4166 unrecognized · 5,001 errors")."""
    for n in range(1203):
        kit.write(f"private/notes/bad-{n:04d}.md", "---\ntitle: [oops\nformat: knowledge-record-v1\n---\n")
    window = open_window(kit.root)
    pane = window.diagnostics
    qtbot.waitUntil(lambda: pane.model.severity_counts()[Severity.ERROR] == 1203, timeout=20_000)
    wait_idle(qtbot, window)
    assert [b.text() for b in pane.toggles.values()] == ["1,203 Errors", "0 Warnings", "0 Info"]
    assert pane.code_box.itemText(pane.code_box.findData("yaml-syntax")).endswith("(1,203)")
    assert window.summary.text() == "0 records · 1,203 unrecognized · 1,203 errors · 0 warnings · 0 info"
