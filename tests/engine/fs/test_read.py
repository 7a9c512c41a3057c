"""Reading one vault file whole (`fs/read.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from knowledge_desktop.engine.fs import read as read_module
from knowledge_desktop.engine.fs.read import read_file


def test_short_reads_still_give_the_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system that hands out a few bytes a call (some network ones do) still has the
    file read whole and steady, not taken for one being written."""
    path = tmp_path / "a.md"
    path.write_bytes(b"0123456789" * 50)
    real_read = os.read
    calls: list[int] = []

    def trickle(fd: int, size: int) -> bytes:
        calls.append(size)
        return real_read(fd, min(size, 7))

    monkeypatch.setattr(read_module.os, "read", trickle)
    read = read_file(str(path), 1 << 20)
    assert read.data == path.read_bytes()
    assert not read.changing
    assert len(calls) > 1  # (the reads were the trickling ones)


def test_a_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 100)
    read = read_file(str(path), 99)
    assert read.data is None
    assert read.size == 100
    assert read_file(str(path), 100).data == b"x" * 100
