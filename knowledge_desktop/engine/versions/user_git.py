"""A file's commits in the user's own Git repository, following renames (issue 15, §1).

Read-only: the repository is walked and diffed in memory, nothing is written to it
(no index, no reference, no object). The walk follows the first-parent line from the
user's HEAD; when the tracked path appears in a commit but not in its parent, a diff
with rename detection names the path it had before, and the walk goes on with that
one. It is bounded by a commit count and a time budget, and says when it stopped
early, so a huge repository never stalls a history view.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.history.index import iso
from knowledge_desktop.engine.lazy import lazy_module
from knowledge_desktop.engine.versions.when import USER_GIT, UserRepo, blob_at

if TYPE_CHECKING:
    import pygit2
else:
    pygit2 = lazy_module("pygit2")  # imported by the first history read (engine/lazy.py)

MAX_COMMITS = 5_000
BUDGET_S = 2.0
REVISION = re.compile(rb"^revision:[ \t]*(\d+)[ \t]*\r?$", re.MULTILINE)


@dataclass
class UserHistory:
    """A file's user-git versions, newest first, and why the walk stopped early (if it did)."""

    versions: list[dict[str, Any]] = field(default_factory=list)
    cut: str | None = None
    repository: str | None = None


_answers: OrderedDict[tuple[str, ...], UserHistory] = OrderedDict()
_answers_lock = threading.Lock()
KEPT_ANSWERS = 256


def file_history(
    user: UserRepo,
    vault_path: str,
    limit: int,
    *,
    max_commits: int = MAX_COMMITS,
    budget_s: float = BUDGET_S,
) -> UserHistory:
    """The commits of `user` that changed `vault_path` (or the path it had before a rename).

    A walk can take seconds in a big repository and the History tab asks again on every
    publish, so answers are kept per HEAD: commits never change, so the same HEAD gives
    the same answer (unless the walk was cut by its time budget, which depends on load)."""
    key = (str(user.repo.path), str(user.repo.head.target), vault_path, str(limit), str(max_commits))
    with _answers_lock:
        kept = _answers.get(key)
    if kept is not None:
        return replace(kept, versions=[dict(v) for v in kept.versions])
    found = _walk(user, vault_path, limit, max_commits=max_commits, budget_s=budget_s)
    if found.cut is None or "commit limit" in found.cut:
        with _answers_lock:
            _answers[key] = replace(found, versions=[dict(v) for v in found.versions])
            while len(_answers) > KEPT_ANSWERS:
                _answers.popitem(last=False)
    return found


def _walk(user: UserRepo, vault_path: str, limit: int, *, max_commits: int, budget_s: float) -> UserHistory:
    repo = user.repo
    out = UserHistory(repository=str(repo.path))
    path = user.repo_path(vault_path)
    deadline = time.monotonic() + budget_s
    walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    walker.simplify_first_parent()
    for n, commit in enumerate(walker):
        if n >= max_commits or time.monotonic() > deadline:
            out.cut = (
                f"the walk of {repo.path} stopped after {n:,} commits"
                f" ({'commit limit' if n >= max_commits else 'time budget'}); older versions are not listed"
            )
            break
        blob = blob_at(commit.tree, path)
        if blob is None:
            continue  # not in this commit: it is added later, on this line of history
        parent = commit.parents[0] if commit.parents else None
        before = blob_at(parent.tree, path) if parent is not None else None
        if before is not None and before.id == blob.id:
            continue
        rel = user.vault_path(path)
        if rel is not None:
            out.versions.append(_row(commit, blob, rel))
            if len(out.versions) >= limit:
                break
        if parent is None or before is not None:
            continue
        old = _renamed_from(repo, parent, commit, path)
        if old is None or user.vault_path(old) is None:
            break  # the file was created here (or came from outside the vault)
        path = old
    return out


def _renamed_from(repo: Any, parent: Any, commit: Any, path: str) -> str | None:
    """The path `path` had in `parent`, when `commit` renamed (or copied) it there."""
    diff = repo.diff(parent, commit)
    diff.find_similar()
    for delta in diff.deltas:
        if delta.new_file.path == path and delta.status in (
            pygit2.enums.DeltaStatus.RENAMED,
            pygit2.enums.DeltaStatus.COPIED,
        ):
            old: str = delta.old_file.path
            return old
    return None


def _row(commit: Any, blob: Any, vault_path: str) -> dict[str, Any]:
    data: bytes = blob.data
    found = REVISION.search(data[:65536])
    summary = commit.message.strip().splitlines()[0] if commit.message.strip() else ""
    return {
        "commit": str(commit.id),
        "at": iso(commit.author.time),
        "author": commit.author.name,
        "operation": "commit",
        "source": USER_GIT,
        "revision": int(found.group(1)) if found else None,
        "hash": hashlib.sha256(data).hexdigest(),
        "path": vault_path,
        "reason": summary,
    }
