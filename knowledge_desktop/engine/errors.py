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


class VaultRefused(VaultError):
    """The folder is one no vault can be: the root of a file system, the home folder or a
    folder above it, or one holding far more files than notes (`fs/refused.py`). Nothing
    is written to it: the refusal comes before `.knowledge/` is made."""


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


class ApiError(KnownError):
    """A call of the knowledge API for extensions cannot be answered as asked
    (spec: facts-entities-collections-api)."""


class PermissionRefused(ApiError):
    """An extension called for something it has no grant for; the message carries
    `lacks knowledge permission <permission>` (spec: Permission strings, the two ways of failing)."""


class QuotaExceeded(ApiError):
    """An extension's write goes past its daily quota or a single write's limit (spec: Write rules);
    the message contains `quota` or names the limit."""


class UnknownExtension(ApiError):
    """No extension of that name is installed in the vault."""


class ManifestInvalid(ApiError):
    """An extension manifest fails the install checks; `errors` lists every one of them."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = list(errors)
        super().__init__("invalid extension manifest:\n" + "\n".join(f"  {e}" for e in self.errors))


class NoEntity(ApiError):
    """A ref names no entity any more (deleted), or never did; the message contains `no entity`."""


class WriteTooLarge(ApiError):
    """One write of an extension is over a single-write limit (spec: Write rules)."""
