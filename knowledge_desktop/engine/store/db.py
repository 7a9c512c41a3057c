"""Opening `state.sqlite`: WAL mode, one serialised writer, readers on their own connections."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from knowledge_desktop.engine.store import schema

WRITER_CACHE_KIB = -8192
"""The writer's page cache for everyday writes (8 MiB; negative: KiB, as SQLite takes it)."""
MAX_READERS = 16
"""Past this many reader connections, those of threads that have ended are closed."""
BULK_CACHE_KIB = -65536
"""For bulk writes: index builds after a cold scan stay in memory (64 MiB)."""


class Store:
    """The vault's SQLite database.

    Every write goes through `write()`, which holds the writer lock and wraps
    the work in `BEGIN IMMEDIATE … COMMIT`, so there is one writer whatever
    thread calls it. Reads use a connection per thread (`reader()`), which
    WAL lets run beside the writer.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._write_lock = threading.Lock()
        self._readers: dict[int, sqlite3.Connection] = {}
        self._readers_lock = threading.Lock()
        self._writer = self._connect()
        self._writer.execute("PRAGMA journal_mode=WAL")
        self._writer.execute(f"PRAGMA cache_size={WRITER_CACHE_KIB}")
        self._writer.executescript(schema.DURABLE_SQL)
        self._migrate_durable()
        self.rebuilt = self._ensure_projections()

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

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=5000")
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
    def write(self, bulk: bool = False, *, durable: bool = False) -> Iterator[Tx]:
        """A write transaction. `bulk` (thousands of rows, index builds) gets a
        64 MiB page cache for its duration, handed back when it ends: a cache
        that size kept after every edit filled up and stayed resident.

        `durable`: the commit is on disk when this returns, even across a power
        loss (`synchronous=FULL` for this transaction). Projections do without
        (they are rebuilt from the Markdown); the journal, receipts and guards
        of the write side need it, since a file is replaced only after its
        intent is journaled."""
        with self._write_lock:
            if durable:
                self._writer.execute("PRAGMA synchronous=FULL")
            if bulk:
                self._writer.execute(f"PRAGMA cache_size={BULK_CACHE_KIB}")
            try:
                self._writer.execute("BEGIN IMMEDIATE")
                try:
                    yield Tx(self._writer)
                except BaseException:
                    self._writer.execute("ROLLBACK")
                    raise
                self._writer.execute("COMMIT")
            finally:
                if durable:
                    self._writer.execute("PRAGMA synchronous=NORMAL")
                if bulk:
                    self._writer.execute(f"PRAGMA cache_size={WRITER_CACHE_KIB}")
                    self._writer.execute("PRAGMA shrink_memory")

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
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")
            with self._readers_lock:
                if len(self._readers) >= MAX_READERS:
                    self._close_readers_of_ended_threads()
                self._readers[key] = conn
        return conn

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

    def close(self) -> None:
        with self._readers_lock:
            readers, self._readers = list(self._readers.values()), {}
        for conn in readers:
            conn.close()
        with self._write_lock:
            self._writer.close()


class Tx:
    """The writer connection inside an open transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.conn.executemany(sql, rows)

    def executescript_in_tx(self, script: str) -> None:
        for statement in script.split(";"):
            if statement.strip():
                self.conn.execute(statement)
