"""Atomic file writes: a temp file in the same folder, fsync, then os.replace.

A reader (or a crash) sees either the old bytes or the new bytes, never a
mix; the folder is fsynced too so the rename itself survives power loss,
and so is every folder the write had to create (a new `people/` would
otherwise be able to vanish with the file in it). A replaced file keeps its
permission bits: `mkstemp` creates 0600, which would hide a shared note
from the other people (and the web server) who could read it before.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, sync_folder: bool = True) -> None:
    """`sync_folder` False: the caller fsyncs `path.parent` itself once after a batch of writes
    (new folders are still synced here)."""
    folder = path.parent
    created = _make_folders(folder)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            with contextlib.suppress(OSError):
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_folder:
        fsync_folder(folder)
    for made in created:  # each new folder's entry lives in its parent
        fsync_folder(made.parent)


def remove_durably(path: Path) -> None:
    """Delete a file (if it is there) and make the deletion survive a power loss."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _make_folders(folder: Path) -> list[Path]:
    """Create `folder` and missing parents; the ones created, outermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        current = current.parent
    folder.mkdir(parents=True, exist_ok=True)
    return list(reversed(missing))


def _mode_for(path: Path) -> int:
    """The replaced file's permission bits; for a new file what `open` would give (umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
