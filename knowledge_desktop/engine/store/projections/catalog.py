"""Catalog projection: one row per candidate file with what the panes list."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from knowledge_desktop.engine.changes import CATALOG
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.diagnostics import Diagnostic, Severity
from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, delete_rows, rewrite

COLUMNS = (
    "path",
    "scope",
    "status",
    "id",
    "kind",
    "type",
    "title",
    "revision",
    "lifecycle",
    "valid",
    "duplicate",
    "deps_ok",
    "eligible",
    "active_from",
    "active_until",
    "recorded_at",
    "updated_at",
    "aliases",
    "tags",
    "sha256",
    "size",
    "errors",
    "warnings",
)


flag: Flag = CATALOG
OWNED = (
    Owned("catalog", "path", ",".join(c for c in COLUMNS if c not in ("sha256", "size"))),
    Owned("catalog_names", "path"),
)
"""A file's bytes and size are no change a pane shows: only the other columns count."""


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    """Rewrite the rows of paths; rows are generated as SQLite takes them (a full
    scan writes one per file, and a list of them all is a peak worth avoiding)."""
    present = [p for p in paths if p in graph.nodes and p in graph.derived]
    delete_rows(tx, "catalog_names", "path", paths)
    tx.executemany(
        "INSERT INTO catalog_names(path, name) VALUES (?, ?)",
        ((path, name) for path in present for name in set(graph.nodes[path].names)),
    )
    tx.executemany(
        "DELETE FROM catalog WHERE path=?",
        ((p,) for p in paths if p not in graph.nodes or p not in graph.derived),
    )
    marks = ",".join("?" * len(COLUMNS))
    tx.executemany(
        f"INSERT OR REPLACE INTO catalog({','.join(COLUMNS)}) VALUES ({marks})",
        (_row(path, graph.nodes[path], graph.derived[path]) for path in present),
    )


def _row(path: str, node: RecordNode, derived: Derived) -> tuple[object, ...]:
    if node.is_note:
        return _note_row(path, node, derived)
    value = node.value if node.is_record else _nothing
    diags = [*node.diagnostics, *derived.diagnostics]
    lifecycle = node.lifecycle if node.is_record else None
    base_ok = derived.base_ok(node.lifecycle) if node.is_record else False
    return (
        path,
        node.scope,
        "record" if node.is_record else "unrecognized",
        node.id,
        node.kind,
        derived.type,
        _text(value("title")),
        _revision(value("revision")),
        lifecycle,
        int(derived.valid),
        int(derived.duplicate),
        int(derived.deps_ok),
        int(base_ok and derived.deps_ok),
        derived.window[0],
        derived.window[1],
        _text(value("recorded_at")),
        _text(value("updated_at")),
        _json_list(_strings(value("aliases"))),
        _json_list(_strings(value("tags"))),
        node.sha256,
        node.size,
        *_counts(diags),
    )


def _note_row(path: str, node: RecordNode, derived: Derived) -> tuple[object, ...]:
    """A note's row: status and kind "note", no id or type, its own title, aliases and tags
    (NOTES-CONTRACT: the catalog seam the window and search read)."""
    note = node.note
    diags = [*node.diagnostics, *derived.diagnostics]
    return (
        path,
        node.scope,
        "note",
        None,
        "note",
        None,
        note.title if note is not None else None,
        None,
        None,
        int(derived.valid),
        0,
        1,
        0,
        None,
        None,
        None,
        None,
        _json_list(list(note.aliases) if note is not None else []),
        _json_list(list(note.tags) if note is not None else []),
        node.sha256,
        node.size,
        *_counts(diags),
    )


def _counts(diags: list[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings) among a file's diagnostics (most files have none)."""
    if not diags:
        return 0, 0
    return (
        sum(d.severity is Severity.ERROR for d in diags),
        sum(d.severity is Severity.WARNING for d in diags),
    )


def _json_list(items: list[str]) -> str:
    """The JSON of a list of strings; the empty one (most files' aliases) without `json`."""
    return json.dumps(items) if items else "[]"


def _nothing(key: str) -> None:
    """What a file that is not a record has for every frontmatter key."""


def _revision(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def row_dict(row: sqlite3.Row | tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(COLUMNS, row, strict=True))
    out["aliases"] = json.loads(out["aliases"])
    out["tags"] = json.loads(out["tags"])
    for flag in ("valid", "duplicate", "deps_ok", "eligible"):
        out[flag] = bool(out[flag])
    return out


def select_sql(where: str = "1", order: str = "path") -> str:
    return f"SELECT {','.join(COLUMNS)} FROM catalog WHERE {where} ORDER BY {order}"
