"""Changes from local history: the first-parent commits of HEAD, read through pygit2.

Spec: knowledge-entities-extraction.md, "Extraction and identity" and "Bounds
and coverage". The walk follows first parents only, so a merge is one change
compared with its first parent and a side branch's commits are not separate
entries. At most `max_commits` (1–200, default 50) are read, stopping early at
`since_tag` (a local tag that must resolve to HEAD or an ancestor of it) and
when the 10-second budget checked between commits is spent. The tag may sit on
a side branch merged into the first-parent line, which the walk then never
meets: so it stops at the first commit that is the tag's commit or one of its
ancestors, since everything from there on was already released with the tag.
The commits the tag does not hold are found by one first-parent revwalk that
hides the tag, not by an ancestry query per commit (each of those walked back
to the tag: seconds for an old tag in a long history).

The subject gives the name and the Conventional Commits parts (type, scope,
`!`); a `BREAKING CHANGE:` or `BREAKING-CHANGE:` footer marks it breaking too.
The touched paths come from the tree diff, never from the message, so prose
cannot become path evidence. A rename keeps both its old and its new path
(no rename identity is asserted). Nothing is fetched: a repository whose
objects are missing locally is reported, not repaired. In a shallow clone the
boundary commits (listed in `.git/shallow`) have parents we do not hold: such a
commit is still a change (its id is real evidence), but with no touched paths,
since a diff against nothing would claim every file; history is then partial.
A path that is not UTF-8 cannot be cited exactly, so it is left out (partial),
and one commit gives at most `MAX_COMMIT_DELTAS` changed files (partial past it).

Only a repository whose working folder is the extracted folder itself is
read, so that every path here is relative to the same root as the documents.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction import ids
from knowledge_desktop.engine.extraction.bounds import (
    DEFAULT_MAX_COMMITS,
    HISTORY_BUDGET_SECONDS,
    MAX_COMMIT_DELTAS,
    MAX_COMMITS,
    MAX_LINKS,
    MAX_LISTED_TAGS,
    MIN_COMMITS,
)
from knowledge_desktop.engine.extraction.model import CHANGES, HISTORY, Found, Reason

_SUBJECT = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)(?:\(([^()\r\n]*)\))?(!)?: \S")
_BREAKING = re.compile(r"^BREAKING[ -]CHANGE: ", re.MULTILINE)


@dataclass(slots=True)
class HistoryResult:
    found: list[Found] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    status: str = "complete"
    info: dict[str, Any] = field(default_factory=dict)
    head: str | None = None


CommitCache = dict[str, tuple[Found, list[Reason]]]


def check_max_commits(value: int) -> int:
    if not MIN_COMMITS <= value <= MAX_COMMITS:
        raise QueryError(f"max commits must be between {MIN_COMMITS} and {MAX_COMMITS}, not {value}")
    return value


def read_history(
    root: Path,
    max_commits: int = DEFAULT_MAX_COMMITS,
    since_tag: str | None = None,
    cache: CommitCache | None = None,
    budget: float = HISTORY_BUDGET_SECONDS,
) -> HistoryResult:
    """The first-parent window of HEAD as change entities, with its coverage."""
    check_max_commits(max_commits)
    out = HistoryResult(info={"maxCommits": max_commits, "sinceTag": since_tag, "commits": 0})
    repo = _open(root, out)
    if repo is None:
        return out
    try:
        head = repo.head.peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError) as exc:
        return _not_analyzed(out, "history-unavailable", f"HEAD cannot be read: {exc}")
    out.head = str(head.id)
    window: set[str] | None = None  # with a tag: the first-parent commits it does not hold
    if since_tag is not None:
        stop = _tag_commit(repo, since_tag, head, out)
        if stop is None:
            return out
        window = _unreleased(repo, head, stop, max_commits, out)
    boundary = shallow_boundary(repo)
    cache = cache if cache is not None else {}
    started = time.monotonic()
    commit: pygit2.Commit | None = head
    while commit is not None:
        sha = str(commit.id)
        if window is not None and sha not in window:
            break
        if out.info["commits"] >= max_commits:
            _partial(out, "commit-window", f"stopped after {max_commits} commits")
            break
        if time.monotonic() - started > budget:
            _partial(out, "time-budget", f"stopped after {out.info['commits']} commits")
            break
        if sha in boundary:  # not cached: deepening the clone gives it its paths
            boundary_reasons: list[Reason] = []
            found = _change_without_paths(commit, boundary_reasons)
            out.found.append(found)
            out.reasons += boundary_reasons
            out.info["commits"] += 1
            _partial(out, "shallow-history", f"commit {sha} is a shallow boundary: its parents are not local")
            break
        if sha not in cache:
            try:
                cache[sha] = _change(repo, commit)
            except (pygit2.GitError, KeyError) as exc:
                _missing(out, f"commit {sha}: {exc}")
                break
        found, reasons = cache[sha]
        out.found.append(found)
        for reason in reasons:
            if reason.area == HISTORY:
                _partial(out, reason.code, reason.detail)
            else:
                out.reasons.append(reason)
        out.info["commits"] += 1
        commit = _first_parent(repo, commit, out)
    return out


def _unreleased(
    repo: pygit2.Repository, head: pygit2.Commit, tag: pygit2.Oid, limit: int, out: HistoryResult
) -> set[str]:
    """The first-parent commits from HEAD that `tag` does not hold (at most `limit` + 1 of
    them: the window never reads more), in one walk; none when the walk cannot be read."""
    found: set[str] = set()
    try:
        walker = repo.walk(head.id)
        walker.simplify_first_parent()
        walker.hide(tag)
        for commit in walker:
            found.add(str(commit.id))
            if len(found) > limit:
                break
    except (pygit2.GitError, KeyError, ValueError) as exc:
        _missing(out, f"the commits after the tag cannot be read: {exc}")
        return set()
    return found


def local_tags(root: Path, limit: int = MAX_LISTED_TAGS) -> list[str]:
    """The local tags naming a commit, newest commit first (then by name), at most
    `limit`: the choices for a since-tag. None when `root` is no repository's root."""
    try:
        repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except (pygit2.GitError, KeyError):
        return []
    dated: list[tuple[int, str]] = []
    for ref in repo.references.iterator(pygit2.enums.ReferenceFilter.TAGS):
        try:
            commit = ref.peel(pygit2.Commit)
            name = ref.shorthand
        except (pygit2.GitError, KeyError, ValueError, UnicodeDecodeError):
            continue  # a tag of a tree or a blob, or a name that is not text: no window edge
        dated.append((-commit.commit_time, name))
    return [name for _, name in sorted(dated)[:limit]]


def shallow_boundary(repo: pygit2.Repository) -> frozenset[str]:
    """The commit ids a shallow clone was cut at (empty for a full clone)."""
    if not repo.is_shallow:
        return frozenset()
    try:
        text = (Path(repo.path) / "shallow").read_text("ascii")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def _open(root: Path, out: HistoryResult) -> pygit2.Repository | None:
    try:
        repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except (pygit2.GitError, KeyError):
        _not_analyzed(out, "no-repository", "the folder is not the root of a Git working tree")
        return None
    workdir = repo.workdir
    if workdir is None or os.path.realpath(workdir) != os.path.realpath(root):
        _not_analyzed(out, "no-repository", "the folder is not the root of a Git working tree")
        return None
    if repo.head_is_unborn:
        _not_analyzed(out, "history-unavailable", "the repository has no commits")
        return None
    return repo


def _tag_commit(
    repo: pygit2.Repository, tag: str, head: pygit2.Commit, out: HistoryResult
) -> pygit2.Oid | None:
    try:
        ref = repo.references.get(f"refs/tags/{tag}")
        target = ref.peel(pygit2.Commit) if ref is not None else None
    except (pygit2.GitError, KeyError, ValueError):
        target = None
    if target is None:
        _not_analyzed(out, "unknown-tag", f"no local tag {tag!r} naming a commit")
        return None
    if target.id != head.id and not repo.descendant_of(head.id, target.id):
        _not_analyzed(out, "tag-not-ancestor", f"tag {tag!r} is not HEAD or an ancestor of it")
        return None
    return target.id


def _first_parent(repo: pygit2.Repository, commit: pygit2.Commit, out: HistoryResult) -> pygit2.Commit | None:
    if not commit.parent_ids:
        return None
    try:
        parent = repo[commit.parent_ids[0]]
    except (KeyError, ValueError, pygit2.GitError):
        _missing(out, f"parent of {commit.id} is not in the local object store")
        return None
    return parent if isinstance(parent, pygit2.Commit) else None


def _change(repo: pygit2.Repository, commit: pygit2.Commit) -> tuple[Found, list[Reason]]:
    """One commit as a change: its subject, conventional parts and touched paths."""
    reasons: list[Reason] = []
    found = _change_without_paths(commit, reasons)
    sha = str(commit.id)
    diff = first_parent_diff(repo, commit)
    total = len(diff)
    if total > MAX_COMMIT_DELTAS:
        reasons.append(
            Reason(
                HISTORY,
                "commit-too-large",
                detail=f"commit {sha}: {total} changed files, {MAX_COMMIT_DELTAS} read",
            )
        )
    paths: set[str] = set()
    unreadable = 0
    for n, delta in enumerate(diff.deltas):  # a rename or copy keeps both sides
        if n >= MAX_COMMIT_DELTAS:
            break
        sides: list[bytes] = []
        if delta.status != pygit2.enums.DeltaStatus.ADDED:
            sides.append(delta.old_file.raw_path)
        if delta.status != pygit2.enums.DeltaStatus.DELETED:
            sides.append(delta.new_file.raw_path)
        for raw in sides:
            try:
                paths.add(raw.decode("utf-8"))
            except UnicodeDecodeError:
                unreadable += 1
    if unreadable:
        reasons.append(Reason(HISTORY, "path-not-utf8", detail=f"commit {sha}: {unreadable} paths left out"))
    ordered = sorted(paths)
    if len(ordered) > MAX_LINKS:
        reasons.append(Reason(CHANGES, "links-capped", detail=f"commit {sha}: {len(ordered)} touched paths"))
    found.links = [("affected-path", p) for p in ordered[:MAX_LINKS]]
    return found, reasons


def _change_without_paths(commit: pygit2.Commit, reasons: list[Reason] | None = None) -> Found:
    """The commit's change read from its message alone: name and conventional parts."""
    sha = str(commit.id)
    reasons = reasons if reasons is not None else []
    message = commit.raw_message.decode("utf-8", errors="replace")
    subject = message.split("\n", 1)[0].strip() or sha
    name, clipped = ids.clip_name(subject)
    if clipped:
        reasons.append(Reason(CHANGES, "name-truncated", detail=f"commit {sha}"))
    found = Found(ids.commit_id(sha), "change", name, commits=[sha])
    m = _SUBJECT.match(subject)
    if m:
        conventional: dict[str, Any] = {"type": m.group(1)}
        if m.group(2) is not None:
            conventional["scope"] = m.group(2)
        body = message.split("\n", 1)[1] if "\n" in message else ""
        conventional["breaking"] = bool(m.group(3)) or bool(_BREAKING.search(body))
        found.conventional = conventional
    return found


def _partial(out: HistoryResult, code: str, detail: str) -> None:
    out.reasons.append(Reason(HISTORY, code, detail=detail))
    if out.status == "complete":
        out.status = "partial"


def _missing(out: HistoryResult, detail: str) -> None:
    if out.info["commits"]:
        _partial(out, "missing-object", detail)
    else:
        _not_analyzed(out, "history-unavailable", detail)


def _not_analyzed(out: HistoryResult, code: str, detail: str) -> HistoryResult:
    out.reasons.append(Reason(HISTORY, code, detail=detail))
    out.status = "not-analyzed"
    return out


def first_parent_diff(repo: Any, commit: Any) -> Any:
    """The commit's changes against its first parent (a merge's too), or against nothing
    for a root commit."""
    if commit.parent_ids:
        parent = repo[commit.parent_ids[0]]
        assert isinstance(parent, pygit2.Commit)
        return repo.diff(parent.tree, commit.tree)
    return commit.tree.diff_to_tree(swap=True)
