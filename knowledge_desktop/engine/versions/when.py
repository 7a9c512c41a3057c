"""Where a past version comes from: the app's checkpoint repository or the user's own Git.

`at` arguments (`knowledge show --at`, `knowledge diff --from/--to`, the as-of view) are
either a commit id, full or a unique prefix of at least 7 hex digits, or a date: a bare
`YYYY-MM-DD` means the end of that day in UTC, anything else is an ISO date-time (no
zone: UTC). Both repositories are only ever opened to read (issue 15, §1: the user's
repository is read-only to the app; the checkpoint repository is written by
`engine/write/checkpoints.py` alone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.fs.inside import inside
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history.repo import ensure_sound
from knowledge_desktop.engine.lazy import lazy_module

if TYPE_CHECKING:
    import pygit2
else:
    pygit2 = lazy_module("pygit2")  # imported by the first history read (engine/lazy.py)

CHECKPOINT_BRANCH = hrepo.BRANCH
CHECKPOINT, USER_GIT = "checkpoint", "user-git"
HEX = re.compile(r"[0-9a-fA-F]{7,40}")
MIN_PREFIX = 7


@dataclass(frozen=True, slots=True)
class Moment:
    """A parsed `at`: a commit prefix or an instant (UTC)."""

    commit: str | None = None
    instant: datetime | None = None
    text: str = ""


def _compact_date(value: str) -> bool:
    """Eight digits that make a date (`20261202`) are read as that date; any other run of hex
    digits, eight decimal ones included (`12035592`), is a commit prefix (give nine or more
    digits for a commit whose first eight look like a date)."""
    if not re.fullmatch(r"\d{8}", value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def parse_at(text: str) -> Moment:
    """A commit prefix or an instant; a QueryError that says what is accepted otherwise."""
    value = text.strip()
    if HEX.fullmatch(value) and not _compact_date(value):
        return Moment(commit=value.lower(), text=value)
    if value == "now":
        return Moment(instant=datetime.now(UTC), text=value)
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            day = date.fromisoformat(value)
            end = datetime.combine(day + timedelta(days=1), time(), UTC) - timedelta(microseconds=1)
            return Moment(instant=end, text=value)
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise QueryError(
            f"{text!r} is neither a commit id (at least {MIN_PREFIX} hex digits) nor a date "
            "(YYYY-MM-DD or an ISO date-time)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return Moment(instant=parsed.astimezone(UTC), text=value)


# -- the two repositories ------------------------------------------------------------------
def checkpoint_repo(state_dir: Path) -> Any:
    """The app's checkpoint repository, or None (none yet, or no commit yet); a QueryError
    when it is there but cannot be read, so that a broken repository is never mistaken
    for a record that did not exist."""
    path = state_dir / hrepo.REPO_DIR
    if not hrepo.HAVE_PYGIT2 or not path.is_dir():
        return None
    try:
        repo = hrepo.open_repo(state_dir, create=False)
        ref = repo.references.get(CHECKPOINT_BRANCH)
        tip = ref.target if ref is not None else None
    except (pygit2.GitError, OSError, ValueError) as exc:
        raise QueryError(f"the checkpoint repository cannot be read ({exc}): {path}") from None
    return repo if tip is not None else None


def checkpoint_tip(repo: Any) -> Any:
    """The newest checkpoint commit id, or None."""
    try:
        ref = repo.references.get(CHECKPOINT_BRANCH)
        if ref is not None:
            return ref.target
        return None if repo.head_is_unborn else repo.head.target
    except (pygit2.GitError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class UserRepo:
    """The user's own repository around a vault, opened to read."""

    repo: Any
    prefix: str
    """The vault root relative to the repository's working folder (`""` or `a/b/`)."""

    def repo_path(self, vault_path: str) -> str:
        return f"{self.prefix}{vault_path}"

    def vault_path(self, repo_path: str) -> str | None:
        """The vault-relative path of a repository path, or None when outside the vault."""
        if not repo_path.startswith(self.prefix):
            return None
        return repo_path[len(self.prefix) :]


def user_repo(root: Path, state_dir: Path) -> UserRepo | None:
    """The Git repository the vault folder lies in, if any and not the app's own.

    Found by searching upward from the vault root, as Git does. A bare repository, one
    without commits, or one whose folder lies in the app's state folder is not the
    user's working history and is ignored.
    """
    if not hrepo.HAVE_PYGIT2:
        return None
    try:
        found = pygit2.discover_repository(str(root))
        if not found:
            return None
        git_dir = Path(found).resolve()
        if inside(str(state_dir.resolve()), str(git_dir)) or git_dir.name == hrepo.REPO_DIR:
            return None
        repo = pygit2.Repository(str(git_dir), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        if repo.is_bare or repo.head_is_unborn or repo.workdir is None:
            return None
        workdir = Path(repo.workdir).resolve()
        rel = root.resolve().relative_to(workdir)
    except (pygit2.GitError, OSError, ValueError, KeyError):
        return None
    prefix = "" if str(rel) in ("", ".") else f"{PurePosixPath(rel.as_posix())}/"
    return UserRepo(repo, prefix)


def lookup_commit(repo: Any, prefix: str) -> Any:
    """The commit a full id or unique prefix names in `repo`, or None; a QueryError when the
    prefix is ambiguous."""
    if repo is None:
        return None
    try:
        found = repo.get(prefix)
    except ValueError as exc:
        raise QueryError(f"commit prefix {prefix!r} is ambiguous: give more digits") from exc
    except (pygit2.GitError, KeyError):
        return None
    if found is None or not isinstance(found, pygit2.Commit):
        return None
    return found


def newest_at_or_before(repo: Any, tip: Any, instant: datetime, max_commits: int = 100_000) -> Any:
    """The newest commit on `tip`'s first-parent line made at or before `instant`."""
    # Followed parent by parent: a walk sorted by time alone puts a parent first when two
    # commits share a second (a publication right after the baseline), and would answer
    # with the older one.
    limit = int(instant.timestamp())
    oid = tip
    for _ in range(max_commits):
        ensure_sound(repo, oid)
        commit = repo[oid]
        if commit.author.time <= limit:
            return commit
        if not commit.parent_ids:
            return None
        oid = commit.parent_ids[0]
    return None


def blob_at(tree: Any, path: str) -> Any:
    """The blob at `path` in `tree`, or None (absent, or not a file)."""
    try:
        entry = tree[path]
    except (KeyError, ValueError):
        return None
    return entry if isinstance(entry, pygit2.Blob) else None
