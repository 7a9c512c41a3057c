"""One writer per vault across processes: an advisory lock on a file in the state folder.

The window and any number of `knowledge` commands may have one vault open.
Every publish holds this lock from its first check to its receipt, so two
writers never interleave their files, and a journal entry left `pending`
while nobody holds the lock belongs to a process that died (the kernel
drops a `flock` with its holder, SIGKILL included): the next open may
finish it. Where `fcntl` does not exist (Windows) the lock is a no-op and
only the in-process lock serialises writers.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we ship
    fcntl = None  # type: ignore[assignment]

POLL_S = 0.02


class LockBusy(Exception):
    """Another process held the lock for longer than the caller would wait."""


@contextlib.contextmanager
def exclusive(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock on `path` (created when missing); `LockBusy` after `timeout` seconds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while not _try(fd):
            if time.monotonic() >= deadline:
                raise LockBusy(str(path))
            time.sleep(POLL_S)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


def is_held(path: Path) -> bool:
    """Whether a writer holds the lock on `path` now — one in this process too, since a
    `flock` belongs to the open file, and this opens the file again. Tested by taking the
    lock without waiting and letting it go at once (a writer that meets it in that instant
    polls again, `POLL_S` later). False without `fcntl` and when the file does not exist (no
    one ever wrote)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        if not _try(fd):
            return True
        _release(fd)
        return False
    finally:
        os.close(fd)


def _try(fd: int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _release(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
