"""A large write leaves no large write-ahead log behind: once the log is copied into the
database, the next write cuts it back to `WAL_KEEP_BYTES` (a million-record scan had left a
log as large as its database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.engine.store import db


def test_the_log_is_cut_back_after_a_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "WAL_KEEP_BYTES", 64 * 1024)
    store = db.Store(tmp_path / "state.sqlite")
    try:
        with store.write() as tx:
            tx.execute("CREATE TABLE filler (x BLOB)")
            tx.executemany("INSERT INTO filler VALUES (randomblob(4096))", [()] * 1000)
        wal = tmp_path / "state.sqlite-wal"
        assert wal.stat().st_size > 4 * 1024 * 1024  # the big transaction went through the log
        store.checkpoint()
        with store.write() as tx:
            tx.execute("INSERT INTO filler VALUES (x'00')")
        assert wal.stat().st_size <= 64 * 1024
    finally:
        store.close()
