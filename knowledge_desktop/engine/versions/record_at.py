"""A record as it was: its bytes at a commit or a date, parsed into `Vault.show`'s shape,
and unified diffs between two moments (issue 15, §2: `show --at`, `diff`).

A past version is parsed on its own, with the engine's record parser: what needs the
rest of the vault as it was then (backlinks, link resolution, the ontology's verdict)
is not judged here — the as-of view (`engine/asof.py`) answers those by rebuilding
the projections of a whole checkpoint.
"""

from __future__ import annotations

import difflib
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.fs.inside import read_inside
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.history.index import iso
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES, ParsedFile, parse_bytes
from knowledge_desktop.engine.versions import user_git
from knowledge_desktop.engine.versions.when import (
    CHECKPOINT,
    MIN_PREFIX,
    USER_GIT,
    Moment,
    UserRepo,
    blob_at,
    checkpoint_repo,
    checkpoint_tip,
    lookup_commit,
    newest_at_or_before,
    parse_at,
    user_repo,
)

MAX_SCAN_ENTRIES = 200_000
"""How many tree entries a search for a record whose path is not known looks at."""


@dataclass(frozen=True, slots=True)
class Version:
    """One past version of a record's file: where it came from and its bytes."""

    commit: str | None
    at: str
    source: str
    path: str
    data: bytes


class PastReader:
    """Reads a vault's past from its checkpoint repository and the user's own Git."""

    def __init__(self, root: Path, state_dir: Path, conn: sqlite3.Connection) -> None:
        self.root, self.state_dir, self.conn = root, state_dir, conn
        self._checkpoints: Any = None
        self._opened = False
        self.user: UserRepo | None = user_repo(root, state_dir)

    @property
    def checkpoints(self) -> Any:
        """The checkpoint repository, opened when first read (the user's history needs none,
        and a broken one must not keep it from answering)."""
        if not self._opened:
            self._checkpoints = checkpoint_repo(self.state_dir)
            self._opened = True
        return self._checkpoints

    # -- the user's Git ----------------------------------------------------------------
    def user_history(self, record_id: str, limit: int) -> user_git.UserHistory:
        """The record's commits in the user's repository, for each path it is known by."""
        if self.user is None:
            return user_git.UserHistory()
        out = user_git.UserHistory(repository=str(self.user.repo.path))
        seen: set[tuple[str, str]] = set()
        for path in self.paths(record_id):
            found = user_git.file_history(self.user, path, limit)
            out.cut = out.cut or found.cut
            for row in found.versions:
                if (row["commit"], row["path"]) not in seen:
                    seen.add((row["commit"], row["path"]))
                    out.versions.append(row)
        out.versions.sort(key=lambda r: str(r["at"]), reverse=True)
        del out.versions[limit:]
        return out

    # -- bytes -------------------------------------------------------------------------
    def version_bytes(self, commit: str, path: str) -> bytes:
        """The bytes `path` (vault-relative) had at `commit`, from either repository."""
        found, source = self._commit(commit)
        blob = blob_at(found.tree, self._repo_path(source, path))
        if blob is None:
            raise QueryError(f"{path} is not in commit {str(found.id)[:12]}")
        data: bytes = blob.data
        return data

    def id_of(self, id_or_path: str) -> str:
        """The id of the record a vault path names now (as `show` takes either), else as given."""
        row = self.conn.execute(
            "SELECT id FROM catalog WHERE path=? AND id IS NOT NULL", (id_or_path.strip("/"),)
        ).fetchone()
        return str(row[0]) if row else id_or_path

    def paths(self, record_id: str) -> list[str]:
        """Every vault path the record is known by: now (catalog) and in the journal."""
        found: dict[str, None] = {}
        for sql in (
            "SELECT path FROM catalog WHERE id=? ORDER BY path",
            "SELECT DISTINCT path FROM journal_files WHERE record_id=? ORDER BY path",
        ):
            try:
                found.update((str(r[0]), None) for r in self.conn.execute(sql, (record_id,)))
            except sqlite3.Error:
                continue
        return list(found)

    # -- the record at a moment --------------------------------------------------------
    def at(self, record_id: str, at: str) -> Version:
        """The record's file as it was at `at` (a commit or a date); QueryError when it had
        no version then."""
        moment = parse_at(at)
        if moment.commit is not None:
            commit, source = self._commit(moment.commit)
            found = self._locate(commit.tree, source, record_id)
            if found is None:
                raise QueryError(f"{record_id} did not exist at commit {str(commit.id)[:12]}")
            return Version(str(commit.id), iso(commit.author.time), source, *found)
        return self._at_instant(record_id, moment)

    def _at_instant(self, record_id: str, moment: Moment) -> Version:
        assert moment.instant is not None
        when = moment.instant.strftime("%Y-%m-%dT%H:%M:%SZ")
        if moment.text == "now":
            return self.now(record_id)
        for repo, tip, source in self._repos():
            commit = newest_at_or_before(repo, tip, moment.instant)
            if commit is None:
                continue
            found = self._locate(commit.tree, source, record_id)
            if found is not None:
                return Version(str(commit.id), iso(commit.author.time), source, *found)
        raise QueryError(f"{record_id} did not exist at {when} (no checkpoint or commit holds it then)")

    def now(self, record_id: str) -> Version:
        """The record's file on disk now; empty bytes when it has none."""
        rows = self.conn.execute("SELECT path FROM catalog WHERE id=? ORDER BY path", (record_id,)).fetchall()
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for (path,) in rows:
            try:
                return Version(
                    None, stamp, "now", str(path), read_inside(self.root, str(path), MAX_FILE_BYTES)
                )
            except OSError:
                continue
        return Version(None, stamp, "now", "", b"")

    def _repos(self) -> list[tuple[Any, Any, str]]:
        out = []
        if self.checkpoints is not None:
            out.append((self.checkpoints, checkpoint_tip(self.checkpoints), CHECKPOINT))
        if self.user is not None:
            out.append((self.user.repo, self.user.repo.head.target, USER_GIT))
        return out

    def _commit(self, prefix: str) -> tuple[Any, str]:
        if len(prefix) < MIN_PREFIX:
            raise QueryError(f"a commit id needs at least {MIN_PREFIX} hex digits: {prefix!r}")
        found = [
            (c, source)
            for repo, source in (
                (self.checkpoints, CHECKPOINT),
                (self.user.repo if self.user else None, USER_GIT),
            )
            if (c := lookup_commit(repo, prefix)) is not None
        ]
        if not found:
            raise QueryError(f"no checkpoint or commit {prefix!r} in this vault's history")
        if len(found) > 1 and found[0][0].id != found[1][0].id:
            raise QueryError(f"commit prefix {prefix!r} names both a checkpoint and a commit of yours")
        return found[0]

    def _repo_path(self, source: str, path: str) -> str:
        return self.user.repo_path(path) if source == USER_GIT and self.user is not None else path

    def _locate(self, tree: Any, source: str, record_id: str) -> tuple[str, bytes] | None:
        """(vault path, bytes) of the file holding `record_id` in `tree`: its known paths
        first, then any Markdown file whose bytes name the id."""
        for path in self.paths(record_id):
            blob = blob_at(tree, self._repo_path(source, path))
            if blob is not None and _holds(path, blob.data, record_id):
                return path, blob.data
        prefix = self.user.prefix if source == USER_GIT and self.user is not None else ""
        needle = record_id.encode("utf-8")
        for n, (repo_path, blob) in enumerate(_markdown(tree, "")):
            if n >= MAX_SCAN_ENTRIES:
                break
            if not repo_path.startswith(prefix) or needle not in blob.data:
                continue
            path = repo_path[len(prefix) :]
            if _holds(path, blob.data, record_id):
                return path, blob.data
        return None


def _holds(path: str, data: bytes, record_id: str) -> bool:
    return parse(path, data).record_id == record_id


def _markdown(tree: Any, base: str) -> Any:
    for entry in tree:
        name = f"{base}{entry.name}"
        if entry.type_str == "tree":
            yield from _markdown(entry, f"{name}/")
        elif entry.type_str == "blob" and name.lower().endswith(".md"):
            yield name, entry


def parse(path: str, data: bytes) -> ParsedFile:
    scope = path.split("/", 1)[0] if "/" in path else None
    return parse_bytes(path, scope, data)


def view(version: Version, record_id: str) -> dict[str, Any]:
    """The version in `Vault.show`'s shape, plus `at`, `commit`, `source` and `path`.

    Judged from the file alone: `valid` is the record's own structural validity,
    links are listed unresolved, and backlinks are empty (other files of that time are
    not read; the as-of view has them)."""
    parsed = parse(version.path, version.data)
    node = RecordNode(parsed)
    data = parsed.data or {}
    text = version.data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = text.split("\n", parsed.body_line - 1) if parsed.body_line > 1 else [text]
    body = lines[-1] if len(lines) == max(parsed.body_line, 1) else ""
    return {
        "id": node.id or record_id,
        "kind": node.kind,
        "type": _type(node.kind, data),
        "title": data.get("title") if isinstance(data.get("title"), str) else None,
        "path": version.path,
        "revision": data.get("revision") if isinstance(data.get("revision"), int) else None,
        "lifecycle": node.lifecycle if node.is_record else None,
        "scope": parsed.scope,
        "valid": parsed.structurally_valid,
        "duplicate": False,
        "status": "record" if node.is_record else "unrecognized",
        "eligible": None,
        "dependenciesAvailable": None,
        "hash": parsed.sha256,
        "frontmatter": parsed.data,
        "body": body,
        "bodyLine": parsed.body_line,
        "references": [
            {
                "kind": raw.kind,
                "target": raw.target,
                "label": raw.label,
                "line": parsed.body_line + raw.line,
                "status": None,
                "id": None,
                "path": None,
            }
            for raw in parsed.links
        ],
        "typedReferences": [{"field": f, "target": t, "id": None, "status": None} for f, t in node.refs],
        "backlinks": [],
        "diagnostics": [d.as_json() for d in parsed.diagnostics],
        "at": version.at,
        "commit": version.commit,
        "source": version.source,
    }


def _type(kind: str | None, data: dict[str, Any]) -> str | None:
    """The record's type as its own file names it (engine/graph/rules.py: a page's
    declared type, a claim's kind, a relationship's label)."""
    key = {"page": "type", "claim": "claim_kind", "relationship": "label"}.get(kind or "")
    value = data.get(key) if key else None
    return value if isinstance(value, str) else None


def unified(before: Version, after: Version, record_id: str) -> str:
    """A unified diff of two versions' text, labelled with where each comes from."""

    def label(side: str, v: Version) -> str:
        if v.source == "now":
            return f"{side}/{v.path or record_id} (now)" if v.path else "/dev/null"
        return f"{side}/{v.path} @ {(v.commit or '')[:12]} {v.source} {v.at}"

    a = before.data.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = after.data.decode("utf-8", errors="replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, label("a", before), label("b", after)))
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
