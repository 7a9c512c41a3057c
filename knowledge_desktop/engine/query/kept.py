"""What searches read from the text index, kept between searches on one read-only
connection while nothing is committed (issue 28 §3).

An agent asks for the same words, filters and partitions call after call; at 100k
records re-reading a common word's postings, a filter's rows or the superseded
records' chains costs tens of milliseconds a search. `PRAGMA data_version` changes
whenever another connection commits (the readers never write), and costs nothing to
ask, so an entry is used only under the version it was read at: every reconcile or
indexing that changes the tables makes the next search read them again, and answers
stay exactly those of a fresh read. The version is asked before the data is read, so
what is kept is never older than the version it is kept under (a commit landing in
between only makes the next search read it again).

Entries are kept by (connection, key), the connection too so its id cannot be reused
while kept, least recently used first out once they hold more than `MOST_BYTES` or
`MOST_ENTRIES`. Kept values are shared by every search on the connection: callers never change them
(numpy arrays are made read-only).

What every search of a partition reads whatever its words (`lasting`: the partition's
layout, the filters an agent repeats, the superseded chains) is kept apart, under its
own bound, so that the postings of a stream of different words never push it out: at a
million records the layout alone is 12 MB (24 before, as int64), and every search read
it again, 0.04–0.3 s (issue 26 §3).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

MOST_BYTES = 24 << 20
"""About 20 common words' postings at 100k records (~1 MB each; two or three at a million,
~9 MB each): a bounded share of a 100k server's ~120 MB. The layout and the filters are
kept apart (`lasting`)."""
MOST_ENTRIES = 256
"""Also bounds what closed connections' entries hold until they age out."""
MOST_LASTING_BYTES = 192 << 20
"""The `lasting` entries: a few partitions' layouts on a few connections (~12 MB each at
a million records), the filters searches repeat (~1 MB each there) and superseded chains."""
MOST_LASTING_ENTRIES = 64

_Entries = OrderedDict[tuple[int, Hashable], tuple[sqlite3.Connection, int, object, int]]
_KEPT: _Entries = OrderedDict()
_LASTING: _Entries = OrderedDict()
_BYTES = [0]
_LASTING_BYTES = [0]
_LOCK = threading.Lock()


def version(conn: sqlite3.Connection) -> int:
    (found,) = conn.execute("PRAGMA data_version").fetchone()
    return int(found)


def kept(
    conn: sqlite3.Connection,
    key: Hashable,
    read: Callable[[], T],
    size: Callable[[T], int],
    *,
    lasting: bool = False,
) -> T:
    """The value `read()` gives on `conn`, read again only when something was committed
    since it was kept under `key`; `size` estimates its bytes for the bound. `lasting`:
    kept under the bound of what every search reads (see above)."""
    entries, total = (_LASTING, _LASTING_BYTES) if lasting else (_KEPT, _BYTES)
    most_bytes, most_entries = (
        (MOST_LASTING_BYTES, MOST_LASTING_ENTRIES) if lasting else (MOST_BYTES, MOST_ENTRIES)
    )
    now = version(conn)
    slot = (id(conn), key)
    with _LOCK:
        found = entries.get(slot)
        if found is not None and found[0] is conn and found[1] == now:
            entries.move_to_end(slot)
            return found[2]  # type: ignore[return-value]
        _drop_stale(conn, now)
    value = read()
    nbytes = size(value)
    with _LOCK:
        old = entries.pop(slot, None)
        if old is not None:
            total[0] -= old[3]
        if nbytes <= most_bytes:
            entries[slot] = (conn, now, value, nbytes)
            total[0] += nbytes
        while entries and (total[0] > most_bytes or len(entries) > most_entries):
            _, (_, _, _, dropped) = entries.popitem(last=False)
            total[0] -= dropped
    return value


def _drop_stale(conn: sqlite3.Connection, now: int) -> None:
    """Drop what `conn` kept under an older version: a version never comes back, so such an
    entry is never used again, and left to age out it held its memory and what it refers
    to (a term keeps the layout it was read against, uncounted): 40 edits in a 100k window
    pinned 201 old layouts, 74.5 MiB (issue 26 §3)."""
    for entries, total in ((_KEPT, _BYTES), (_LASTING, _LASTING_BYTES)):
        stale = [slot for slot, entry in entries.items() if entry[0] is conn and entry[1] != now]
        for slot in stale:
            total[0] -= entries.pop(slot)[3]


def forget() -> None:
    """Drop every kept entry (tests compare fresh reads with kept ones)."""
    with _LOCK:
        for entries, total in ((_KEPT, _BYTES), (_LASTING, _LASTING_BYTES)):
            entries.clear()
            total[0] = 0
