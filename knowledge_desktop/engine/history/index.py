"""The checkpoint index: every checkpointed version of every path, in `state.sqlite`
(issue 15, §2: a record's history by exact id, fast at 50,000 commits).

One row per path a checkpoint commit changed (`checkpoint_paths`), with the record id
and revision read from the bytes, so a record moved to another folder keeps one history
and a withdrawn, superseded or merged record's history stays readable by id. Rows are
written as commits are made; the repository is the truth and the table disposable:
when the indexed head is not the branch's head, the commits past it are indexed again
from the repository (all of them when the indexed head is not among them).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.store.db import Store, Tx

OBSERVED_OPERATIONS = frozenset({"observed", "baseline"})


@dataclass(slots=True)
class PathRow:
    """One changed path of one checkpoint commit."""

    path: str
    blob: str | None
    """The new blob's id; None when the commit deleted the path."""
    record_id: str | None
    revision: int | None
    sha256: str | None
    author: str | None = None
    """Who wrote these bytes when it differs from the commit's author (observed bytes
    that the journal knows; each publication's actor in a batched checkpoint)."""
    operation: str | None = None
    """In a batched checkpoint, the operation of the publication that wrote the path (then
    `reason` is that publication's too); None: the commit's own trailers say."""
    reason: str | None = None


def identity_of(data: bytes) -> tuple[str | None, int | None]:
    """The record id and revision in a record's front matter (None when it has none)."""
    head = data[:8192]
    if not head.startswith(b"---"):
        return None, None
    end = head.find(b"\n---", 3)
    block = head[: end if end > 0 else len(head)].decode("utf-8", "replace")
    found_id = _ID.search(block)
    found_rev = _REVISION.search(block)
    record_id = found_id.group(1).strip().strip("'\"") if found_id else None
    revision = int(found_rev.group(1)) if found_rev else None
    return record_id or None, revision


_ID = re.compile(r"^id:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_REVISION = re.compile(r"^revision:[ \t]*(\d{1,9})[ \t]*$", re.MULTILINE)


def row_for(path: str, blob: str | None, data: bytes | None) -> PathRow:
    if data is None:
        return PathRow(path, None, None, None, None)
    record_id, revision = identity_of(data)
    return PathRow(path, blob, record_id, revision, hashlib.sha256(data).hexdigest())


def head(conn: sqlite3.Connection) -> str | None:
    """The newest indexed commit (every indexed commit has at least one row)."""
    row = conn.execute("SELECT commit_id FROM checkpoint_paths ORDER BY ord DESC LIMIT 1").fetchone()
    return None if row is None else str(row[0])


def record(tx: Tx, commit: Any, parent: str | None, rows: list[PathRow]) -> bool:
    """Index `commit` (whose parent is `parent`) inside the caller's transaction, when the
    index is at that parent; else leave it to `sync`. Whether the rows were written."""
    if head(tx.conn) != parent:
        return False
    (top,) = tx.conn.execute("SELECT COALESCE(MAX(ord), 0) FROM checkpoint_paths").fetchone()
    _insert(tx, commit, int(top) + 1, rows)
    return True


def _insert(tx: Tx, commit: Any, order: int, rows: list[PathRow]) -> None:
    t = trailers(commit.message)
    operation = t.get("Operation")
    at = at_of(commit)
    if not rows:  # a commit that changed no file still marks how far the index goes
        rows = [PathRow("", None, None, None, None)]
    tx.conn.executemany(
        "INSERT OR REPLACE INTO checkpoint_paths(commit_id, ord, at, author, operation, source, path,"
        " record_id, blob, sha256, revision, reason) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                str(commit.id),
                order,
                at,
                r.author or commit.author.name,
                r.operation or operation,
                "observed" if (r.operation or operation) in OBSERVED_OPERATIONS else "publish",
                r.path,
                r.record_id,
                r.blob,
                r.sha256,
                r.revision,
                r.reason if r.operation else t.get("Reason"),
            )
            for r in rows
        ],
    )


def sync(store: Store, repo: Any) -> None:
    """Bring the index to the branch's head: index the commits past the indexed head, or
    every commit again when the indexed head is not an ancestor (a new or rebuilt table)."""
    tip = hrepo.head(repo)
    known = head(store.reader())
    if tip is None or str(tip.id) == known:
        return
    missing: list[Any] = []
    commit = tip
    while commit is not None and str(commit.id) != known:
        missing.append(commit)
        if not commit.parent_ids:
            commit = None
            break
        hrepo.ensure_sound(repo, commit.parent_ids[0])  # a truncated one would hang libgit2
        commit = repo[commit.parent_ids[0]]
    with store.write() as tx:
        if commit is None:  # the indexed head is not in the branch: index it all again
            tx.execute("DELETE FROM checkpoint_paths")
            order = 0
        else:
            (top,) = tx.conn.execute("SELECT COALESCE(MAX(ord), 0) FROM checkpoint_paths").fetchone()
            order = int(top)
        for c in reversed(missing):
            order += 1
            _insert(tx, c, order, overlay(c.message, _changed(repo, c)))


def _changed(repo: Any, commit: Any) -> list[PathRow]:
    parent_tree = commit.parents[0].tree if commit.parents else None
    if parent_tree is not None:
        diff = repo.diff(parent_tree, commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    rows: list[PathRow] = []
    for delta in diff.deltas:
        if delta.status_char() == "D":
            rows.append(PathRow(delta.old_file.path, None, None, None, None))
            continue
        blob = repo[delta.new_file.id]
        rows.append(row_for(delta.new_file.path, str(blob.id), bytes(blob.data)))
    return rows


def versions(
    conn: sqlite3.Connection, record_id: str, limit: int, until: str | None = None
) -> list[dict[str, Any]]:
    """The record's versions, newest first (rows of `knowledge history`); with `until` (a
    checkpoint commit id), only those made at or before that checkpoint."""
    last = None
    if until is not None:
        found = conn.execute("SELECT MAX(ord) FROM checkpoint_paths WHERE commit_id=?", (until,)).fetchone()
        if found is None or found[0] is None:
            return []
        last = int(found[0])
    rows = conn.execute(
        "SELECT commit_id, at, author, operation, source, revision, sha256, path, reason"
        " FROM checkpoint_paths WHERE record_id=? AND blob IS NOT NULL AND (? IS NULL OR ord <= ?)"
        " ORDER BY ord DESC LIMIT ?",
        (record_id, last, last, limit),
    ).fetchall()
    out: list[dict[str, Any]] = []
    for r in rows:
        item: dict[str, Any] = {
            "commit": r[0],
            "at": r[1],
            "author": r[2],
            "operation": r[3],
            "source": r[4],
            "revision": r[5],
            "hash": r[6],
            "path": r[7],
        }
        if r[8]:
            item["reason"] = r[8]
        out.append(item)
    return out


def trailers(text: str) -> dict[str, str]:
    """The `Key: value` lines of a checkpoint message (of a batched one, its summary block:
    the lines before the first publication's block)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key == ENTRY_KEY:
            break
        if sep and key.isalpha():
            out[key] = value
    return out


# -- batched checkpoints: one block per publication ---------------------------------------
ENTRY_KEY = "Entry"
"""Starts a publication's block in a batched checkpoint's message (its journal id)."""
FILE_KEY = "File"
NONE = "-"


def file_line(row: PathRow) -> str:
    """`File: <record id> <revision> <path>` (`-` for none): what the index holds of a path
    besides what its bytes say (a deleted record's id, the journal's revision)."""
    revision = NONE if row.revision is None else str(row.revision)
    return f"{FILE_KEY}: {row.record_id or NONE} {revision} {row.path}"


@dataclass(slots=True)
class BatchEntry:
    """One publication's block of a batched checkpoint's message."""

    journal_seq: int
    trailers: dict[str, str]
    files: list[PathRow]


def batch_entries(text: str) -> list[BatchEntry]:
    """The publication blocks of a batched checkpoint's message, in order (none for a
    checkpoint of one publication, an observed one or a baseline)."""
    out: list[BatchEntry] = []
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            continue
        if key == ENTRY_KEY and value.strip().isdigit():
            out.append(BatchEntry(int(value), {}, []))
        elif out and key == FILE_KEY:
            record_id, _, rest = value.partition(" ")
            revision, _, path = rest.partition(" ")
            out[-1].files.append(
                PathRow(
                    path,
                    None,
                    None if record_id == NONE else record_id,
                    int(revision) if revision.isdigit() else None,
                    None,
                )
            )
        elif out and key.isalpha():
            out[-1].trailers[key] = value
    return out


def overlay(text: str, rows: list[PathRow]) -> list[PathRow]:
    """`rows` (read from a commit's trees) with what a batched checkpoint's message says of
    each path: the record id and revision as the journal had them, and the operation,
    actor and reason of the publication that wrote it, as `record` indexed them."""
    named: dict[str, tuple[BatchEntry, PathRow]] = {}
    for block in batch_entries(text):
        for f in block.files:
            named[f.path] = (block, f)
    for row in rows:
        found = named.get(row.path)
        if found is None:
            continue
        block, f = found
        row.record_id, row.revision = f.record_id, f.revision
        row.author = block.trailers.get("Actor") or "unknown"
        row.operation = block.trailers.get("Operation") or None
        row.reason = block.trailers.get("Reason")
    return rows


def iso(seconds: int) -> str:
    """A commit time as the history rows give it: `2026-12-02T10:24:39Z`."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def at_of(commit: Any) -> str:
    return iso(commit.author.time)
