"""SQLite's environment failures, in words a person can act on.

SQLite reports a full disk, a lock held by another program, a damaged file
or an I/O error as `sqlite3.DatabaseError`s, the same class as a bug in our
SQL. `known` turns the first kind (told apart by SQLite's primary result
code, never by message text alone) into the engine's `StateError`s, so the
CLI prints one line and the window shows a message instead of the crash
dialog; for anything else it returns None and the error stays a bug.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from knowledge_desktop.engine.errors import StateDamaged, StateError, StateLocked, StateWriteFailed

# SQLite's primary result codes (https://sqlite.org/rescode.html)
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY = 3, 5, 6, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN = 10, 11, 13, 14
SQLITE_NOTADB = 26

DAMAGED_CODES = frozenset({SQLITE_CORRUPT, SQLITE_NOTADB})
SUSPECT = ".suspect"
"""Beside a database found damaged while open: the next open checks all of it (`suspect`)."""


def primary_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of an error, or None for an error that is not SQLite's."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite found the file itself unreadable (not a database, malformed)."""
    return primary_code(exc) in DAMAGED_CODES


def damage_met(exc: BaseException) -> bool:
    """Whether an error a command raised means the database is damaged: SQLite's own error
    (a row read by iterating a cursor) or the `StateDamaged` a query or write turned it into."""
    return isinstance(exc, StateDamaged) or is_damage(exc)


def note_damage(path: Path) -> None:
    """Leave word that the database at `path` was found damaged, for its next open."""
    with contextlib.suppress(OSError):
        path.with_name(path.name + SUSPECT).touch()


def suspect(path: Path) -> Path:
    """The file whose presence says the database at `path` was found damaged while open."""
    return path.with_name(path.name + SUSPECT)


def known(exc: BaseException, path: Path) -> StateError | None:
    """The `StateError` for an environment failure on the database at `path`; else None.
    Damage is also noted for the next open (`note_damage`)."""
    code = primary_code(exc)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return StateLocked(locked_message(path))
    if code == SQLITE_FULL:
        return StateWriteFailed(
            f"cannot write {path}: the disk is full (SQLite: {exc}); nothing was changed — free some "
            "space and reopen the vault"
        )
    if code in (SQLITE_IOERR, SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN):
        return StateWriteFailed(f"cannot use {path}: {exc}; nothing was changed")
    if code in DAMAGED_CODES:
        note_damage(path)
        return StateDamaged(
            f"{path} is damaged ({exc}); reopen the vault to set the damaged file aside and rebuild "
            "the index from the Markdown"
        )
    return None


def locked_message(path: Path) -> str:
    """Who holds the lock, when the system says (Linux's /proc/locks), and what to do."""
    holders = lock_holders([path, path.with_name(path.name + "-shm"), path.with_name(path.name + "-wal")])
    holders.pop(os.getpid(), None)
    who = (
        "another program (" + ", ".join(f"pid {pid}: {name}" for pid, name in sorted(holders.items())) + ")"
        if holders
        else "another program"
    )
    return (
        f"{path} is locked by {who}; close other Knowledge Desktop windows or `knowledge` commands "
        "using this vault, then try again"
    )


def lock_holders(paths: list[Path], proc: Path = Path("/proc")) -> dict[int, str]:
    """Processes holding a POSIX or flock lock on any of `paths`: pid -> command name."""
    inodes: set[tuple[int, int, int]] = set()
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        inodes.add((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
    try:
        lines = (proc / "locks").read_text("ascii", errors="replace").splitlines()
    except OSError:
        return {}
    found: dict[int, str] = {}
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, listed under the lock it waits for
            parts.remove("->")
        if len(parts) < 6:
            continue
        try:
            pid = int(parts[4])
            major, minor, inode = parts[5].split(":")
            key = (int(major, 16), int(minor, 16), int(inode))
        except ValueError:
            continue
        if key in inodes:
            found[pid] = _command(proc, pid)
    return found


def _command(proc: Path, pid: int) -> str:
    try:
        return (proc / str(pid) / "comm").read_text("utf-8", errors="replace").strip() or "?"
    except OSError:
        return "?"
