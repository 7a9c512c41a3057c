"""Opening `state.sqlite`: WAL mode, one serialised writer, readers on their own connections."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import StateDamaged
from knowledge_desktop.engine.store import faults, packed, schema

WRITER_CACHE_KIB = -8192
"""The writer's page cache for everyday writes (8 MiB; negative: KiB, as SQLite takes it)."""
MAX_READERS = 16
"""Past this many reader connections, those of threads that have ended are closed."""
BULK_CACHE_KIB = -65536
"""For bulk writes: index builds after a cold scan stay in memory (64 MiB)."""
CHUNK_CACHE_KIB = -16384
"""For one chunk of a scan too large for one transaction (16 MiB): it inserts into tables whose
indexes stay built, where a bigger cache bought no measurable time, and each MiB of it comes on
top of the graph the scan has filled so far (issue 26: a 100k scan peaked 50 MiB lower)."""
WAL_KEEP_BYTES = 64 * 1024 * 1024
"""What a write-ahead log may keep on disk once it is copied into the database: a cold scan of a
million records left a log of 13.6 GB (as large as the database) that SQLite would otherwise
keep at its largest size for as long as the file lives."""
BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another program's lock before `StateLocked` is raised."""


@dataclass(frozen=True, slots=True)
class ReadSnapshot:
    """A read transaction on one thread's reader (`Store.read_snapshot`)."""

    conn: sqlite3.Connection
    version: int
    """`Store.foreign_commits()` read just before it began: every commit of another
    connection it counts is visible in the snapshot."""


class Store:
    """The vault's SQLite database.

    Every write goes through `write()`, which holds the writer lock and wraps
    the work in `BEGIN IMMEDIATE … COMMIT`, so there is one writer whatever
    thread calls it. Reads use a connection per thread (`reader()`), which
    WAL lets run beside the writer.
    """

    def __init__(self, path: Path) -> None:
        """Open (or create) the database; SQLite's environment failures (a damaged
        file, a lock, a full disk) are raised as `StateError`s (`store/faults.py`)."""
        self.path = path
        self._write_lock = threading.Lock()
        self._readers: dict[int, sqlite3.Connection] = {}
        self._readers_lock = threading.Lock()
        self._snapshots: dict[int, ReadSnapshot] = {}
        """The read transaction each thread has open (`read_snapshot`)."""
        try:
            self._writer = self._connect()
        except sqlite3.Error as exc:
            _raise_known(exc, path)
            raise
        try:
            self._writer.execute("PRAGMA journal_mode=WAL")
            self._writer.execute(f"PRAGMA journal_size_limit={WAL_KEEP_BYTES}")
            self._writer.execute(f"PRAGMA cache_size={WRITER_CACHE_KIB}")
            self._writer.executescript(schema.DURABLE_SQL)
            self._migrate_durable()
            self.rebuilt = self._ensure_projections()
        except BaseException as exc:
            self._writer.close()
            _raise_known(exc, path)
            raise

    def check_durable(self) -> None:
        """Read every durable table through SQLite's own check (a few small tables, so
        cheap): a file whose pages were cut off or overwritten raises `StateDamaged`."""
        self._check(list(schema.DURABLE_TABLES))

    def check_all(self) -> None:
        """SQLite's check of every page (seconds at 100k): `StateDamaged` when one is bad."""
        self._check([None])

    def _check(self, tables: list[str | None]) -> None:
        try:
            for table in tables:
                pragma = f"PRAGMA quick_check({table})" if table else "PRAGMA quick_check"
                found = self._writer.execute(pragma).fetchall()
                if found != [("ok",)]:
                    raise sqlite3.DatabaseError(f"{table or 'the database'}: {found[0][0]}")
        except sqlite3.DatabaseError as exc:
            if faults.primary_code(exc) in (None, *faults.DAMAGED_CODES):
                raise StateDamaged(f"{self.path} is damaged ({exc})") from exc
            _raise_known(exc, self.path)
            raise

    def backup_to(self, target: Path) -> None:
        """Copy the whole database, as committed now, into a new file at `target`."""
        with self._write_lock:
            dest = sqlite3.connect(target)
            try:
                self._writer.backup(dest)
            finally:
                dest.close()

    def _migrate_durable(self) -> None:
        """Apply the durable migrations this database has not had yet, in one transaction."""
        row = self._writer.execute("SELECT value FROM store_identity WHERE key='durable_schema'").fetchone()
        applied = int(row[0]) if row else 0
        if applied >= len(schema.DURABLE_MIGRATIONS):
            return
        with self.write(durable=True) as w:
            for statements in schema.DURABLE_MIGRATIONS[applied:]:
                for statement in statements:
                    w.execute(statement)
            w.execute(
                "INSERT INTO store_identity(key, value) VALUES ('durable_schema', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(len(schema.DURABLE_MIGRATIONS)),),
            )

    def rebuild_projections(self) -> None:
        """Drop every projection so the next reconcile rebuilds them from the Markdown."""
        with self.write() as w:
            w.execute("UPDATE projection_meta SET value='stale' WHERE key='version'")
        self.rebuilt = self._ensure_projections()

    def _connect(self, reader: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            check_same_thread=False,
            isolation_level=None,
            factory=_Reader if reader else sqlite3.Connection,
        )
        packed.register(conn)  # the search text is stored packed: every reader unpacks
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _ensure_projections(self) -> bool:
        """Create projections; drop and recreate them when their version differs."""
        conn = self._writer
        version = None
        try:
            row = conn.execute("SELECT value FROM projection_meta WHERE key='version'").fetchone()
            version = row[0] if row else None
        except sqlite3.DatabaseError:
            version = None
        if version == schema.PROJECTION_VERSION and self._projections_intact(conn):
            return False
        with self.write() as w:
            for table in schema.PROJECTION_TABLES:
                w.execute(f"DROP TABLE IF EXISTS {table}")
            dynamic = [
                (name, sql or "")
                for name, sql in w.execute("SELECT name, sql FROM sqlite_master WHERE type='table'")
                if name.startswith(schema.DYNAMIC_PROJECTION_PREFIXES)
            ]
            views = w.execute("SELECT name FROM sqlite_master WHERE type='view'").fetchall()
            for (name,) in views:
                if name.startswith(schema.DYNAMIC_PROJECTION_PREFIXES) or name in schema.PROJECTION_VIEWS:
                    w.execute(f"DROP VIEW IF EXISTS {name}")
            # Virtual tables first: dropping one drops its shadow tables with it.
            for name, _sql in sorted(dynamic, key=lambda t: not t[1].startswith("CREATE VIRTUAL")):
                w.execute(f"DROP TABLE IF EXISTS {name}")
            w.executescript_in_tx(schema.PROJECTIONS_SQL)
            w.execute(
                "INSERT INTO projection_meta(key, value) VALUES ('version', ?)",
                (schema.PROJECTION_VERSION,),
            )
        return True

    @staticmethod
    def _projections_intact(conn: sqlite3.Connection) -> bool:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not all(t in names for t in schema.PROJECTION_TABLES):
            return False
        scopes = [r[0] for r in conn.execute("SELECT scope FROM keyword_state_v1")]
        return all(t in names for s in scopes for t in schema.keyword_tables(s))

    @contextmanager
    def write(self, bulk: bool = False, *, durable: bool = False, chunk: bool = False) -> Iterator[Tx]:
        """A write transaction. `bulk` (thousands of rows, index builds) gets a
        64 MiB page cache for its duration, handed back when it ends: a cache
        that size kept after every edit filled up and stayed resident; `chunk`
        (one chunk of a scan written in several) a 16 MiB one.

        `durable`: the commit is on disk when this returns, even across a power
        loss (`synchronous=FULL` for this transaction). Projections do without
        (they are rebuilt from the Markdown); the journal, receipts and guards
        of the write side need it, since a file is replaced only after its
        intent is journaled.

        All or nothing: whatever fails inside (or the COMMIT itself, on a full
        disk) rolls the transaction back, and SQLite's environment failures
        leave as `StateError`s (`store/faults.py`)."""
        with self._write_lock:
            if durable:
                self._writer.execute("PRAGMA synchronous=FULL")
            if bulk:
                self._writer.execute(f"PRAGMA cache_size={CHUNK_CACHE_KIB if chunk else BULK_CACHE_KIB}")
            try:
                self._writer.execute("BEGIN IMMEDIATE")
                try:
                    yield Tx(self._writer)
                    self._writer.execute("COMMIT")
                except BaseException:
                    # SQLite may have rolled back already (a full disk, an I/O error).
                    if self._writer.in_transaction:
                        self._writer.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                _raise_known(exc, self.path)
                raise
            finally:
                if durable:
                    self._writer.execute("PRAGMA synchronous=NORMAL")
                if bulk:
                    self._writer.execute(f"PRAGMA cache_size={WRITER_CACHE_KIB}")
                    self._writer.execute("PRAGMA shrink_memory")

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database, without waiting for anyone.

        A reconcile writes inside a read snapshot of its own, so the checkpoint
        at each commit stops short of the frames just written, and the next write
        cannot start the log afresh: over the chunks of a large run the log grew
        by every chunk (1 GB after 30,000 records of a million). Called between
        chunks, outside any snapshot, it lets the log be reused. PASSIVE: a reader
        of another process only makes it copy less."""
        with self._write_lock:
            try:
                self._writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                _raise_known(exc, self.path)
                raise

    def reader(self) -> sqlite3.Connection:
        """This thread's read-only connection, opened on first use and kept.

        Kept by OS thread id, not in a `threading.local`: Qt's pool threads run
        each job under a fresh Python thread state, which empties a
        thread-local, so every query opened a connection (250 for 20 edits
        in the window), re-reading the schema with a cold page cache.
        """
        key = threading.get_native_id()
        conn = self._readers.get(key)
        if conn is None:
            conn = self._connect(reader=True)
            conn.execute("PRAGMA query_only=ON")
            with self._readers_lock:
                if len(self._readers) >= MAX_READERS:
                    self._close_readers_of_ended_threads()
                self._readers[key] = conn
        return conn

    @contextmanager
    def read_snapshot(self) -> Iterator[ReadSnapshot]:
        """This thread's reader inside one read transaction, begun at once: every query sees
        the database as one commit left it, however many another process makes meanwhile
        (the files table and the graph snapshot read apart could describe two versions of a
        file). Inside an open one on this thread, it joins it."""
        key = threading.get_native_id()
        open_one = self._snapshots.get(key)
        if open_one is not None:
            yield open_one
            return
        conn = self.reader()
        version = self.foreign_commits()  # before the snapshot: a commit after it is not seen
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()  # the snapshot starts here
            self._snapshots[key] = snapshot = ReadSnapshot(conn, version)
            yield snapshot
        finally:
            self._snapshots.pop(key, None)
            if conn.in_transaction:
                conn.execute("COMMIT")

    def foreign_commits(self) -> int:
        """A number that changes whenever another connection commits to the database: another
        process, or another `Store` on it. This one's own writes leave it as it is (SQLite's
        `data_version` of the write connection; the readers here never write)."""
        with self._write_lock:
            return int(self._writer.execute("PRAGMA data_version").fetchone()[0])

    def _close_readers_of_ended_threads(self) -> None:
        tasks = Path("/proc/self/task")
        if not tasks.is_dir():
            return  # no way to tell here; the map stays as it is
        for key in [k for k in self._readers if not (tasks / str(k)).exists()]:
            self._readers.pop(key).close()

    def identity(self, key: str) -> str | None:
        row = self.reader().execute("SELECT value FROM store_identity WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_identity(self, key: str, value: str) -> None:
        with self.write() as w:
            w.execute(
                "INSERT INTO store_identity(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )

    def close_writer(self) -> None:
        """Close only the write connection, leaving the readers other threads may be using
        at this moment (closing a connection under a running query is not safe); `close`
        closes them later."""
        with self._write_lock:
            self._writer.close()

    def close(self) -> None:
        with self._readers_lock:
            readers, self._readers = list(self._readers.values()), {}
        for conn in readers:
            conn.close()
        with self._write_lock:
            self._writer.close()


def _raise_known(exc: BaseException, path: Path) -> None:
    """Raise the `StateError` an environment failure of SQLite stands for; return otherwise."""
    known = faults.known(exc, path)
    if known is not None:
        raise known from exc


class _Reader(sqlite3.Connection):
    """A read connection whose queries raise `StateError`s for SQLite's environment failures
    (a damaged page met by a pane's query becomes a message, and the next open checks the
    whole file), as writes do: in `execute` and the cursor's `fetch*` calls. Rows read by
    iterating a cursor still raise SQLite's own error (a Python call per row would slow
    every large read)."""

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        # (sqlite3's own `execute` makes a plain cursor, whatever `cursor()` would.)
        return self.cursor(_ReaderCursor).execute(sql, parameters)


class _ReaderCursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            _raise_known(exc, _file_of(self.connection))
            raise

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            _raise_known(exc, _file_of(self.connection))
            raise

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.Error as exc:
            _raise_known(exc, _file_of(self.connection))
            raise

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            _raise_known(exc, _file_of(self.connection))
            raise


def _file_of(conn: sqlite3.Connection) -> Path:
    row = sqlite3.Connection.execute(conn, "PRAGMA database_list").fetchone()
    return Path(str(row[2])) if row else Path()


class Tx:
    """The writer connection inside an open transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.conn.executemany(sql, rows)

    def executescript_in_tx(self, script: str) -> None:
        """Run each statement of `script` inside the open transaction (`executescript` would
        commit first). Statements end at a `;` SQLite itself calls the end of one, so a `;`
        in a comment, a string or a trigger's body does not cut a statement in two."""
        pending = ""
        for piece in script.split(";"):
            pending += piece + ";"
            if sqlite3.complete_statement(pending):
                if _has_sql(pending):
                    self.conn.execute(pending)
                pending = ""
        if _has_sql(pending.removesuffix(";")):
            self.conn.execute(pending.removesuffix(";"))


def _has_sql(text: str) -> bool:
    """Whether `text` holds more than blanks, `;` and `--` comments."""
    lines = (line.split("--", 1)[0] for line in text.splitlines())
    return any(line.strip().strip(";").strip() for line in lines)
