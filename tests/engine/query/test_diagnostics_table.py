"""The Diagnostics pane's SQL (issue 26 §3): pages read on from where the last one ended
give the same rows as pages by offset and as one full sort, identical findings and the
vault's own (extra) findings included; the default order is read from its index."""

from __future__ import annotations

import random
import sqlite3

import pytest

from knowledge_desktop.engine.diagnostics import Diagnostic, make
from knowledge_desktop.engine.query.diagnostics_table import SORTS, DiagnosticsTable, DiagnosticsView
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL


def findings(rng: random.Random, n: int) -> list[Diagnostic]:
    codes = ["yaml-syntax", "link-missing", "field-undeclared", "plain-note"]
    out = [
        make(
            rng.choice(codes),
            f"{rng.choice(['a', 'B', 'é'])}/f{rng.randrange(30)}.md",
            f"{rng.choice(['Ada', 'ada', 'Zoë'])} {rng.randrange(4)}",
            line=rng.choice([None, 1, 9]),
            record_id=rng.choice([None, "pg_a", "PG_b"]),
        )
        for _ in range(n)
    ]
    return out + out[:50]  # identical findings, as a file can repeat one


def table(items: list[Diagnostic], extra: list[Diagnostic]) -> tuple[DiagnosticsTable, sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(PROJECTIONS_SQL)
    conn.executemany(
        "INSERT INTO diagnostics (path, code, severity, line, record_id, message) VALUES (?, ?, ?, ?, ?, ?)",
        [(d.path, d.code, d.severity.value, d.line, d.record_id, d.message) for d in items],
    )
    return DiagnosticsTable(lambda: conn, extra), conn


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("descending", [False, True])
def test_pages_after_the_last_row_match_pages_by_offset(sort: str, descending: bool) -> None:
    rng = random.Random(sort)
    items = findings(rng, 700)
    extra = findings(rng, 20)
    found, _ = table(items, extra)
    for view in (DiagnosticsView(sort=sort, descending=descending), DiagnosticsView.of("ADA 1", sort=sort)):
        for notes in (False, True):
            whole = found.page(view, notes=notes, offset=0, limit=5000).rows
            expected = sum(
                1
                for d in items + extra
                if (d.code == "plain-note") == notes
                and all(
                    w in f"{d.code}\n{d.path}\n{d.record_id or ''}\n{d.message}".casefold()
                    for w in view.words
                )
            )
            assert len(whole) == expected
            keyset: list[Diagnostic] = []
            by_offset: list[Diagnostic] = []
            page = found.page(view, notes=notes, offset=0, limit=37)
            while page.rows:
                keyset += page.rows
                page = found.page(view, notes=notes, offset=0, limit=37, after=page.last)
            while len(by_offset) < len(whole):
                by_offset += found.page(view, notes=notes, offset=len(by_offset), limit=37).rows
            assert keyset == by_offset == whole
