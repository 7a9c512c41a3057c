"""The Diagnostics pane at a million records (issue 26 §3), on synthetic findings.

Writes `--count` findings (110,000: what a 1M vault has, 11 per 100 records as the 10k
and 100k vaults have; mostly `link-missing` warnings, 5 % errors, 3 % notes) into a
`diagnostics` table in a temp folder, then measures what the pane costs: the memory
the model holds after the first read and after scrolling three pages (tracemalloc), and
how long each SQL read takes on the worker (best of `--repeat`): the first read of a
sort or filter (counts, totals, first page), a page 90,000 rows down (by OFFSET and read on
after the row before it), and finding how
far down a held row is.

    PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python bench/diagnostics_million.py
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QApplication

from knowledge_desktop.engine.diagnostics import make
from knowledge_desktop.engine.query.diagnostics_table import DiagnosticsTable, DiagnosticsView
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL
from knowledge_desktop.ui.models.diagnostics_model import DiagnosticsModel, read_snapshot


def best(repeat: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=110_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QApplication([])  # noqa: F841  (the model's icons need one)
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.sqlite"
        with sqlite3.connect(db) as conn:
            conn.executescript(PROJECTIONS_SQL)  # the diagnostics table and its indexes
            rows = []
            for n in range(args.count):
                roll = rng.random()
                code = "yaml-syntax" if roll < 0.05 else "plain-note" if roll < 0.08 else "link-missing"
                d = make(
                    code,
                    f"private/claims/claim-{rng.randrange(1_000_000):07}-about-something.md",
                    f"link [[Quarterly report {n % 5000} draft]] matches no record",
                    line=rng.randrange(1, 60) if code != "plain-note" else None,
                    record_id=f"cl_{n:07}" if code != "plain-note" else None,
                )
                rows.append((d.path, d.code, d.severity.value, d.line, d.record_id, d.message))
            conn.executemany("INSERT INTO diagnostics VALUES (?, ?, ?, ?, ?, ?)", rows)
            del rows
        table = DiagnosticsTable(lambda: sqlite3.connect(db))
        print(f"findings: {args.count:,}")

        tracemalloc.start()
        model = DiagnosticsModel()
        model.set_table(lambda: table)
        first = tracemalloc.get_traced_memory()[0]
        held_first = model.fetched
        for _ in range(3):
            model.fetchMore(QModelIndex())
        scrolled = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        print(f"model after the first read: {held_first} rows held, {first / 1e6:.2f} MB traced")
        print(f"after three more pages: {model.fetched} rows held, {scrolled / 1e6:.2f} MB traced")

        views = {
            "severity (default)": DiagnosticsView(),
            "path, descending": DiagnosticsView(sort="path", descending=True),
            "message": DiagnosticsView(sort="message"),
            "filter 'report 42'": DiagnosticsView.of("report 42"),
            "code yaml-syntax": DiagnosticsView(code="yaml-syntax"),
        }
        deep = args.count - 20_000
        for name, view in views.items():
            ms = best(args.repeat, lambda v=view: read_snapshot(1, table, v, False, 200, []))
            print(f"  first read, {name}: {ms:.0f} ms")
        for name, view in list(views.items())[:3]:
            before = table.page(view, notes=False, offset=deep - 1, limit=1).last
            ms = best(args.repeat, lambda v=view: table.page(v, notes=False, offset=deep, limit=200))
            ms2 = best(
                args.repeat,
                lambda v=view, b=before: table.page(v, notes=False, offset=0, limit=200, after=b),
            )
            print(f"  page of 200 at row {deep:,}, {name}: by offset {ms:.0f} ms, keyset {ms2:.0f} ms")
        (held,) = table.page(DiagnosticsView(sort="message"), notes=False, offset=deep, limit=1).rows
        ms = best(args.repeat, lambda h=held: table.position(DiagnosticsView(sort="message"), h))
        print(f"  position of a row {deep:,} down (message): {ms:.0f} ms")


if __name__ == "__main__":
    main()
