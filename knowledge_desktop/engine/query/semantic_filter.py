"""Which of a partition's embedded files pass a search's filters, as one mask over the
files held in memory (`semantic_held`), so the first stage of a search by meaning picks
its candidates among passing files without asking SQLite about each (issue 27).

Asking the rows table about the 2,000 nearest files, 500 at a time, was the largest
cost left in a search by meaning at 10k once the vectors were in memory (20 ms of 38
on the loaded machine, bench/RESULTS.md). The filters are grep's (`filter_parts`), so
both halves of a hybrid search keep the same records; they are applied the way grep's
ranked path applies them (`grep_ranking`): every filter but the window lists its rows
(kept while nothing is committed, `kept`: an agent repeats its filters), and the one
condition holding the time of the search, eligibility and the validity window, can
only fail for the rows in the exceptions index, read fresh each search.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
from numpy.typing import NDArray

from knowledge_desktop.engine.query import kept
from knowledge_desktop.engine.query.grep_query import GrepQuery, filter_parts
from knowledge_desktop.engine.query.inventory import now_text
from knowledge_desktop.engine.query.semantic_held import STALE, Held
from knowledge_desktop.engine.store.projections import keyword

Mask = NDArray[np.bool_]


def passing(conn: sqlite3.Connection, scope: str, held: Held, q: GrepQuery) -> Mask:
    """Per file of `held` (a partition's), whether its current record passes `q`'s
    filters: eligibility, the validity window at `q.at` (now by default), kind, type,
    tag, dates and any `within` condition. A file with no current row fails."""
    rows = keyword.tables(scope)[1]
    parts = filter_parts(q, "r", q.at or now_text(), current=True, tags=keyword.tags_table(scope))
    rowids = _rowids(conn, rows, held)
    ok = rowids >= 0
    live = parts[0]
    exceptions = keyword.EXCEPTIONS.replace("eligible", "r.eligible").replace("active_", "r.active_")
    failing = _listing(
        conn,
        f"SELECT r.rowid FROM {rows} r INDEXED BY {keyword.exceptions_index(scope)}"
        f" WHERE ({exceptions}) AND NOT coalesce(({live.sql}), 0)",
        live.values,
    )
    ok &= ~_member(rowids, failing)
    for part in parts[1:]:
        listing = part.listing or f"SELECT r.rowid FROM {rows} r WHERE {part.sql}"
        key = ("semantic-filter", scope, listing, json.dumps(part.values), held.layout)

        def read(listing: str = listing, values: list[object] = part.values) -> Mask:
            mask = _member(rowids, _listing(conn, listing, values))
            mask.setflags(write=False)
            return mask

        ok &= read() if held.generation == STALE else kept.kept(conn, key, read, _nbytes)
    return ok


def _nbytes(array: NDArray[np.generic]) -> int:
    return int(array.nbytes)


def _rowids(conn: sqlite3.Connection, rows: str, held: Held) -> NDArray[np.int64]:
    """Each held file's rowid in the rows table (-1 when it has none, or when the row is
    an edited file's old one), kept while nothing is committed (and under the held rows'
    layout: the key holds no reference to them, so a kept entry never keeps old vectors
    alive)."""

    def read() -> NDArray[np.int64]:
        place = held.where
        out = np.full(len(held.paths), -1, dtype=np.int64)
        for path, rowid in conn.execute(f"SELECT path, rowid FROM {rows}"):
            i = place.get(path)
            if i is not None:
                out[i] = rowid
        out.setflags(write=False)
        return out

    if held.generation == STALE:
        return read()
    return kept.kept(conn, ("semantic-rowids", rows, held.layout), read, _nbytes)


def _listing(conn: sqlite3.Connection, sql: str, values: list[object]) -> NDArray[np.int64]:
    """The rowids a query lists, sorted, read as one JSON array (faster than row by row)."""
    (listed,) = conn.execute(f"SELECT json_group_array(rowid) FROM ({sql})", values).fetchone()
    return np.sort(np.array(json.loads(listed), dtype=np.int64))


def _member(rowids: NDArray[np.int64], listed: NDArray[np.int64]) -> Mask:
    """Per entry of `rowids`, whether the sorted `listed` holds it."""
    if not len(listed):
        return np.zeros(len(rowids), dtype=bool)
    at = np.minimum(np.searchsorted(listed, rowids), len(listed) - 1)
    found: Mask = listed[at] == rowids
    return found
