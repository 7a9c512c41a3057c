"""Links, typed references and evidence: what each record points at, and backlinks.

The indexer rewrites a file's rows; the read view (`links_from`, `refs_from`,
`evidence_of`) is how `query/` reads what one file points at.

Rows are generated as SQLite consumes them: a full scan of 100,000 records
writes over half a million link rows, and as lists they would take hundreds of
megabytes at the peak of the scan.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from knowledge_desktop.engine.changes import LINKS
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, delete_rows, rewrite

flag: Flag = LINKS
OWNED = (Owned("links", "src_path"), Owned("refs", "src_path"), Owned("evidence", "src_path"))


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    delete_rows(tx, "links", "src_path", paths)
    delete_rows(tx, "refs", "src_path", paths)
    delete_rows(tx, "evidence", "src_path", paths)
    tx.executemany(
        "INSERT INTO links(src_path, scope, line, link_kind, target_text, label, status,"
        " target_id, target_path) VALUES (?,?,?,?,?,?,?,?,?)",
        _link_rows(graph, paths),
    )
    tx.executemany("INSERT INTO evidence VALUES (?,?,?,?,?,?,?,?,?)", _evidence_rows(graph, paths))
    tx.executemany(
        "INSERT INTO refs(src_path, scope, field, target_id, resolved_id, status) VALUES (?,?,?,?,?,?)",
        _ref_rows(graph, paths),
    )


def _derived(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[str, RecordNode, Derived]]:
    for path in paths:
        node = graph.nodes.get(path)
        derived = graph.derived.get(path)
        if node is not None and derived is not None:
            yield path, node, derived


def _link_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    """Each link's row, read straight from the node's flattened links and the derived
    flattened results (`Derived.resolved_links` without an object per link: a cold scan
    of 10k records writes 55,000 of them)."""
    for path, node, derived in _derived(graph, paths):
        results = derived.link_results
        if not results:
            continue
        parts = node.link_parts
        scope, body_line = node.scope, node.body_line
        for i in range(min(len(results) // 3, len(parts) // 4)):
            kind, target, label, line = parts[4 * i : 4 * i + 4]
            status, target_id, target_path = results[3 * i : 3 * i + 3]
            yield (
                path,
                scope,
                body_line + line,  # type: ignore[operator]
                kind,
                target,
                label,
                status or "",
                target_id,
                target_path,
            )


def _evidence_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    for path, _node, derived in _derived(graph, paths):
        for item in derived.evidence:
            yield (
                path,
                item.index,
                item.source,
                item.path,
                item.url,
                item.lines[0] if item.lines else None,
                item.lines[1] if item.lines else None,
                item.status,
                item.reason,
            )


def _ref_rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    for path, node, derived in _derived(graph, paths):
        for ref in derived.refs:
            yield (path, node.scope, ref.field, ref.target_id, ref.resolved_id, ref.status)


# -- read view -----------------------------------------------------------------------
def links_from(conn: sqlite3.Connection, path: str) -> list[tuple[Any, ...]]:
    """(kind, target text, label, line, status, target id, target path) of a file's body links."""
    return conn.execute(
        "SELECT link_kind, target_text, label, line, status, target_id, target_path"
        " FROM links WHERE src_path=? ORDER BY line",
        (path,),
    ).fetchall()


def note_backlinks(conn: sqlite3.Connection, path: str, *, only_notes: bool) -> list[dict[str, Any]]:
    """Links that reach the file at `path` by path: every link to a note, or, to a record,
    those its id does not find — notes' links and the links of other partitions' records,
    which carry no id (`graph/note_links.py`, `beyond_partition`); a record's links within
    its partition are found by id. An ambiguous link counts for the file it was taken to."""
    notes = BY_PATH_ONLY if only_notes else ""
    found = {
        (src, line, "embed" if kind in _EMBEDS else "link"): (sid, title)
        for src, line, title, sid, kind in conn.execute(
            "SELECT l.src_path, l.line, c.title, c.id, l.link_kind FROM links l JOIN catalog c"
            " ON c.path=l.src_path WHERE l.target_path=? AND l.src_path<>? AND l.status IN"
            f" ('resolved', 'ambiguous'){notes} ORDER BY c.title COLLATE NOCASE, l.src_path, l.line",
            (path, path),
        )
    }  # several links of one line to one file: the line once
    return [
        {"id": sid, "path": src, "title": title, "line": line, "via": via}
        for (src, line, via), (sid, title) in found.items()
    ]


_EMBEDS = ("embed", "image")
BY_PATH_ONLY = " AND (c.status='note' OR l.target_id IS NULL)"
"""The links to a record found by path alone: a note's, or one from beyond its partition
(a record's link within its partition names the record's id)."""


def refs_from(conn: sqlite3.Connection, path: str) -> list[tuple[Any, ...]]:
    """(field, target id, resolved id, status) of a file's typed references."""
    return conn.execute(
        "SELECT field, target_id, resolved_id, status FROM refs WHERE src_path=?", (path,)
    ).fetchall()


def evidence_of(conn: sqlite3.Connection, path: str, *, verified_only: bool = False) -> list[tuple[Any, ...]]:
    """(index, source, path, url, first line, last line, status, reason) of a file's evidence."""
    only = " AND status='verified'" if verified_only else ""
    return conn.execute(
        "SELECT idx, source, path, url, line_start, line_end, status, reason"
        f" FROM evidence WHERE src_path=?{only} ORDER BY idx",
        (path,),
    ).fetchall()
