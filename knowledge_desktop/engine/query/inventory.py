"""Reading the catalog: the records inventory, one record with its links, counts.

Eligibility follows the spec (corrections-and-merges, Impact and visibility;
retrieval-and-dates, Query contract): by default only current records are
listed — valid, unique id, lifecycle active, every dependency available.
`lifecycle="superseded"` lists eligible superseded records, `"all"` both.
`include_ineligible=True` lists every record file whatever its state (the
catalog pane's view), with the flags that say why it would be hidden.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.fs.inside import real_path
from knowledge_desktop.engine.fs.read import read_file
from knowledge_desktop.engine.records.notes import NoteMeta
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES
from knowledge_desktop.engine.store.projections import catalog as catalog_projection
from knowledge_desktop.engine.store.projections import diagnostics as diagnostics_projection
from knowledge_desktop.engine.store.projections import links as links_projection

LIFECYCLE_FILTERS = ("active", "superseded", "all")


@dataclass(frozen=True, slots=True)
class RecordFilter:
    kind: str | None = None
    types: frozenset[str] | None = None
    tag: str | None = None
    lifecycle: str = "active"
    scope: str | None = None
    include_ineligible: bool = False
    at: str | None = None
    """The instant validity and expiry are judged at (comparable UTC text); None: now."""


def now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


CURRENT_AT = "(active_from IS NULL OR active_from <= ?) AND (active_until IS NULL OR active_until > ?)"


def where_clause(f: RecordFilter, *, duplicates: bool = False) -> tuple[str, list[object]]:
    """The SQL condition for `f`. With `duplicates`, records whose id another file
    shares stay in (a listing keeps them, marked; spec: records-and-ontology, the
    identity rules); exact lookup and retrieval leave them out."""
    if f.lifecycle not in LIFECYCLE_FILTERS:
        raise QueryError(f"lifecycle must be one of {', '.join(LIFECYCLE_FILTERS)}")
    parts = ["status='record'"]
    params: list[object] = []
    if f.include_ineligible:
        if f.lifecycle != "all":
            parts.append("lifecycle=?")
            params.append(f.lifecycle)
    else:
        base = "valid=1 AND deps_ok=1" if duplicates else "valid=1 AND duplicate=0 AND deps_ok=1"
        lifecycles = {"active": ("active",), "superseded": ("superseded",), "all": ("active", "superseded")}[
            f.lifecycle
        ]
        parts.append(f"{base} AND lifecycle IN ({','.join('?' * len(lifecycles))})")
        params.extend(lifecycles)
        at = f.at or now_text()
        parts.append(CURRENT_AT)
        params.extend([at, at])
    if f.kind:
        parts.append("kind=?")
        params.append(f.kind)
    if f.types is not None:
        parts.append(f"type IN ({','.join('?' * len(f.types))})")
        params.extend(sorted(f.types))
    if f.tag:
        parts.append("EXISTS (SELECT 1 FROM json_each(catalog.tags) WHERE value=?)")
        params.append(f.tag)
    if f.scope:
        parts.append("scope=?")
        params.append(f.scope)
    return " AND ".join(parts), params


def records(conn: sqlite3.Connection, f: RecordFilter, limit: int, offset: int) -> dict[str, Any]:
    if not 1 <= limit <= 1000:
        raise QueryError("limit must be between 1 and 1000")
    if offset < 0:
        raise QueryError("offset must not be negative")
    where, params = where_clause(f, duplicates=True)
    total = conn.execute(f"SELECT count(*) FROM catalog WHERE {where}", params).fetchone()[0]
    rows = conn.execute(
        catalog_projection.select_sql(where, "title COLLATE NOCASE, path") + " LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    items = [inventory_item(catalog_projection.row_dict(r)) for r in rows]
    next_offset = offset + len(items) if offset + len(items) < total else None
    return {"items": items, "total": total, "nextOffset": next_offset}


def inventory_item(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "kind": row["kind"],
        "type": row["type"],
        "title": row["title"],
        "path": row["path"],
        "revision": row["revision"],
        "lifecycle": row["lifecycle"],
        "scope": row["scope"],
        "valid": row["valid"],
        "duplicate": bool(row["duplicate"]),
    }


def find(conn: sqlite3.Connection, id_or_path: str) -> list[dict[str, Any]]:
    """Catalog rows for a vault-relative path, else for an id (any partition)."""
    rows: list[Any] = []
    for path in dict.fromkeys((id_or_path.strip("/"), id_or_path.replace("\\", "/").strip("/"))):
        # As given first: a name may hold a backslash (and a name that is not UTF-8 is
        # shown with `\\x` escapes); then with Windows separators turned round.
        rows = rows or conn.execute(catalog_projection.select_sql("path=?"), (path,)).fetchall()
    if not rows:
        rows = conn.execute(catalog_projection.select_sql("id=?"), (id_or_path,)).fetchall()
    return [catalog_projection.row_dict(r) for r in rows]


def show(conn: sqlite3.Connection, root: Path, row: dict[str, Any]) -> dict[str, Any]:
    """One record in full: frontmatter, body from disk, references, backlinks, diagnostics."""
    path = row["path"]
    node_json = conn.execute("SELECT node FROM files WHERE path=?", (path,)).fetchone()
    node = json.loads(node_json[0]) if node_json and node_json[0] else {}
    body = read_body(root, path, int(node.get("body_line", 1)))
    references = [
        {
            "kind": kind,
            "target": text,
            "label": label,
            "line": line,
            "status": status,
            "id": tid,
            "path": tpath,
            "embed": kind in EMBED_KINDS,
            "crossPartition": tpath is not None and _partition(tpath) != _partition(path),
        }
        for kind, text, label, line, status, tid, tpath in links_projection.links_from(conn, path)
    ]
    typed = [
        {"field": field, "target": target, "id": resolved, "status": status}
        for field, target, resolved, status in links_projection.refs_from(conn, path)
    ]
    backlinks: list[dict[str, Any]] = []
    if row["id"]:
        for src, line, title, src_id in conn.execute(
            "SELECT l.src_path, l.line, c.title, c.id FROM links l JOIN catalog c"
            " ON c.path=l.src_path WHERE l.scope=? AND l.target_id=? AND l.status='resolved'"
            " ORDER BY c.title COLLATE NOCASE, l.line",
            (row["scope"], row["id"]),
        ):
            backlinks.append({"id": src_id, "path": src, "title": title, "line": line, "via": "link"})
        for src, field, title, src_id, kind, type_ in conn.execute(
            "SELECT r.src_path, r.field, c.title, c.id, c.kind, c.type FROM refs r JOIN catalog c"
            " ON c.path=r.src_path WHERE r.scope=? AND r.resolved_id=? AND r.status='resolved'"
            " ORDER BY r.field, c.title COLLATE NOCASE",
            (row["scope"], row["id"]),
        ):
            backlinks.append(
                {
                    "id": src_id,
                    "path": src,
                    "title": title,
                    "line": None,
                    "via": field,
                    "kind": kind,
                    "type": type_,
                }
            )
    seen = {(b["path"], b["line"]) for b in backlinks}
    backlinks += [
        b
        for b in links_projection.note_backlinks(conn, path, only_notes=bool(row["id"]))
        if (b["path"], b["line"]) not in seen  # a note beside the record also links it by id
    ]
    diagnostics = [d.as_json() for d in diagnostics_projection.of_path(conn, path)]
    saved_by = None
    if row["id"] and row["revision"] is not None:
        # Journaled for this revision and these bytes: an outside edit that kept the
        # revision has no byline (spec: records-and-ontology, Displayed author).
        found = conn.execute(
            "SELECT agent_id FROM provenance WHERE scope=? AND record_id=? AND revision=?"
            " AND (sha256 IS NULL OR sha256=?)",
            (row["scope"], row["id"], row["revision"], row["sha256"]),
        ).fetchone()
        saved_by = found[0] if found else None
    result: dict[str, Any] = {
        **inventory_item(row),
        "status": row["status"],
        "eligible": row["eligible"],
        "duplicate": row["duplicate"],
        "dependenciesAvailable": row["deps_ok"],
        "hash": row["sha256"],
        "frontmatter": node.get("data") if row["status"] != "note" else node.get("data") or {},
        "body": body,
        "bodyLine": node.get("body_line", 1),
        "references": references,
        "typedReferences": typed,
        "backlinks": backlinks,
        "diagnostics": diagnostics,
    }
    if saved_by:
        result["writtenByAgentId"] = saved_by
    if row["status"] == "note":
        result.update(_note_fields(node.get("note")))
    return result


EMBED_KINDS = ("embed", "image")
"""Link kinds that show their target inline (a note's `![[…]]` and `![alt](…)`)."""


def _note_fields(stored: list[Any] | None) -> dict[str, Any]:
    """What a note's pane shows besides its body: aliases, tags, date, Logseq properties,
    and the headings and block ids its links may jump to."""
    meta = NoteMeta.from_list(stored) if stored else NoteMeta("")
    return {
        "aliases": list(meta.aliases),
        "tags": list(meta.tags),
        "date": meta.date,
        "properties": meta.properties,
        "headings": list(meta.headings),
        "blockIds": list(meta.block_ids),
    }


def read_body(root: Path, path: str, body_line: int) -> str | None:
    """The text of a listed file from `body_line` on; None when it cannot be read, is
    over the size the engine reads, or leads outside the vault (a listed link to
    outside is never read)."""
    try:
        data = read_file(real_path(root, path), MAX_FILE_BYTES).data
    except OSError:
        return None
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if body_line <= 1:
        return text
    parts = text.split("\n", body_line - 1)
    return parts[-1] if len(parts) == body_line else ""


def diagnostics(conn: sqlite3.Connection, extra: list[dg.Diagnostic]) -> list[dg.Diagnostic]:
    found = diagnostics_projection.every(conn)
    found.extend(extra)
    found.sort(key=dg.Diagnostic.sort_key)
    return found


def counts(conn: sqlite3.Connection, extra: list[dg.Diagnostic]) -> dict[str, Any]:
    """The status bar's counts, from the catalog's running counts (`catalog_counts`, kept by
    triggers) and, for the few rows current only within a window, the catalog itself."""
    now = now_text()
    groups = conn.execute(
        "SELECT scope, status, kind, valid, duplicate, eligible, windowed, n FROM catalog_counts WHERE n > 0"
    ).fetchall()
    total = records_ = valid = invalid = unrecognized = eligible = duplicates = notes = 0
    by_kind: dict[str, int] = {}
    scope_names: set[str] = set()
    for scope, status, kind, is_valid, duplicate, is_eligible, windowed, n in groups:
        total += n
        duplicates += n if duplicate else 0
        unrecognized += n if status == "unrecognized" else 0
        notes += n if status == "note" else 0
        eligible += n if is_eligible and not windowed else 0
        if scope:
            scope_names.add(scope)
        if status == "record":
            records_ += n
            valid += n if is_valid == 1 else 0
            invalid += n if is_valid == 0 else 0
            by_kind[kind] = by_kind.get(kind, 0) + n
    (windowed_now,) = conn.execute(
        "SELECT count(*) FROM catalog WHERE eligible"
        f" AND (active_from IS NOT NULL OR active_until IS NOT NULL) AND {CURRENT_AT}",
        (now, now),
    ).fetchone()
    eligible += windowed_now
    severity = {s.value: 0 for s in dg.Severity}
    severity.update(diagnostics_projection.by_severity(conn))
    for d in extra:
        severity[d.severity.value] += 1
    scopes = sorted(scope_names)
    return {
        "files": total,
        "records": records_,
        "valid": valid,
        "invalid": invalid,
        "unrecognized": unrecognized,
        "notes": notes,
        "eligible": eligible,
        "duplicateIds": duplicates,
        "byKind": by_kind,
        "diagnostics": severity,
        "scopes": scopes,
    }


def _partition(path: str) -> str | None:
    """The top-level folder a vault path lies in; None at the vault root."""
    return path.split("/", 1)[0] if "/" in path else None
