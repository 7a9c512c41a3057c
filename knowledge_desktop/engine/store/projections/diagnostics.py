"""Diagnostics projection: every finding of parse and derive, per file."""

from __future__ import annotations

from knowledge_desktop.engine.changes import DIAGNOSTICS
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, rewrite

flag: Flag = DIAGNOSTICS
OWNED = (Owned("diagnostics", "path"),)


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
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
