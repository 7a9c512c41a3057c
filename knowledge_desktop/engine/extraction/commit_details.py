"""One commit, as the Repository pane shows it: subject, author, date and touched paths.

Spec: knowledge-entities-extraction.md ("Extraction and identity": a change
cites its commit by full id). The entity carries only the id and the touched
paths as `affected-path` links; a person following that evidence wants to see
the commit itself, so this reads it again from the local object store. Like
the history walk it compares with the first parent (a merge with its first
parent) and takes paths from the tree diff, never from the message. Here,
unlike in the entities, a rename is shown as one `old → new` row: git's
similarity detection is a display aid for a person reading one commit, and
nothing in the extracted document depends on it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import pygit2

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction.history import first_parent_diff, shallow_boundary

_STATUS = {
    pygit2.enums.DeltaStatus.ADDED: "added",
    pygit2.enums.DeltaStatus.DELETED: "deleted",
    pygit2.enums.DeltaStatus.MODIFIED: "modified",
    pygit2.enums.DeltaStatus.RENAMED: "renamed",
    pygit2.enums.DeltaStatus.COPIED: "copied",
    pygit2.enums.DeltaStatus.TYPECHANGE: "type changed",
}


@dataclass(frozen=True, slots=True)
class TouchedPath:
    status: str
    """added, deleted, modified, renamed, copied or type changed."""
    path: str
    """The path after the commit (before it, for a deletion)."""
    old_path: str | None = None
    """For a rename or copy: the path before the commit."""


@dataclass(frozen=True, slots=True)
class CommitDetails:
    sha: str
    subject: str
    message: str
    author: str
    date: str
    """The author date, ISO 8601 with its own UTC offset."""
    parents: tuple[str, ...]
    touched: tuple[TouchedPath, ...]
    paths_known: bool = True
    """False at a shallow clone's boundary: its parents are not local, so what it changed
    cannot be told (a diff against nothing would call every file added)."""


def commit_details(repo_root: Path, sha: str) -> CommitDetails:
    """The commit `sha` of the repository at `repo_root`; `QueryError` when it cannot be read."""
    try:
        repo = pygit2.Repository(str(repo_root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        commit = repo[sha]
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise QueryError(f"{repo_root}: commit {sha} cannot be read ({exc})") from exc
    if not isinstance(commit, pygit2.Commit):
        raise QueryError(f"{repo_root}: {sha} is not a commit")
    message = commit.raw_message.decode("utf-8", errors="replace")
    paths_known = str(commit.id) not in shallow_boundary(repo)
    deltas = []
    if paths_known:
        try:
            diff = first_parent_diff(repo, commit)
            diff.find_similar()
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise QueryError(f"{repo_root}: commit {sha}: its changes cannot be read ({exc})") from exc
        deltas = list(diff.deltas)
    touched: list[TouchedPath] = []
    for delta in deltas:
        old = delta.old_file.raw_path.decode("utf-8", errors="replace")
        new = delta.new_file.raw_path.decode("utf-8", errors="replace")
        status = _STATUS.get(delta.status, "modified")
        if status == "deleted":
            touched.append(TouchedPath(status, old))
        elif status in ("renamed", "copied"):
            touched.append(TouchedPath(status, new, old))
        else:
            touched.append(TouchedPath(status, new))
    touched.sort(key=lambda t: (t.path, t.old_path or ""))
    offset = dt.timezone(dt.timedelta(minutes=commit.author.offset))
    when = dt.datetime.fromtimestamp(commit.author.time, offset).isoformat()
    return CommitDetails(
        sha=str(commit.id),
        subject=message.split("\n", 1)[0].strip(),
        message=message,
        author=f"{commit.author.name} <{commit.author.email}>",
        date=when,
        parents=tuple(str(p) for p in commit.parent_ids),
        touched=tuple(touched),
        paths_known=paths_known,
    )
