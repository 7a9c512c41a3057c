"""The embedding projection's queue: what reconcile writes for search by meaning.

Reconcile only queues the files whose bytes changed or went; `semantic.sync`
embeds them when a search by meaning first needs them. This half is kept apart
from `semantic.py` so that indexing a vault imports neither numpy nor the model
(tests/engine/test_lazy_imports.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from knowledge_desktop.engine.changes import TEXT
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Update

flag: Flag = TEXT

NOTES = "/notes"
"""The scope notes' vectors are stored under, and a root note is queued under: no
partition can be named so (a folder name has no `/`), and the records' per-partition
scans (the knowledge API's `search` among them) never read it, so notes can only be
found where a caller asks for them (`query/hybrid.py`)."""


def queue_scope(path: str) -> str:
    """The scope a file is queued under: its partition, or NOTES for a file at the root."""
    return path.split("/", 1)[0] if "/" in path else NOTES


def pending(conn: Tx | sqlite3.Connection, scopes: Iterable[str], at_most: int | None = None) -> int:
    """How many files of `scopes` are queued to be (re)embedded; with `at_most`, counted
    no further than one past it (a caller that only asks whether there are more than that
    does not count a million queued rows)."""
    scopes = list(scopes)
    if not scopes:
        return 0
    marks = ",".join("?" * len(scopes))
    rows = f"SELECT 1 FROM semantic_pending_v1 WHERE scope IN ({marks})"
    if at_most is None:
        found = conn.execute(f"SELECT count(*) FROM ({rows})", scopes)
    else:
        found = conn.execute(f"SELECT count(*) FROM ({rows} LIMIT ?)", [*scopes, at_most + 1])
    return int(found.fetchone()[0])


def index(tx: Tx, update: Update) -> bool:
    """Queue changed and removed files for the next `sync` (never embeds here)."""
    queued = {(scope, path) for scope, path, kind in update.content if scope and kind == "markdown"}
    # A file at the root is queued only when the catalog (written before this) calls it a
    # note, or it has vectors (it was one); `sync` tells a partition's records from its
    # notes by their indexed text.
    root = [path for scope, path, kind in update.content if not scope and kind == "markdown"]
    for start in range(0, len(root), 500):
        some = root[start : start + 500]
        marks = ",".join("?" * len(some))
        queued |= {
            (NOTES, str(p))
            for (p,) in tx.execute(
                f"SELECT path FROM catalog WHERE status='note' AND path IN ({marks})"
                f" UNION SELECT path FROM semantic_chunks_v1 WHERE path IN ({marks})",
                [*some, *some],
            )
        }
    # A file that went stays queued only while it has vectors to take away; one never
    # embedded leaves the queue, as a fresh scan of the files would never have queued it.
    gone = sorted(update.gone)
    for start in range(0, len(gone), 500):
        some = gone[start : start + 500]
        marks = ",".join("?" * len(some))
        found = {
            p
            for (p,) in tx.execute(
                f"SELECT DISTINCT path FROM semantic_chunks_v1 WHERE path IN ({marks})", some
            )
        }
        queued |= {(queue_scope(p), p) for p in found}
        tx.executemany("DELETE FROM semantic_pending_v1 WHERE path=?", [(p,) for p in some if p not in found])
    tx.executemany(
        "INSERT OR IGNORE INTO semantic_pending_v1(scope, path) VALUES (?, ?)",
        sorted(queued),
    )
    return False  # nothing a pane shows moved yet: the vectors change at `sync`
