"""A digest of the last full walk, so a vault nobody changed is known fresh at once.

Knowing a vault is unchanged means comparing every file's stat with what the
`files` table recorded. At 100k files, loading that table into memory costs
more than the walk itself, and the CLI pays it on every command. So when a full
walk finds the table matching the disk, the walk's digest is stored; the next
full walk compares one string instead of 100k rows.

It is sound because every write to `files` forgets the digest in the same
transaction (`forget`), and the digest lives in `projection_meta`, which is
dropped with the projections: a stored digest always describes the `files`
table as it stands. A lost digest costs one slow comparison, never a wrong answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from knowledge_desktop.engine.fs.walk import FileEntry
from knowledge_desktop.engine.store.db import Store, Tx

KEY = "walk_digest"


def digest(entries: Iterable[FileEntry]) -> str:
    """Every entry's path and stat identity, order-independent (sorted), hashed."""
    lines = sorted(f"{e.path}\0{e.size}\0{e.mtime_ns}\0{e.inode}\0{e.problem}" for e in entries)
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def matches(store: Store, walked: str) -> bool:
    row = store.reader().execute("SELECT value FROM projection_meta WHERE key=?", (KEY,)).fetchone()
    return row is not None and row[0] == walked


def remember(store: Store, walked: str) -> None:
    """Store `walked` as the digest of the `files` table: call only right after a full
    walk found the table matching it, with no write in between."""
    with store.write() as tx:
        record(tx, walked)


def record(tx: Tx, walked: str) -> None:
    """`remember` inside a transaction that has just written `files` to match `walked`."""
    tx.execute("INSERT OR REPLACE INTO projection_meta(key, value) VALUES (?, ?)", (KEY, walked))


def forget(tx: Tx) -> None:
    """In every transaction that writes `files`: the stored digest no longer holds."""
    tx.execute("DELETE FROM projection_meta WHERE key=?", (KEY,))


def indexed_elsewhere(tx: Tx, rows: list[tuple[str, str]]) -> bool:
    """Whether any of these (path, sha256) pairs is in the `files` table already: another
    process (`knowledge new`, `knowledge mcp`) published the file and wrote its rows, so
    the projections read unchanged here although this process never showed them."""
    return any(
        tx.execute("SELECT 1 FROM files WHERE path=? AND sha256=?", pair).fetchone() is not None
        for pair in rows
    )
