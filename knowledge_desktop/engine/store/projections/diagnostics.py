"""Diagnostics projection: every finding of parse and derive, per file."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.vault_graph import VaultGraph


def index(tx: Any, graph: VaultGraph, paths: Iterable[str]) -> None:
    paths = list(paths)
    tx.executemany("DELETE FROM diagnostics WHERE path=?", ((p,) for p in paths))
    tx.executemany(
        "INSERT INTO diagnostics(path, code, severity, line, record_id, message) VALUES (?,?,?,?,?,?)",
        (_row(d) for path in paths for d in _found(graph, path)),
    )


def _found(graph: VaultGraph, path: str) -> list[Diagnostic]:
    """What parse and derive found in one file (rows are generated, never listed for a whole scan)."""
    node = graph.nodes.get(path)
    if node is None:
        return []
    derived = graph.derived.get(path)
    return [*node.diagnostics, *(derived.diagnostics if derived is not None else ())]


def _row(d: Diagnostic) -> tuple[object, ...]:
    return (d.path, d.code, d.severity.value, d.line, d.record_id, d.message)
