"""The one shape every projection has, and how reconcile drives them.

A projection owns some tables of `state.sqlite` that can be rebuilt from the
Markdown. It has an indexer — `index(tx, update)`, which rewrites its rows
for what one reconcile recomputed and says whether any row now differs — and
a read view, the functions beside it that read those tables for `query/`.
Reconcile knows projections only through this interface: it builds one
`Update` and hands it to each in turn,
setting the `ChangeSet` flag of every projection whose rows moved, so a pane
refetches only for what it shows. The list, in the order they are written,
is `reconcile.PROJECTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.ontology.compose import Activation
from knowledge_desktop.engine.store.db import Tx

COMPARE_UP_TO = 2000
"""Recomputed files up to which an indexer compares old and new rows to tell whether
anything moved; past that (a scan, an ontology change) it simply says it did."""


@dataclass(frozen=True, slots=True)
class Update:
    """What one reconcile hands every projection."""

    graph: VaultGraph
    """The in-memory graph, already holding the new derived state."""
    paths: list[str]
    """Files whose derived state was recomputed: their rows are rewritten."""
    content: list[tuple[str | None, str, str]]
    """(scope, path, entry kind) of files whose bytes changed or appeared."""
    gone: list[str]
    """Files that went away."""
    activations: dict[str, Activation]
    """Partitions whose ontology manifests were (re)read, with the result."""


class Projection(Protocol):
    """An indexer over some tables; its read view is the module's other functions."""

    flag: Flag
    """The `ChangeSet.touched` flag set when this projection's rows change."""

    def index(self, tx: Tx, update: Update) -> bool:
        """Bring this projection's rows in line with `update`; whether any row differs."""
        ...


@dataclass(frozen=True, slots=True)
class Owned:
    """A table a projection rewrites per file, and the column naming the file."""

    table: str
    path_column: str
    compared: str = "*"
    """The columns that count as a change (a pane shows them)."""


def rewrite(tx: Tx, owned: Sequence[Owned], paths: list[str], write: Callable[[], None]) -> bool:
    """Run `write` over the rows of `paths` and tell whether it changed any compared column.

    For a few files the rows are read before and after; many files are taken
    to have changed (a full scan rewrites everything anyway).
    """
    if not paths:
        write()
        return False
    if len(paths) > COMPARE_UP_TO:
        write()
        return True
    before = _rows(tx, owned, paths)
    write()
    return _rows(tx, owned, paths) != before


def delete_rows(tx: Tx, table: str, column: str, paths: Iterable[str]) -> None:
    """Delete the rows of `paths` from `table`; nothing to run on an empty table, as every
    table is in a cold scan's first write (a DELETE a file a table cost it 5% of its writing)."""
    if tx.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None:
        return
    tx.executemany(f"DELETE FROM {table} WHERE {column}=?", ((p,) for p in paths))


def _rows(tx: Tx, owned: Sequence[Owned], paths: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    for item in owned:
        found: list[str] = []
        for chunk in _chunks(paths, 500):
            marks = ",".join("?" * len(chunk))
            found.extend(
                repr(row)
                for row in tx.execute(
                    f"SELECT {item.compared} FROM {item.table} WHERE {item.path_column} IN ({marks})", chunk
                )
            )
        out.append(sorted(found))
    return out


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
