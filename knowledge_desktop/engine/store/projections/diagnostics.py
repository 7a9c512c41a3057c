"""Diagnostics projection: every finding of parse and derive, per file.

The indexer rewrites a file's findings; the read view (`of_path`, `every`,
`by_severity`) is how `query/` reads them."""

from __future__ import annotations

import sqlite3
from typing import Any

from knowledge_desktop.engine.changes import DIAGNOSTICS
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.diagnostics import Diagnostic, Severity
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, delete_rows, rewrite

flag: Flag = DIAGNOSTICS
OWNED = (Owned("diagnostics", "path"),)


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    delete_rows(tx, "diagnostics", "path", paths)
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


# -- read view -----------------------------------------------------------------------
_SELECT = "SELECT path, code, severity, line, record_id, message FROM diagnostics"


def of_path(conn: sqlite3.Connection, path: str) -> list[Diagnostic]:
    """One file's findings, in line order."""
    return [_diagnostic(row) for row in conn.execute(f"{_SELECT} WHERE path=? ORDER BY line", (path,))]


def every(conn: sqlite3.Connection) -> list[Diagnostic]:
    """Every finding of the vault, unsorted."""
    return [_diagnostic(row) for row in conn.execute(_SELECT)]


def by_severity(conn: sqlite3.Connection) -> dict[str, int]:
    """How many findings of each severity (severities without any are absent)."""
    return dict(conn.execute("SELECT severity, count(*) FROM diagnostics GROUP BY severity").fetchall())


def _diagnostic(row: tuple[Any, ...]) -> Diagnostic:
    path, code, severity, line, record_id, message = row
    return Diagnostic(code, Severity(severity), path, line, record_id, message)
