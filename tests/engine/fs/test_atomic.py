"""Atomic writes and the vault's write lock (ARCHITECTURE.md: temp file in the same folder,
fsync, os.replace, fsync of the folder; issue 14: one publish path, crash-safe)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from knowledge_desktop.engine.fs import atomic
from knowledge_desktop.engine.fs.lock import LockBusy, exclusive


def test_a_write_goes_through_a_synced_temp_file_and_syncs_every_new_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bytes are fsynced in a temp file in the target folder, renamed over the target,
    and the folder (and each folder the write created, in its parent) is fsynced after."""
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: str, dst: object) -> None:
        events.append(("replace", os.path.dirname(src)))
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = tmp_path / "new" / "deeper" / "note.md"
    atomic.write_atomic(target, b"hello")
    assert target.read_bytes() == b"hello"
    kinds = [k for k, _ in events]
    assert kinds.index("replace") > kinds.index("fsync")  # the file is on disk before the rename
    assert events[kinds.index("replace")] == ("replace", str(target.parent))
    synced_after = {p for k, p in events[kinds.index("replace") :] if k == "fsync"}
    assert {str(target.parent), str(tmp_path / "new"), str(tmp_path)} <= synced_after
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    """A shared note stays readable by others after a save (mkstemp alone would make it 0600)."""
    target = tmp_path / "note.md"
    target.write_bytes(b"old")
    target.chmod(0o644)
    atomic.write_atomic(target, b"new")
    assert (target.stat().st_mode & 0o777, target.read_bytes()) == (0o644, b"new")
    fresh = tmp_path / "fresh.md"
    atomic.write_atomic(fresh, b"x")
    mask = os.umask(0)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask


def test_the_write_lock_is_exclusive_across_holders(tmp_path: Path) -> None:
    """A second holder (another process, or another open of the vault) waits, then gives up."""
    lock = tmp_path / "write.lock"
    with exclusive(lock, 1.0):
        failed: list[bool] = []

        def other() -> None:
            try:
                with exclusive(lock, 0.1):
                    failed.append(False)
            except LockBusy:
                failed.append(True)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert failed == [True]
    with exclusive(lock, 0.0):
        pass  # free again once released
