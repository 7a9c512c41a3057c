"""What the record pane shows around one record, read from the projections.

`show()` gives the record itself; this gives its surroundings: the records its
typed fields and evidence name (so the pane prints titles, not bare ids), its
evidence with verification, the ontology definition of its type (field
labels), and where its replacement and merge chains end (the lifecycle
banners). All of it comes from one reader connection in one worker call.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from knowledge_desktop.engine.limits import MAX_MERGE_HOPS
from knowledge_desktop.engine.ontology.compose import Activation
from knowledge_desktop.engine.store.projections import links as links_projection


def record_context(
    conn: sqlite3.Connection, path: str, ontologies: Mapping[str, Activation]
) -> dict[str, Any]:
    """`names` (id → title, path, kind, type, lifecycle), `evidence`, `definition`,
    and the ends of the `superseded_by` (`current`) and `merged_into` (`survivor`) chains."""
    found = conn.execute("SELECT scope, type FROM catalog WHERE path=?", (path,)).fetchone()
    scope, type_name = (found[0], found[1]) if found else (None, None)
    evidence = [
        {
            "index": idx,
            "source": source,
            "path": ev_path,
            "url": url,
            "lines": [start, end] if start is not None else None,
            "status": status,
            "reason": reason,
        }
        for idx, source, ev_path, url, start, end, status, reason in links_projection.evidence_of(conn, path)
    ]
    ids: set[str] = {e["source"] for e in evidence if e["source"]}
    for _field, target, resolved, _status in links_projection.refs_from(conn, path):
        ids.update(i for i in (target, resolved) if i)
    names = {i: info for i in sorted(ids) if (info := record_named(conn, i, scope)) is not None}
    definition: dict[str, Any] | None = None
    activation = ontologies.get(scope) if scope else None
    if activation is not None and activation.ontology is not None and type_name:
        found_def = activation.ontology.definitions.get(type_name)
        if found_def is not None:
            definition = found_def.model_dump(mode="json", exclude_defaults=True)
            definition["kind"] = found_def.kind
    return {
        "names": names,
        "evidence": evidence,
        "definition": definition,
        "current": chain_end(conn, path, "superseded_by"),
        "survivor": chain_end(conn, path, "merged_into"),
    }


def record_named(conn: sqlite3.Connection, record_id: str, scope: str | None) -> dict[str, Any] | None:
    """The catalog row an id names, preferring the same partition; `shared` when several."""
    rows = conn.execute(
        "SELECT id, path, title, kind, type, lifecycle, valid, scope FROM catalog WHERE id=?"
        " ORDER BY scope IS NOT ?, path",
        (record_id, scope),
    ).fetchall()
    if not rows:
        return None
    same = [r for r in rows if r[7] == rows[0][7]]
    rid, rpath, title, kind, type_, lifecycle, valid, _ = rows[0]
    return {
        "id": rid,
        "path": rpath,
        "title": title,
        "kind": kind,
        "type": type_,
        "lifecycle": lifecycle,
        "valid": bool(valid),
        "shared": len(same) > 1,
    }


def chain_end(conn: sqlite3.Connection, path: str, field: str) -> dict[str, Any] | None:
    """Follow `field` (superseded_by or merged_into) from a file, `MAX_MERGE_HOPS` at most.

    Returns the last record reached with `hops` and `complete` (False when
    the chain dead-ends, loops or runs past the bound); None when the file
    does not have the field at all.
    """
    seen = {path}
    reached: dict[str, Any] | None = None
    current = path
    for hop in range(1, MAX_MERGE_HOPS + 1):
        ref = conn.execute(
            "SELECT target_id, resolved_id, scope FROM refs WHERE src_path=? AND field=?",
            (current, field),
        ).fetchone()
        if ref is None:
            return None if reached is None else {**reached, "hops": hop - 1, "complete": True}
        info = record_named(conn, ref[1] or ref[0], ref[2])
        if info is None or info["path"] in seen:
            fallback = reached or {"id": ref[0], "path": None, "title": None}
            return {**fallback, "hops": hop, "complete": False}
        reached = info
        seen.add(info["path"])
        current = info["path"]
    return None if reached is None else {**reached, "hops": MAX_MERGE_HOPS, "complete": False}


def record_types(conn: sqlite3.Connection) -> list[str]:
    """Every record type in the vault (page types, claim kinds, relationship labels), sorted."""
    return [
        t
        for (t,) in conn.execute(
            "SELECT DISTINCT type FROM catalog WHERE status='record' AND type IS NOT NULL ORDER BY type"
        )
    ]
