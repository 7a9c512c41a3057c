"""A large reconcile is read, parsed and written a chunk at a time (`reconcile.CHUNK`), so a
cold scan's memory follows the graph rather than the vault's bytes (issue 26 §3). These
tests hold it to what the one-transaction scan gave: the same rows in every projection, and
a kill between two chunks that the next open completes into the same state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine import reconcile
from knowledge_desktop.engine.store.db import BULK_CACHE_KIB, CHUNK_CACHE_KIB, Store, Tx
from knowledge_desktop.engine.vault import Vault
from tests import faultkit as fk

RECORDS = 1600
"""Files enough for worker processes to parse them (`PARALLEL_THRESHOLD`), so the chunks
pass through the pipelined read too."""
SMALL = 400
KILLED_RECORDS = 500
KILLED_CHUNK = 150
_WRITE_SNAPSHOT = reconcile._write_snapshot
"""Called inside each write of projections, with its transaction."""


def _scan(
    root: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, caches: set[int] | None = None
) -> tuple[fk.Dump, int, int]:
    """A cold scan of `root` into a state folder of its own: its dump, how many write
    transactions it ran (counted by wrapping `Store.write`) and the size of the
    write-ahead log it left (closing the store empties it). `caches`: filled with the
    page cache sizes its writes of projections ran with."""
    if caches is not None:

        def noted(tx: Tx, *args: Any) -> None:
            caches.add(tx.execute("PRAGMA cache_size").fetchone()[0])
            _WRITE_SNAPSHOT(tx, *args)

        monkeypatch.setattr(reconcile, "_write_snapshot", noted)
    folder.mkdir(parents=True)
    db = folder / "state.sqlite"
    store = Store(db)
    writes = 0
    write = store.write

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal writes
        writes += 1
        return write(*args, **kwargs)  # type: ignore[arg-type]

    store.write = counted  # type: ignore[method-assign]
    vault = Vault(root.resolve(), folder, store, False, "vlt_chunks")
    try:
        vault.reconcile()
        log = (folder / "state.sqlite-wal").stat().st_size
    finally:
        vault.close()
    return fk.dump(db), writes, log


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chunked") / "vault"
    fk.make_vault(root, RECORDS, seed=7, body_max=400)
    return root


def test_a_scan_in_chunks_writes_what_one_transaction_wrote(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every projection's rows, the search text (a bulk run indexes it, chunk by chunk)
    and the graph snapshot included, equal after a scan in chunks of 400 files and after
    one that reads every file before writing any; and the write-ahead log did not grow by
    every chunk."""
    monkeypatch.setattr(reconcile, "BULK_ROWS", 500)  # the bulk path (text indexed in the scan)
    monkeypatch.setattr(reconcile, "CHUNK", 10**9)
    whole_caches: set[int] = set()
    whole, whole_writes, whole_log = _scan(generated, tmp_path / "whole", monkeypatch, whole_caches)
    monkeypatch.setattr(reconcile, "CHUNK", SMALL)
    chunked_caches: set[int] = set()
    chunked, chunked_writes, chunked_log = _scan(generated, tmp_path / "chunked", monkeypatch, chunked_caches)
    files = len(chunked.stats)
    assert files >= RECORDS
    assert chunked.integrity == ["ok"]
    assert not chunked.fts_problems
    assert not fk.differences(chunked, whole)
    assert chunked.projections == whole.projections
    assert chunked_writes >= -(-files // SMALL) > whole_writes  # it did write chunk by chunk
    # The log is reused between chunks (`Store.checkpoint`): without, it held every chunk
    # (38 MiB here, twice the one transaction's 19 MiB; 14 MiB with).
    assert chunked_log < whole_log
    # One chunk of many inserts into built indexes with the smaller page cache, on top of
    # the graph filled so far; a whole scan builds its indexes after with the larger one.
    assert whole_caches == {BULK_CACHE_KIB}
    assert chunked_caches == {CHUNK_CACHE_KIB}


def test_a_kill_between_two_chunks_leaves_a_state_the_next_open_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`knowledge scan` killed right after its first chunk committed: the state holds that
    chunk's files (a vault not all read yet), and the next open reads the rest into the
    state a fresh scan of the whole vault makes."""
    generated, home = tmp_path / "vault", tmp_path / "home"
    fk.make_vault(generated, KILLED_RECORDS, seed=5, body_max=300)
    env = fk.app_env(home)
    for variable, value in env.items():
        if variable.startswith("XDG_"):
            monkeypatch.setenv(variable, value)  # the check opens the vault as the CLI did
    scan = ["tests.small_chunks", str(KILLED_CHUNK), "scan", str(generated)]
    left = None
    with fk.Launcher() as launcher:
        for n in range(1, 20):  # the transactions before the first chunk's: the store's own
            fk.wipe_state(generated, home)
            run = launcher.run(scan, env=env, kill_at=f"committed:{n}")
            assert run.killed, f"the scan ended before its transaction {n} committed: {run.stderr}"
            left = fk.state_after_kill(generated)
            if left is not None and "files" in left.projections and left.projections["files"]:
                print(f"the first chunk committed with transaction {n}")
                break
    assert left is not None
    assert left.integrity == ["ok"]
    assert len(left.stats) == KILLED_CHUNK  # one chunk written, the others not yet read
    problems = fk.check_next_open(generated, fk.reference(generated, tmp_path / "reference"))
    assert not problems, "\n".join(problems)
