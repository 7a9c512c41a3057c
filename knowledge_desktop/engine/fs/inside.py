"""Reading a file named by a path someone wrote, without leaving the vault.

The walk (`fs/walk.py`) never lists what a symbolic link outside the vault
points at, but some reads start from a path rather than from the walk: an
evidence `path` written in a record, a catalog path `show` reads the body
of, a manifest in `ontologies/`. Those go through here. A path is read only
when its real location, after every link on the way (a linked file or a
linked folder), is inside the vault folder, and only when it is a regular
file: a FIFO would block the reader forever and `/dev/zero` would fill the
memory, both reachable through one link in a hostile vault.

Refusals are `OSError`s with a `strerror` a person understands, so the
callers' usual `except OSError` turns them into a diagnostic or a notice.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class LeavesVault(OSError):
    """The path, or a symbolic link on the way to it, leads outside the vault."""

    def __init__(self, rel: str) -> None:
        super().__init__(errno.EACCES, "it leads outside the vault", rel)


class NotRegularFile(OSError):
    """The path names a folder, a FIFO, a socket or a device, not a file."""

    def __init__(self, rel: str) -> None:
        super().__init__(errno.EINVAL, "it is not a regular file", rel)


def inside(root_real: str, real: str) -> bool:
    """Whether the real path `real` lies in the folder whose real path is `root_real`."""
    return real.startswith(root_real.rstrip(os.sep) + os.sep)


def real_path(root: Path, rel: str) -> str:
    """The real location of vault-relative `rel`; `LeavesVault` when it is absolute,
    climbs out with `..`, or a symbolic link on the way leads out of the vault."""
    if not rel or os.path.isabs(rel) or rel.startswith(("/", "\\")):
        raise LeavesVault(rel)
    root_real = os.path.realpath(root)
    real = os.path.realpath(os.path.join(root_real, rel))
    if not inside(root_real, real):
        raise LeavesVault(rel)
    return real


def open_inside(root: Path, rel: str) -> BinaryIO:
    """Open vault-relative `rel` for reading: a regular file inside the vault, else an OSError.

    The real path is opened without following a link in its last part (one
    swapped in after the check is refused) and without blocking on a FIFO."""
    real = real_path(root, rel)
    fd = os.open(real, _OPEN_FLAGS | _NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(rel)
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_inside(root: Path, rel: str, limit: int | None = None) -> bytes:
    """The bytes of vault-relative `rel` (see `open_inside`); an OSError over `limit` bytes."""
    with open_inside(root, rel) as handle:
        if limit is not None and os.fstat(handle.fileno()).st_size > limit:
            raise OSError(errno.EFBIG, f"it is larger than {limit:,} bytes", rel)
        return handle.read()
