"""Diagnostics projection: every finding of parse and derive, per file."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.derive import Catalog
from knowledge_desktop.engine.diagnostics import Diagnostic


def index(tx: Any, catalog: Catalog, paths: Iterable[str]) -> None:
    paths = list(paths)
    tx.executemany("DELETE FROM diagnostics WHERE path=?", [(p,) for p in paths])
    rows: list[tuple[object, ...]] = []
    for path in paths:
        node = catalog.nodes.get(path)
        derived = catalog.derived.get(path)
        if node is None:
            continue
        found = list(node.parsed.diagnostics)
        if derived is not None:
            found += derived.diagnostics
        rows.extend(_row(d) for d in found)
    if rows:
        tx.executemany(
            "INSERT INTO diagnostics(path, code, severity, line, record_id, message) VALUES (?,?,?,?,?,?)",
            rows,
        )


def _row(d: Diagnostic) -> tuple[object, ...]:
    return (d.path, d.code, d.severity.value, d.line, d.record_id, d.message)
