"""A broken, locked, full or vanished state: the projections are rebuilt or the person is told
exactly what is wrong, and a loss of durable tables is reported, never hidden (spec:
retrieval-and-dates, keeping state.sqlite; ARCHITECTURE.md, vault layout)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop import cli
from knowledge_desktop.engine.errors import (
    StateDamaged,
    StateLocked,
    StateMissing,
    StateWriteFailed,
    VaultGone,
)
from knowledge_desktop.engine.store import db as db_module
from knowledge_desktop.engine.vault import Vault
from tests import faultkit as fk
from tests.vaultkit import VaultKit

STATE = Path(".knowledge/state.sqlite")


@pytest.fixture
def indexed(kit: VaultKit, tmp_path: Path) -> tuple[VaultKit, dict[str, list[Any]]]:
    """A small generated vault, indexed, whose durable tables each hold a row."""
    fk.make_vault(kit.root, 60, seed=5, body_max=400)
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        vault.index_keywords()
    return kit, fk.seed_durable(kit.root / STATE)


def _consistent(kit: VaultKit, tmp_path: Path, durable: dict[str, list[Any]] | None = None) -> list[str]:
    return fk.check_next_open(kit.root, fk.reference(kit.root, tmp_path / "reference"), durable)


def _codes(kit: VaultKit) -> dict[str, str]:
    with Vault.open(kit.root) as vault:
        return {d.code: d.message for d in vault.vault_diagnostics()}


def _drop_side_files(root: Path) -> None:
    for suffix in ("-wal", "-shm"):
        (root / f"{STATE}{suffix}").unlink(missing_ok=True)


# -- a damaged file -------------------------------------------------------------------------


def test_an_emptied_state_database_is_reported_as_lost(indexed: Any, tmp_path: Path) -> None:
    """Truncated to nothing: a new database, rebuilt projections, and a standing error."""
    kit, _ = indexed
    (kit.root / STATE).write_bytes(b"")
    _drop_side_files(kit.root)
    codes = _codes(kit)
    assert "state.sqlite was emptied" in codes["state-missing"]
    assert [p for p in _consistent(kit, tmp_path) if "state-missing" not in p] == []


def test_an_empty_state_file_from_a_first_open_stopped_early_is_no_damage(kit: VaultKit) -> None:
    """Killed between SQLite making the file and the first commit (the manifest is not yet
    written): the next open starts afresh, sets nothing aside and reports nothing."""
    fk.make_vault(kit.root, 5, seed=3, body_max=200)
    (kit.root / STATE).parent.mkdir()
    (kit.root / STATE).write_bytes(b"")
    assert _codes(kit) == {}
    assert [p.name for p in (kit.root / ".knowledge").iterdir() if "corrupt" in p.name] == []


def _set_aside(kit: VaultKit) -> list[Path]:
    return [
        p
        for p in (kit.root / ".knowledge").iterdir()
        if p.name.startswith("state.sqlite.corrupt-") and not p.name.endswith(("-wal", "-shm"))
    ]


def test_a_state_database_overwritten_with_garbage_is_set_aside_and_its_loss_reported(
    indexed: Any, tmp_path: Path
) -> None:
    """Overwritten: the file is kept aside as it was, the index is rebuilt from the Markdown,
    and every durable table that could not be read is named as lost."""
    kit, _ = indexed
    path = kit.root / STATE
    path.write_bytes(os.urandom(path.stat().st_size))
    kept = path.read_bytes()
    _drop_side_files(kit.root)
    message = _codes(kit)["state-damaged"]
    assert "not an SQLite database" in message
    assert "keyword_withdrawals_v1, lifecycle_guards_v1" in message
    assert [p.read_bytes() == kept for p in _set_aside(kit)] == [True]
    assert _set_aside(kit)[0].name in message
    assert [p for p in _consistent(kit, tmp_path) if "state-damaged" not in p] == []


@pytest.mark.parametrize("cut", ["half", "last page"])
def test_a_truncated_state_database_is_set_aside_and_its_durable_rows_carried_over(
    indexed: Any, tmp_path: Path, cut: str
) -> None:
    """Cut short: SQLite refuses the file, so it is set aside and the index rebuilt; the
    durable tables are still readable from it and come over, and the repair is reported."""
    kit, durable = indexed
    path = kit.root / STATE
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _drop_side_files(kit.root)
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2 if cut == "half" else size - 4096)
    codes = _codes(kit)
    assert "state-damaged" not in codes
    assert "cut short" in codes["state-repaired"]
    assert "nothing was lost" in codes["state-repaired"]
    assert len(_set_aside(kit)) == 1
    problems = _consistent(kit, tmp_path, durable)
    assert [p for p in problems if "state-repaired" not in p] == []


def test_a_page_found_damaged_while_open_is_an_error_and_the_next_open_repairs_it(
    indexed: Any, tmp_path: Path
) -> None:
    """Garbage in one catalog page (no open-time check reads it): the query that meets it
    raises `StateDamaged` with what to do, and the next open checks every page, sets the
    file aside, carries the durable tables over and rebuilds."""
    kit, durable = indexed
    path = kit.root / STATE
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute(
            "SELECT pageno FROM dbstat WHERE name='catalog' AND pagetype='leaf' LIMIT 1"
        ).fetchone()[0]
    conn.close()
    _drop_side_files(kit.root)
    with path.open("r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(b"\xff" * 4096)  # no page type SQLite knows
    with Vault.open(kit.root) as vault, pytest.raises(StateDamaged, match="reopen the vault"):
        vault.records(limit=1000)  # reads every catalog row (the counts are running totals)
    codes = _codes(kit)
    assert "nothing was lost" in codes["state-repaired"]
    assert len(_set_aside(kit)) == 1
    problems = _consistent(kit, tmp_path, durable)
    assert [p for p in problems if "state-repaired" not in p] == []


def test_a_garbage_write_ahead_log_is_ignored(indexed: Any, tmp_path: Path) -> None:
    """A WAL that is not one (bad header, bad checksums) is skipped by SQLite: committed
    state stays, nothing is reported."""
    kit, durable = indexed
    (kit.root / f"{STATE}-wal").write_bytes(os.urandom(64 * 1024))
    assert _codes(kit) == {}
    assert _consistent(kit, tmp_path, durable) == []


# -- a locked or full database ------------------------------------------------------------------


@pytest.fixture
def locked(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database's write lock; writes give up after 0.2 s."""
    kit, _ = indexed
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)
    with fk.lock_held(kit.root / STATE) as holder:
        kit.page("private/notes/while-locked.md", "pg_locked", "Written while locked")
        yield holder


def test_a_state_database_locked_by_another_process_names_it(
    locked: subprocess.Popen[str], kit: VaultKit
) -> None:
    """The write that waits too long says who holds the lock and what to do."""
    with Vault.open(kit.root) as vault, pytest.raises(StateLocked) as caught:
        vault.reconcile()
    assert f"pid {locked.pid}" in str(caught.value)
    assert "is locked by another program" in str(caught.value)


def test_the_cli_reports_a_lock_in_one_line_with_exit_code_4(
    locked: subprocess.Popen[str], kit: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI: a state problem is exit code 6 and one line on stderr, no traceback."""
    assert cli.main(["scan", str(kit.root)]) == cli.EXIT_STATE == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("knowledge: ")
    assert "is locked by another program" in err
    assert "Traceback" not in err


def test_a_full_disk_while_writing_projections_changes_nothing(indexed: Any, tmp_path: Path) -> None:
    """SQLite's own full condition (max_page_count) mid-reconcile: a `StateWriteFailed` that
    says so, the database as it was, and the same vault consistent once there is room."""
    kit, durable = indexed
    before = fk.dump(kit.root / STATE)
    with Vault.open(kit.root) as vault:
        writer = vault.store._writer
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        free = writer.execute("PRAGMA freelist_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count={pages - free + 1}")
        body = "A long body of many words to fill pages. " * 200
        for n in range(80):
            kit.page(f"private/notes/full-{n}.md", f"pg_full{n}", f"Full {n}", body=body, type="note")
        with pytest.raises(StateWriteFailed, match="the disk is full"):
            vault.reconcile()
        after = fk.dump(kit.root / STATE)
        assert (after.projections, after.durable, after.integrity) == (
            before.projections,
            before.durable,
            ["ok"],
        )
        writer.execute("PRAGMA max_page_count=1073741823")
        vault.reconcile()  # the same open vault goes on once there is room
        vault.index_keywords()
    assert _consistent(kit, tmp_path, durable) == []


# -- a vanished state or vault folder ------------------------------------------------------------


def test_a_deleted_state_folder_is_reported_when_the_vault_is_opened_again(indexed: Any) -> None:
    """`.knowledge/` removed while closed: the vault was opened before (the user's state
    folder remembers it), so the loss is reported and the vault keeps its id."""
    kit, _ = indexed
    with Vault.open(kit.root) as vault:
        vault_id = vault.vault_id
    shutil.rmtree(kit.root / ".knowledge")
    with Vault.open(kit.root) as vault:
        assert vault.vault_id == vault_id
        found = {d.code: d.message for d in vault.vault_diagnostics()}
    assert "the vault's .knowledge/ folder was deleted" in found["state-missing"]


def test_a_state_folder_deleted_while_open_is_written_back_and_reported(indexed: Any, tmp_path: Path) -> None:
    """`.knowledge/` removed while open: the open database is written back (nothing lost), the
    next reconcile says so, and writes stop until the vault is opened again."""
    kit, durable = indexed
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        shutil.rmtree(kit.root / ".knowledge")
        kit.page("private/notes/after.md", "pg_after", "After the deletion")
        with pytest.raises(StateMissing, match="written back"):
            vault.reconcile()
        assert (kit.root / STATE).exists()
        with pytest.raises(StateMissing):
            vault.reconcile(["private/notes/after.md"])
        assert vault.info()["stateWritable"] is False
    assert _codes(kit) == {}
    assert _consistent(kit, tmp_path, durable) == []


def test_a_state_folder_deleted_before_closing_is_written_back_on_close(indexed: Any, tmp_path: Path) -> None:
    """Deleted after the last reconcile: closing writes the open database back."""
    kit, durable = indexed
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        shutil.rmtree(kit.root / ".knowledge")
    assert _codes(kit) == {}
    assert _consistent(kit, tmp_path, durable) == []


@pytest.mark.parametrize("how", ["deleted", "renamed", "emptied"])
def test_a_vault_folder_gone_while_open_is_an_error_not_an_empty_vault(
    kit: VaultKit, tmp_path: Path, how: str
) -> None:
    """Deleted, moved or unmounted (an empty mount point) while open: reconcile says so and
    leaves the index as it was, instead of taking every file for deleted."""
    fk.make_vault(kit.root, 30, seed=2, body_max=300)
    vault = Vault.open(kit.root)
    try:
        vault.reconcile()
        before = vault.counts()
        if how == "renamed":
            kit.root.rename(tmp_path / "elsewhere")
        else:
            shutil.rmtree(kit.root)
            if how == "emptied":
                kit.root.mkdir()
        with pytest.raises(VaultGone, match="moved, deleted or unmounted"):
            vault.reconcile()
        assert vault.counts() == before
    finally:
        vault.close()
    if how == "emptied":
        assert list(kit.root.iterdir()) == []  # closing wrote nothing into the empty folder


# -- a read-only vault -----------------------------------------------------------------------


def _refuse_writes_under(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a read-only mount does to us, as root too (root ignores permission bits)."""
    real_access, real_mkdir = os.access, Path.mkdir

    def access(path: Any, mode: int, **kw: Any) -> bool:
        if mode & os.W_OK and str(path).startswith(str(root)):
            return False
        return real_access(path, mode, **kw)

    def mkdir(self: Path, *args: Any, **kw: Any) -> None:
        if str(self).startswith(str(root)) and not self.exists():
            raise PermissionError(13, "Read-only file system", str(self))
        real_mkdir(self, *args, **kw)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(Path, "mkdir", mkdir)


def test_a_read_only_vault_indexed_before_opens_without_a_false_loss(
    indexed: Any, monkeypatch: pytest.MonkeyPatch, user_folders: Path
) -> None:
    """A vault with its own `.knowledge/` that became read-only: state in the cache folder,
    `info()` says read-only, and no loss is reported (its state is where it was)."""
    kit, _ = indexed
    _refuse_writes_under(kit.root, monkeypatch)
    with Vault.open(kit.root) as vault:
        assert vault.info()["readOnly"] is True
        assert str(vault.state_dir).startswith(str(user_folders))
        vault.reconcile()
        assert vault.counts()["records"] > 0
        assert vault.vault_diagnostics() == []


OPEN_READ_ONLY = """
import json, os, sys
from pathlib import Path
from knowledge_desktop.engine.vault import Vault

root = Path(sys.argv[1])
with Vault.open(root) as vault:
    vault.reconcile()
    print(json.dumps({
        "mayWrite": os.access(root, os.W_OK),
        "readOnly": vault.read_only,
        "stateDir": str(vault.state_dir),
        "records": vault.counts()["records"],
    }))
"""
"""Open a vault, reconcile, and say what the open made of it (run in a child process)."""
DROP_ROOTS_OVERRIDE = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all"]
"""`setpriv` options that take from a root child the capabilities that let root write
through permission bits (the interpreter lives under /root, out of another user's reach,
so the child keeps uid 0 but not its power over modes)."""


def test_a_folder_without_write_permission_opens_read_only(kit: VaultKit, user_folders: Path) -> None:
    """The same with real permissions: every folder 0555. The open runs in a child; as root
    (here and in CI), one started by `setpriv` without the capabilities that bypass mode
    bits, so that they bind there too (the child's own `access` check proves it)."""
    fk.make_vault(kit.root, 20, seed=2, body_max=300)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root, and no setpriv (util-linux) to drop its override of mode bits")
        prefix = [setpriv, *DROP_ROOTS_OVERRIDE]
    for folder, _, _ in os.walk(kit.root):
        os.chmod(folder, 0o555)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", OPEN_READ_ONLY, str(kit.root)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        for folder, _, _ in os.walk(kit.root):
            os.chmod(folder, 0o755)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["mayWrite"] is False
    assert answer["readOnly"] is True
    assert answer["stateDir"].startswith(str(user_folders))
    assert answer["records"] > 0
