"""Errors the environment causes, as opposed to bugs.

A missing folder, a file that is not a vault, a query that cannot be
answered as asked, a locked or full disk, a cancelled run: each of these is
something to tell the person in a sentence. Everything else is a bug and
deserves the crash dialog with its traceback. Every engine error of the
first kind derives from `KnownError`, so callers (the window, the CLI) tell
the two apart by one base class instead of keeping a list.
"""

from __future__ import annotations


class KnownError(Exception):
    """A problem of the vault, the disk or the request, with a message a person can act on."""


class VaultError(KnownError):
    """The folder cannot be opened as a vault."""


class VaultNotFound(VaultError):
    """The folder does not exist (or is not a folder)."""


class NotAVault(VaultError):
    """The folder exists but holds nothing that makes it a vault."""


class QueryError(KnownError, ValueError):
    """A query's options cannot be answered (an unknown filter, a bad date, a bad mode)."""


class Cancelled(KnownError):
    """A reconcile stopped before it changed anything, because its caller asked it to."""

    def __str__(self) -> str:
        return "cancelled before anything was changed"


class VaultGone(VaultError):
    """The vault folder was moved, deleted or unmounted while it was open."""


class StateError(KnownError):
    """`state.sqlite` cannot be used as it is: locked, full, damaged or gone.

    Raised before anything half-done is kept: a write that fails is rolled back.
    """


class StateLocked(StateError):
    """Another program holds the database's write lock longer than we wait."""


class StateWriteFailed(StateError):
    """Writing the database failed (disk full, I/O error, no permission); nothing was changed."""


class StateDamaged(StateError):
    """The database file is not readable as SQLite (truncated, overwritten)."""


class StateMissing(StateError):
    """The vault's `.knowledge/` folder or its database went away while the vault was open."""
