"""Impact: the records that depend, directly or transitively, on some records.

Spec (corrections-and-merges, Impact and visibility): a receipt lists the
dependents of what changed through dependencies, entities, owner and
relationship endpoints — unresolved impacts to inspect, never repairs. The
typed references projection (`refs`, merges already followed to the
survivor) holds exactly those edges, so this is a breadth-first walk over
it, a batch of ids per query on its `refs_target` index. Withdrawn
dependents are left out: nothing more can happen to them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

IMPACT_FIELDS = ("dependencies", "entities", "owner", "from", "to")
BATCH = 500


def impact(
    conn: sqlite3.Connection, record_ids: Iterable[str], scope: str | None = None
) -> list[dict[str, Any]]:
    """Every record depending on `record_ids` (in `scope`, else in the partition each is in),
    nearest first; each once, with the field and id it was reached through."""
    start = sorted(set(record_ids))
    frontier = _scoped(conn, start, scope)
    seen = {(s, i) for s, i in frontier} | {(s, i) for i in start for s in _scopes_of(frontier)}
    found: list[dict[str, Any]] = []
    depth = 0
    while frontier:
        depth += 1
        reached: list[tuple[str, str]] = []
        by_scope: dict[str, list[str]] = {}
        for s, i in frontier:
            by_scope.setdefault(s, []).append(i)
        level: list[dict[str, Any]] = []
        for s, ids in sorted(by_scope.items()):
            for offset in range(0, len(ids), BATCH):
                chunk = ids[offset : offset + BATCH]
                rows = conn.execute(
                    "SELECT c.id, c.kind, c.type, c.title, c.path, c.lifecycle, r.field, r.resolved_id"
                    " FROM refs r JOIN catalog c ON c.path = r.src_path"
                    f" WHERE r.scope = ? AND r.resolved_id IN ({','.join('?' * len(chunk))})"
                    f" AND r.field IN ({','.join('?' * len(IMPACT_FIELDS))})"
                    " AND r.status = 'resolved' AND c.status = 'record' AND c.id IS NOT NULL"
                    " AND c.lifecycle != 'withdrawn'"
                    " ORDER BY c.title COLLATE NOCASE, c.path, r.field",
                    (s, *chunk, *IMPACT_FIELDS),
                )
                for rid, kind, type_, title, path, lifecycle, field, through in rows:
                    if (s, rid) in seen:
                        continue
                    seen.add((s, rid))
                    reached.append((s, rid))
                    level.append(
                        {
                            "id": rid,
                            "kind": kind,
                            "type": type_,
                            "title": title,
                            "path": path,
                            "lifecycle": lifecycle,
                            "via": field,
                            "through": through,
                            "depth": depth,
                        }
                    )
        found.extend(level)
        frontier = reached
    return found


def _scoped(conn: sqlite3.Connection, ids: list[str], scope: str | None) -> list[tuple[str, str]]:
    if scope is not None:
        return [(scope, i) for i in ids]
    out: set[tuple[str, str]] = set()
    for offset in range(0, len(ids), BATCH):
        chunk = ids[offset : offset + BATCH]
        rows = conn.execute(
            f"SELECT DISTINCT scope, id FROM catalog WHERE id IN ({','.join('?' * len(chunk))})"
            " AND scope IS NOT NULL",
            chunk,
        )
        out.update((s, i) for s, i in rows)
    return sorted(out)


def _scopes_of(pairs: list[tuple[str, str]]) -> set[str]:
    return {s for s, _ in pairs}
