"""Reading one vault file with a bound, and noticing when it changed while read.

A file is read in one call of at most its size plus one byte (never more
than `limit + 1`), so no file costs more memory than the limit whatever its
size, and a file over it is not read at all (its `stat` says so first).
Pipes and devices are refused rather than waited on. The file's stat is
taken before and after the read: when they differ, or the bytes read do not
match the size, someone wrote it meanwhile and it is read again, up to
`READ_ATTEMPTS` times.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

READ_ATTEMPTS = 3
"""Reads of a file that keeps changing before what was read is kept (marked `changing`)."""


@dataclass(frozen=True, slots=True)
class FileRead:
    data: bytes | None
    """The bytes, or None when the file is over the limit (then nothing was read)."""
    size: int
    mtime_ns: int
    inode: int
    """The stat after the read: what `data` corresponds to."""
    changing: bool = False
    """The file changed during every attempt; `data` is the last attempt's bytes."""


def read_file(path: str, limit: int) -> FileRead:
    """The bytes of the regular file at `path`, read whole when at most `limit` bytes.

    Raises `OSError` when it cannot be opened or is not a regular file."""
    last: FileRead | None = None
    for _ in range(READ_ATTEMPTS):
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)
        try:
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", path)
            if before.st_size > limit:
                return FileRead(None, before.st_size, before.st_mtime_ns, before.st_ino)
            # One byte past what stat said tells a file that grew; sized by the stat,
            # since `read(n)` sets aside n bytes first, whatever the file holds.
            data = _read_up_to(fd, before.st_size + 1)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if len(data) > limit:
            return FileRead(None, max(len(data), after.st_size), after.st_mtime_ns, after.st_ino)
        last = FileRead(data, after.st_size, after.st_mtime_ns, after.st_ino)
        steady = _identity(before) == _identity(after)
        if steady and len(data) == after.st_size:
            return last
    assert last is not None
    return FileRead(last.data, last.size, last.mtime_ns, last.inode, changing=True)


def _read_up_to(fd: int, size: int) -> bytes:
    """Up to `size` bytes of `fd`, fewer only at its end. Plain `os.read` calls rather than
    a buffered file object: a third less CPU per file in a cold scan's reading (issue 26);
    a short read (some network file systems) is followed by another, as a buffered read does."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _identity(st: os.stat_result) -> tuple[int, int, int]:
    """What any write changes (ctime too: `utime` can put an mtime back, not a ctime)."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
