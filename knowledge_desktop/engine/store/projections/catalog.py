"""Catalog projection: one row per candidate file with what the panes list."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.derive import Catalog
from knowledge_desktop.engine.diagnostics import Severity

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


def index(tx: Any, catalog: Catalog, paths: Iterable[str]) -> None:
    rows: list[tuple[object, ...]] = []
    gone: list[tuple[object, ...]] = []
    names: dict[str, set[str]] = {}
    for path in paths:
        node = catalog.nodes.get(path)
        derived = catalog.derived.get(path)
        if node is None or derived is None:
            gone.append((path,))
            continue
        data = node.data if node.is_record else {}
        names[path] = set(node.names)
        diags = node.parsed.diagnostics + derived.diagnostics
        lifecycle = node.lifecycle if node.is_record else None
        base_ok = derived.base_ok(node.lifecycle) if node.is_record else False
        rows.append(
            (
                path,
                node.scope,
                "record" if node.is_record else "unrecognized",
                node.id,
                node.kind,
                derived.type,
                _text(data.get("title")),
                data.get("revision") if isinstance(data.get("revision"), int) else None,
                lifecycle,
                int(derived.valid),
                int(derived.duplicate),
                int(derived.deps_ok),
                int(base_ok and derived.deps_ok),
                derived.window[0],
                derived.window[1],
                _text(data.get("recorded_at")),
                _text(data.get("updated_at")),
                json.dumps(_strings(data.get("aliases"))),
                json.dumps(_strings(data.get("tags"))),
                node.parsed.sha256,
                node.parsed.size,
                sum(d.severity is Severity.ERROR for d in diags),
                sum(d.severity is Severity.WARNING for d in diags),
            )
        )
    tx.executemany("DELETE FROM catalog_names WHERE path=?", [(r[0],) for r in rows] + gone)
    tx.executemany(
        "INSERT INTO catalog_names(path, name) VALUES (?, ?)",
        [(path, name) for path in names for name in names[path]],
    )
    if gone:
        tx.executemany("DELETE FROM catalog WHERE path=?", gone)
    if rows:
        marks = ",".join("?" * len(COLUMNS))
        tx.executemany(f"INSERT OR REPLACE INTO catalog({','.join(COLUMNS)}) VALUES ({marks})", rows)


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
