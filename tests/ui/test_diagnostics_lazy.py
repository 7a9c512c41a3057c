"""The Diagnostics pane over many findings (issue 26 §3): the model holds only the pages
the table has read, filters and sorts are SQL that agree with sorting the whole list in
Python, and a reload keeps the selected problem however far down it is.

50,000 findings are written straight into a `diagnostics` table (no vault to scan): the
pane reads them through `DiagnosticsTable`, as it reads a vault's projection."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.diagnostics import SEVERITY_RANK, Diagnostic, make
from knowledge_desktop.engine.query.diagnostics_table import DiagnosticsTable
from knowledge_desktop.ui.models.diagnostics_model import (
    CODE,
    LINE,
    MESSAGE,
    PAGE,
    PATH,
    RECORD,
    SEVERITY,
    DiagnosticsModel,
)
from knowledge_desktop.ui.panes.diagnostics import DiagnosticsPane
from knowledge_desktop.ui.tasks import Runner

COUNT = 50_000
CODES = ["yaml-syntax", "link-missing", "field-undeclared", "misfiled", "plain-note"]
WORDS = ["Ada", "émile", "ZOË", "notes", "Link", "kickoff", "Straße"]


def finding(rng: random.Random, n: int) -> Diagnostic:
    code = rng.choice(CODES)
    words = " ".join(rng.sample(WORDS, 2))
    return make(
        code,
        f"{rng.choice(['private', 'Shared', 'notes'])}/f{rng.randrange(4000):04}.md",
        f"{words} problem {n % 97}",
        line=rng.choice([None, 1, 7, 30]) if code != "plain-note" else None,
        record_id=rng.choice([None, "pg_a", "PG_b", f"cl_{n % 50}"]) if code != "plain-note" else None,
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Diagnostic]]:
    rng = random.Random(26)
    items = [finding(rng, n) for n in range(COUNT)]
    path = tmp_path_factory.mktemp("lazy") / "state.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE diagnostics (path TEXT NOT NULL, code TEXT NOT NULL, severity TEXT NOT NULL,"
            " line INTEGER, record_id TEXT, message TEXT NOT NULL)"
        )
        conn.executemany(
            "INSERT INTO diagnostics VALUES (?, ?, ?, ?, ?, ?)",
            [(d.path, d.code, d.severity.value, d.line, d.record_id, d.message) for d in items],
        )
    return path, items


def table_of(path: Path) -> DiagnosticsTable:
    return DiagnosticsTable(lambda: sqlite3.connect(path))


def expected(items: list[Diagnostic], column: int, descending: bool, text: str = "") -> list[Diagnostic]:
    """The whole list filtered and sorted in Python, as the pane did before it read SQL."""
    words = text.casefold().split()
    primary: dict[int, Any] = {
        SEVERITY: lambda d: SEVERITY_RANK[d.severity],
        CODE: lambda d: d.code,
        PATH: lambda d: d.path.casefold(),
        LINE: lambda d: -1 if d.line is None else d.line,
        RECORD: lambda d: (d.record_id or "").casefold(),
        MESSAGE: lambda d: d.message.casefold(),
    }
    hay = {id(d): "\n".join((d.code, d.path, d.record_id or "", d.message)).casefold() for d in items}
    kept = [d for d in items if d.code != "plain-note" and all(w in hay[id(d)] for w in words)]
    return sorted(
        kept,
        key=lambda d: (
            primary[column](d),
            (SEVERITY_RANK[d.severity], d.path, d.line or 0, d.code, d.message, d.record_id or ""),
        ),
        reverse=descending,
    )


def test_the_model_holds_only_the_pages_read(qtbot: QtBot, store: tuple[Path, list[Diagnostic]]) -> None:
    path, items = store
    model = DiagnosticsModel()
    model.set_table(lambda: table_of(path))
    notes = sum(d.code == "plain-note" for d in items)
    assert model.shown_count == COUNT
    assert model.group_count == notes
    assert model.row_count_all() == COUNT
    assert model.code_counts() == {c: sum(d.code == c for d in items) for c in sorted(CODES)}
    assert (model.rowCount(), model.fetched) == (PAGE, PAGE)
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert (model.rowCount(), model.fetched) == (3 * PAGE, 3 * PAGE)
    assert model.shown() == expected(items, SEVERITY, False)[: 3 * PAGE]
    model.toggle_group()  # unfolding the notes reads none while problems are left to read
    assert model.fetched == 3 * PAGE
    assert not model.is_group(model.rowCount() - 1)


@pytest.mark.parametrize(
    ("column", "descending", "text"),
    [
        (SEVERITY, False, ""),
        (PATH, True, "émile"),
        (MESSAGE, False, "zoë ada"),
        (RECORD, True, "pg_"),
        (LINE, False, "STRASSE"),  # casefold: ß matches ss
        (CODE, True, "shared/F00"),
    ],
)
def test_filters_and_sorts_in_sql_agree_with_the_whole_list(
    qtbot: QtBot, store: tuple[Path, list[Diagnostic]], column: int, descending: bool, text: str
) -> None:
    path, items = store
    model = DiagnosticsModel()
    model.sort(column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
    model.set_filter(text=text)
    model.set_table(lambda: table_of(path))
    want = expected(items, column, descending, text)
    assert model.shown_count - model.group_count == len(want)
    assert len(want) > 0
    assert problems(model) == want[:PAGE]
    while model.canFetchMore(QModelIndex()) and model.rowCount() < 3 * PAGE:
        model.fetchMore(QModelIndex())
    assert problems(model)[: 3 * PAGE] == want[: 3 * PAGE]


def problems(model: DiagnosticsModel) -> list[Diagnostic]:
    return [model.diagnostic(r) for r in range(model.rowCount()) if not model.is_group(r)]


def wait_rows(qtbot: QtBot, pane: DiagnosticsPane) -> None:
    qtbot.waitUntil(lambda: not pane.model.waiting, timeout=30_000)


class FakeVault:
    """What the pane asks of a vault here: its findings' table."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def diagnostics_table(self) -> DiagnosticsTable:
        return table_of(self.path)


def test_a_reload_keeps_a_selection_far_down_and_reads_on_the_worker(
    qtbot: QtBot, store: tuple[Path, list[Diagnostic]], tmp_path: Path
) -> None:
    path = tmp_path / "state.sqlite"
    path.write_bytes(store[0].read_bytes())
    pane = DiagnosticsPane(Runner())
    qtbot.addWidget(pane)
    pane.runner.setParent(pane)
    pane.vault = FakeVault(path)  # type: ignore[assignment]
    pane.resize(900, 400)
    pane.refresh()
    assert pane.model.rowCount() == 0  # nothing read on the UI thread: the worker answers
    wait_rows(qtbot, pane)
    for _ in range(2):
        pane.model.fetchMore(QModelIndex())
        wait_rows(qtbot, pane)
    assert pane.model.fetched == 3 * PAGE
    pane.select_row(2 * PAGE + 50)
    chosen = pane.selected_diagnostic()
    assert chosen is not None
    # Findings before it fixed, others added: the rows come and go around the selection.
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM diagnostics WHERE rowid IN (SELECT rowid FROM diagnostics LIMIT 3000)")
        conn.executemany(
            "INSERT INTO diagnostics VALUES (?, ?, ?, ?, ?, ?)",
            [("private/new.md", "yaml-syntax", "error", n, None, f"new {n}") for n in range(20)],
        )
    resets: list[bool] = []
    pane.model.modelReset.connect(lambda: resets.append(True))
    pane.refresh()
    wait_rows(qtbot, pane)
    assert pane.selected_diagnostic() == chosen
    assert pane.model.shown_count == COUNT - 3000 + 20
    assert pane.model.fetched < 4 * PAGE
    # A sort that takes the selection far down reads as far as it, and keeps it.
    pane.table.sortByColumn(MESSAGE, Qt.SortOrder.DescendingOrder)
    wait_rows(qtbot, pane)
    assert pane.selected_diagnostic() == chosen
    assert pane.model.fetched < COUNT // 2
    pane.filter_edit.setText(chosen.message)
    wait_rows(qtbot, pane)
    assert pane.selected_diagnostic() == chosen
    assert pane.shown_label.text().endswith(f"of {COUNT - 3000 + 20:,} shown")
    assert resets == []


def test_scrolling_to_the_end_reads_the_next_page(qtbot: QtBot, store: tuple[Path, list[Diagnostic]]) -> None:
    pane = DiagnosticsPane(Runner())
    qtbot.addWidget(pane)
    pane.runner.setParent(pane)
    pane.vault = FakeVault(store[0])  # type: ignore[assignment]
    pane.resize(900, 400)
    pane.show()
    pane.refresh()
    wait_rows(qtbot, pane)
    assert pane.model.rowCount() == PAGE
    pane.table.scrollToBottom()  # the view asks the model for more (fetchMore), on the worker
    qtbot.waitUntil(lambda: pane.model.rowCount() >= 2 * PAGE, timeout=30_000)
    wait_rows(qtbot, pane)
    assert pane.model.fetched < 10 * PAGE
