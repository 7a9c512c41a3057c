"""The embedding projection's queue: what reconcile writes for search by meaning.

Reconcile only queues the files whose bytes changed or went; `semantic.sync`
embeds them when a search by meaning first needs them. This half is kept apart
from `semantic.py` so that indexing a vault imports neither numpy nor the model
(tests/engine/test_lazy_imports.py).
"""

from __future__ import annotations

from knowledge_desktop.engine.changes import TEXT
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Update

flag: Flag = TEXT


def index(tx: Tx, update: Update) -> bool:
    """Queue changed and removed files for the next `sync` (never embeds here)."""
    queued = {(scope, path) for scope, path, kind in update.content if scope and kind == "markdown"}
    # A file that went stays queued only while it has vectors to take away; one never
    # embedded leaves the queue, as a fresh scan of the files would never have queued it.
    gone = sorted(p for p in update.gone if "/" in p)
    for start in range(0, len(gone), 500):
        some = gone[start : start + 500]
        marks = ",".join("?" * len(some))
        found = {
            p
            for (p,) in tx.execute(
                f"SELECT DISTINCT path FROM semantic_chunks_v1 WHERE path IN ({marks})", some
            )
        }
        queued |= {(p.split("/", 1)[0], p) for p in found}
        tx.executemany("DELETE FROM semantic_pending_v1 WHERE path=?", [(p,) for p in some if p not in found])
    tx.executemany(
        "INSERT OR IGNORE INTO semantic_pending_v1(scope, path) VALUES (?, ?)",
        sorted(queued),
    )
    return False  # nothing a pane shows moved yet: the vectors change at `sync`
