"""Temporal projection: each record's validated dates and its explicit associations.

Dates come only from structured fields (spec: Dates and Chronicle): a claim's
occurred_at and due_at, a dated page's fields.occurred_at, and every
record's recorded_at and updated_at. Prose dates create nothing. A note
(issue 25) is dated by its daily-note name or frontmatter `date`/`created`:
one occurred_at row, which only the CLI's and the window's timelines show. Associations
are the explicit ones — entities, owner, relationship endpoints and evidence
sources, resolved through merges — never co-mentions. The read view
(`occurrence_of`) gives `query/` one record's stored occurrence.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache

from knowledge_desktop.engine.changes import DATES
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.records import dates
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, delete_rows, rewrite
from knowledge_desktop.engine.store.projections.keyword import stamp

ASSOCIATING_FIELDS = ("entities", "owner", "from", "to")


flag: Flag = DATES
OWNED = (Owned("temporal_v1", "path"), Owned("associations_v1", "path"))


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    """Rewrite the rows of paths, generated as SQLite takes them (no list of a full scan's rows)."""
    delete_rows(tx, "temporal_v1", "path", paths)
    delete_rows(tx, "associations_v1", "path", paths)
    tx.executemany("INSERT INTO temporal_v1 VALUES (?,?,?,?,?,?,?)", _dated_rows(graph, paths))
    tx.executemany("INSERT INTO temporal_v1 VALUES (?,?,?,?,?,?,?)", _note_rows(graph, paths))
    tx.executemany("INSERT INTO associations_v1 VALUES (?,?,?,?)", _association_rows(graph, paths))


def _records(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[str, RecordNode, Derived]]:
    for path in paths:
        node = graph.nodes.get(path)
        derived = graph.derived.get(path)
        if node is not None and derived is not None and node.is_record:
            yield path, node, derived


def _dated_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    for path, node, _derived in _records(graph, paths):
        kept = node.value
        values = {"recorded_at": kept("recorded_at"), "updated_at": kept("updated_at")}
        if node.kind == "claim":
            values["occurred_at"] = kept("occurred_at")
            values["due_at"] = kept("due_at")
        elif node.kind == "page" and isinstance(kept("fields"), dict):
            values["occurred_at"] = kept("fields").get("occurred_at")
        for name, value in values.items():
            if not isinstance(value, str):
                continue
            found = span(value)
            if found is not None:
                yield (path, node.scope, name, value, *found)


def _note_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    """A dated note's one row (issue 25 §3): its date — a daily note's or Logseq journal's
    name, or frontmatter `date`/`created` (`records/notes.py`) — as when it occurred."""
    for path in paths:
        node = graph.nodes.get(path)
        note = node.note if node is not None and node.is_note else None
        if note is None or note.date is None:
            continue
        found = span(note.date)
        if found is not None:
            yield (path, node.scope if node else None, "occurred_at", note.date, *found)


@lru_cache(maxsize=1024)
def span(value: str) -> tuple[str, str, int] | None:
    """A date value's (UTC start, UTC end, whether a whole date) as the rows store them;
    None when it is no date. Memoised: records share days, and a cold scan of 10k records
    spent a tenth of its writing CPU formatting the same instants (`fast_stamp`)."""
    try:
        instant = dates.parse_date_or_timestamp(value)
    except dates.DateFormatError:
        return None
    return fast_stamp(instant.start), fast_stamp(instant.end), int(instant.date_only)


def fast_stamp(moment: datetime) -> str:
    """`keyword.stamp` of a UTC instant, through `isoformat` (several times quicker than
    `strftime`); a year before 1000, which `strftime` writes unpadded, goes through it."""
    if moment.year < 1000 or moment.tzinfo is not UTC:
        return stamp(moment)
    return moment.isoformat(timespec="microseconds")[:-6] + "Z"  # (without its "+00:00")


def _association_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    for path, node, derived in _records(graph, paths):
        pairs = {
            (ref.resolved_id, ref.field)
            for ref in derived.refs
            if ref.field in ASSOCIATING_FIELDS and ref.resolved_id and ref.status == "resolved"
        }
        source_event = node.kind == "claim" and node.value("source_event") is True
        for item in derived.evidence:
            if item.source and item.status == "verified":
                final, _, status = graph.follow_merges(node.scope or "", item.source, set())
                if final and status == "resolved":
                    pairs.add((final, "source"))
                    if source_event:
                        pairs.add((final, "source_event"))
        for entity, via in sorted(pairs):
            yield (path, node.scope, entity, via)


# -- read view -----------------------------------------------------------------------
def occurrence_of(conn: sqlite3.Connection, path: str) -> tuple[str, str, str] | None:
    """(value as written, UTC start, UTC end) of a record's occurred_at, None without one."""
    found = conn.execute(
        "SELECT value, start, end FROM temporal_v1 WHERE path = ? AND field = 'occurred_at'", (path,)
    ).fetchone()
    return (found[0], found[1], found[2]) if found is not None else None
