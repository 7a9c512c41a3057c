"""Search text stored once, packed: the codec and the SQL function that reads it back.

The keyword projection keeps each record's body compressed in its own table and
lets FTS5 read it through a view (`projections/keyword.py`), instead of FTS5
storing a second, plain copy (issue 26: the copy was a quarter of `state.sqlite`).
The view calls `UNPACK_SQL`, so every connection to the state registers it
(`Store._connect`): a snippet, a highlight or `SELECT body FROM <fts>` read
through it, and FTS5 reads through it to delete a row's terms. Kept apart from
the projections so the store can register it without importing them.
"""

from __future__ import annotations

import sqlite3
import zlib

UNPACK_SQL = "kd_unpack"
"""The SQL function a view of stored text calls: packed bytes back to the text."""
LEVEL = 2
"""zlib's level, where its time stops buying size: 10k records' bodies (46 MB) pack to
16.4 MB at 1, 16.1 MB at 2, 16.0 MB at 3 and 15.2 MB at 6, in 0.48, 0.50, 0.52 and 0.73 s
of a parse worker's CPU (issue 26)."""


def pack(text: str) -> str | bytes:
    """The stored form of a body: zlib's bytes, or the text itself when that is no larger
    (a short body; `unpack` tells the two apart by type)."""
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, LEVEL)
    return packed if len(packed) < len(raw) else text


def unpack(stored: str | bytes | None) -> str | None:
    """The text of a stored body (`pack`); NULL as it is."""
    if isinstance(stored, bytes):
        return zlib.decompress(stored).decode("utf-8")
    return stored


def register(conn: sqlite3.Connection) -> None:
    """Make stored text readable on `conn`: every connection to the state registers this."""
    conn.create_function(UNPACK_SQL, 1, unpack, deterministic=True)
