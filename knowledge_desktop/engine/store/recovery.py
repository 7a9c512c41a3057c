"""A damaged `state.sqlite`: tell it, set it aside, and carry its durable rows over.

Projections can always be rebuilt from the Markdown; the durable tables
(`schema.DURABLE_TABLES`) cannot (spec: retrieval-and-dates, on keeping
state.sqlite). So a file SQLite cannot use is never deleted: it is renamed
to `state.sqlite.corrupt-<time>` (its WAL beside it, so SQLite still finds
it), a new database is made, and every durable table that can still be read
from the old file is copied into it. What could not be read is named, so
the vault can report the loss instead of hiding it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
from dataclasses import dataclass, field
from pathlib import Path

from knowledge_desktop.engine.store import guards, schema
from knowledge_desktop.engine.store.db import Store

HEADER = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")


def inspect(path: Path) -> str | None:
    """Why the file at `path` cannot be a usable SQLite database, from its header alone; None
    when nothing is visibly wrong (SQLite's own checks come after)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(100)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if size == 0:
        return "it is empty"
    if len(head) < 100 or not head.startswith(HEADER):
        return "it is not an SQLite database"
    page_size = struct.unpack(">H", head[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, pages = struct.unpack(">II", head[24:32])
    valid_for = struct.unpack(">I", head[92:96])[0]
    wal = path.with_name(path.name + "-wal")
    wal_empty = not wal.exists() or wal.stat().st_size == 0
    # The page count in the header is trusted when its change counter matches
    # (SQLite's own rule); pages may then live in the WAL only if there is one.
    if pages and change_counter == valid_for and wal_empty and size < pages * page_size:
        return f"it is cut short: {size} of {pages * page_size} bytes"
    return None


def set_aside(path: Path, stamp: str) -> Path:
    """Rename the database and its side files to `<name>.corrupt-<stamp>…`; the new path."""
    safe = stamp.replace(":", "").replace("-", "").replace(".", "")
    target = path.with_name(f"{path.name}.corrupt-{safe}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{safe}-{n}")
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    os.replace(path, target)
    return target


@dataclass
class Salvage:
    """Which durable tables came over from a damaged file, and which could not be read."""

    copied: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    partial: dict[str, dict[str, int | None]] = field(default_factory=dict)
    """Tables read only in part (a damaged page among theirs): rows kept, and rows lost when
    SQLite could still count them (None: unknown; `atMost` then bounds them)."""
    rows: int = 0
    reason: str = ""
    """Why the old file could not be opened at all (every table is then lost)."""


def salvage(old: Path, store: Store) -> Salvage:
    """Copy every readable durable row of the database at `old` into `store`."""
    out = Salvage()
    try:
        source = sqlite3.connect(old)
        # Lets SQLite read a file shorter than its header says (it refuses by default), and
        # a schema it cannot fully parse; nothing is written through this connection.
        source.execute("PRAGMA writable_schema=ON")
    except sqlite3.Error as exc:
        out.reason = str(exc)
        out.lost = list(schema.DURABLE_TABLES)
        return out
    try:
        for table in schema.DURABLE_TABLES:
            read = _read_rows(source, table)
            if read.columns is None:
                out.lost.append(table)
                out.reason = out.reason or read.error
                continue
            wanted = _columns(store, table)
            keep = [i for i, c in enumerate(read.columns) if c in wanted]
            if read.rows and keep:
                names = ", ".join(read.columns[i] for i in keep)
                marks = ", ".join("?" * len(keep))
                with store.write() as tx:
                    tx.executemany(
                        f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})",
                        [[row[i] for i in keep] for row in read.rows],
                    )
                out.rows += len(read.rows)
            if read.error:
                out.partial[table] = {"kept": len(read.rows), "lost": read.missing, "atMost": read.at_most}
                out.reason = out.reason or read.error
            else:
                out.copied.append(table)
        # Copying the guard rows logged them anew, while what the old log lacked (pruned, or
        # unreadable) is still missing: no reader may trust the log before the version now.
        with store.write() as tx:
            guards.restart_log(tx, _old_guards_version(source))
    finally:
        with contextlib.suppress(sqlite3.Error):
            source.close()
    return out


@dataclass
class _Read:
    columns: list[str] | None = None
    """None: the table could not be read at all."""
    rows: list[tuple[object, ...]] = field(default_factory=list)
    error: str = ""
    """What stopped a read part-way (empty: every row was read)."""
    missing: int | None = 0
    """Rows that could not be read, when SQLite can still count the table."""
    at_most: int | None = None
    """When they cannot be counted: the most there can be (the rowids between the rows read)."""


def _read_rows(source: sqlite3.Connection, table: str) -> _Read:
    """Every row of `table` that still reads: in key order until a damaged page stops the
    scan, then in reverse key order from the far end back to the damage, so only the rows
    of the damaged pages themselves are lost."""
    out = _Read()
    try:
        cursor = source.execute(f"SELECT * FROM {table} ORDER BY {_key(source, table)}")
        out.columns = [d[0] for d in cursor.description]
        for row in cursor:
            out.rows.append(tuple(row))
        return out
    except sqlite3.Error as exc:
        out.error = str(exc)
    if out.columns is None:
        return out
    seen = set(out.rows)
    with contextlib.suppress(sqlite3.Error):
        for row in source.execute(f"SELECT * FROM {table} ORDER BY {_key(source, table, desc=True)}"):
            if tuple(row) in seen:
                break  # met the rows read forwards: the damage was not between them
            out.rows.append(tuple(row))
    try:  # through an index when the table has one, whose pages may be intact
        (total,) = source.execute(f"SELECT count(*) FROM {table}").fetchone()
        out.missing = max(int(total) - len(out.rows), 0)
    except sqlite3.Error:
        out.missing = None
        out.at_most = _rowid_gap(source, table)
    return out


def _rowid_gap(source: sqlite3.Connection, table: str) -> int | None:
    """How many rowids lie between the last row read forwards and the first read backwards:
    at most that many rows were lost (None: not a rowid table, or nothing read)."""
    ends: list[int] = []
    for order in ("ASC", "DESC"):
        last = None
        with contextlib.suppress(sqlite3.Error):
            for (rowid,) in source.execute(f"SELECT rowid FROM {table} ORDER BY rowid {order}"):
                last = rowid
        if last is None:
            return None
        ends.append(int(last))
    return max(ends[1] - ends[0] - 1, 0)


def _key(source: sqlite3.Connection, table: str, *, desc: bool = False) -> str:
    """The ORDER BY that walks the table's own b-tree: its rowid, or its primary key for a
    table without one (the scan reaches every page in key order either way). Asked of the
    parsed schema only: reading `sqlite_master` itself may meet the damage."""
    try:
        source.execute(f"SELECT rowid FROM {table} LIMIT 0")
        names = ["rowid"]
    except sqlite3.OperationalError:  # no such column: a WITHOUT ROWID table
        pk = sorted((r[5], r[1]) for r in source.execute(f"PRAGMA table_info({table})") if r[5])
        names = [name for _, name in pk]
    return ", ".join(f"{n} DESC" if desc else n for n in names)


def _old_guards_version(source: sqlite3.Connection) -> int | None:
    """The guard version of the damaged database (None: unreadable)."""
    try:
        row = source.execute("SELECT value FROM store_identity WHERE key='guards_version'").fetchone()
    except sqlite3.Error:
        return None
    return int(row[0]) if row else 0


def _columns(store: Store, table: str) -> set[str]:
    return {row[1] for row in store.reader().execute(f"PRAGMA table_info({table})")}
