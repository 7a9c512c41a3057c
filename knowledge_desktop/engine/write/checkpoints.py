"""Checkpoints: every publication committed, with the exact bytes it wrote, to the app's own Git.

The repository is a bare one at `.knowledge/history.git` (issue 15, §1): made on first
need, opened without searching upward (so never the user's `.git` nor an enclosing
repository), with no remote. One branch, `checkpoints`; each commit's tree is the
previous checkpoint's tree with the publication's paths set to the bytes written.

The publish transaction queues a `git_outbox` row (`queue`); after the publication is
durable the publisher calls `flush`, which commits every pending row in order. A failure
here (pygit2 missing, a locked, corrupt or full repository) never undoes a publication:
the row stays pending with its reason, and the next open of the vault tries again.
The message carries trailers (`Operation:`, `Records:`, `Request:`, `Actor:`,
`Journal:`) that `history` reads back.
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.store.db import Store, Tx
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.journal import Entry, JournalFile

try:
    import pygit2
    from pygit2.enums import FileMode, RepositoryOpenFlag, SortMode
except ImportError:  # pragma: no cover - pygit2 is a dependency; the state says why if it is missing
    pygit2 = None  # type: ignore[assignment]

REPO_DIR = "history.git"
BRANCH = "refs/heads/checkpoints"
COMMITTER = ("Knowledge Desktop", "knowledge-desktop@localhost")
PENDING, COMMITTED = "pending", "committed"


def unavailable_reason() -> str | None:
    """Why no checkpoint can be made at all, or None."""
    return None if pygit2 is not None else "pygit2 is not installed"


def queue(tx: Tx, journal_seq: int, now: str) -> None:
    """Queue a publication's checkpoint (inside the publish transaction)."""
    tx.execute(
        "INSERT INTO git_outbox(journal_seq, state, created_at) VALUES (?,?,?)", (journal_seq, PENDING, now)
    )


def state_of(conn: sqlite3.Connection, journal_seq: int) -> dict[str, Any]:
    """A receipt's `git` field for a journal entry."""
    row = conn.execute(
        "SELECT state, commit_id, reason FROM git_outbox WHERE journal_seq=? ORDER BY seq DESC LIMIT 1",
        (journal_seq,),
    ).fetchone()
    if row is None:
        return {"state": "unavailable", "reason": "no checkpoint was queued"}
    if row[0] == COMMITTED:
        return {"state": COMMITTED, "commit": row[1]}
    reason = unavailable_reason()
    if reason is not None:
        return {"state": "unavailable", "reason": reason}
    return {"state": PENDING, "reason": row[2] or "not committed yet"}


def open_repo(state_dir: Path, create: bool) -> Any:
    """The checkpoint repository (made when `create`); never one found by searching upward."""
    path = state_dir / REPO_DIR
    if not path.exists():
        if not create:
            return None
        return pygit2.init_repository(str(path), bare=True, initial_head="checkpoints")
    return pygit2.Repository(str(path), RepositoryOpenFlag.NO_SEARCH)


def flush(state_dir: Path, store: Store) -> None:
    """Commit every pending checkpoint, oldest first; on a failure the rest stay pending."""
    conn = store.reader()
    rows = conn.execute("SELECT seq, journal_seq FROM git_outbox WHERE state=? ORDER BY seq", (PENDING,))
    pending = [(int(r[0]), int(r[1])) for r in rows.fetchall()]
    if not pending or pygit2 is None:
        return
    try:
        repo = open_repo(state_dir, create=True)
    except (pygit2.GitError, OSError, ValueError) as exc:
        _set_reason(store, [seq for seq, _ in pending], f"the checkpoint repository cannot be opened: {exc}")
        return
    for n, (seq, journal_seq) in enumerate(pending):
        entry = journal.entry(conn, journal_seq)
        if entry is None:
            continue
        try:
            commit_id = _commit(repo, entry, journal.files(conn, journal_seq))
        except (pygit2.GitError, OSError, ValueError) as exc:
            _set_reason(store, [s for s, _ in pending[n:]], f"the checkpoint commit failed: {exc}")
            return
        with store.write(durable=True) as tx:
            tx.execute(
                "UPDATE git_outbox SET state=?, commit_id=?, reason=NULL WHERE seq=?",
                (COMMITTED, commit_id, seq),
            )
            # a replay of the request then answers with the commit, as a later read does
            tx.execute(
                "UPDATE receipts SET receipt=json_set(receipt, '$.git', json(?)) WHERE request_id=?",
                (f'{{"state": "committed", "commit": "{commit_id}"}}', entry.request_id),
            )


def _set_reason(store: Store, seqs: list[int], reason: str) -> None:
    with store.write() as tx:
        for seq in seqs:
            tx.execute("UPDATE git_outbox SET reason=? WHERE seq=?", (reason, seq))


def _commit(repo: Any, entry: Entry, files: list[JournalFile]) -> str:
    """One commit: the previous checkpoint's tree with `files` set to their new bytes."""
    parents = [] if repo.head_is_unborn else [repo.head.target]
    index = pygit2.Index()
    if parents:
        index.read_tree(repo[parents[0]].tree)
    for f in files:
        index.add(pygit2.IndexEntry(f.path, repo.create_blob(f.new_data), FileMode.BLOB))
    tree = index.write_tree(repo)
    when = _epoch(str(entry.plan.get("at", entry.created_at)))
    actor = entry.actor or "unknown"
    author = pygit2.Signature(actor, _email(actor), when, 0)
    committer = pygit2.Signature(*COMMITTER, when, 0)
    return str(repo.create_commit(BRANCH, author, committer, message(entry, files), tree, parents))


def message(entry: Entry, files: list[JournalFile]) -> str:
    records = sorted({f.record_id for f in files if f.record_id})
    lines = [
        f"{entry.operation} {entry.target_id or ', '.join(records) or ''}".rstrip(),
        "",
        f"Operation: {entry.operation}",
        f"Records: {', '.join(records)}",
        f"Request: {entry.request_id}",
        f"Actor: {entry.actor or 'unknown'}",
        f"Journal: {entry.seq}",
    ]
    reason = entry.plan.get("reason")
    if reason:
        lines.append(f"Reason: {' '.join(str(reason).split())}")
    return "\n".join(lines) + "\n"


def trailers(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.isalpha():
            out[key] = value
    return out


def _email(actor: str) -> str:
    if actor.startswith("email:") and "@" in actor:
        return actor[len("email:") :]
    return "unknown@knowledge-desktop.invalid"


def _epoch(at: str) -> int:
    try:
        return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return int(datetime.now().timestamp())


def _at(commit: Any) -> str:
    return datetime.fromtimestamp(commit.author.time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- reading -----------------------------------------------------------------------------
def listing(
    state_dir: Path, conn: sqlite3.Connection, *, pending_only: bool, limit: int = 50
) -> dict[str, Any]:
    """The outbox (pending rows, or the latest ones) and the recent commits, newest first."""
    where = "WHERE o.state='pending'" if pending_only else ""
    rows = conn.execute(
        "SELECT o.journal_seq, o.state, o.commit_id, o.reason, o.created_at, j.request_id, j.operation"
        f" FROM git_outbox o LEFT JOIN journal j ON j.seq=o.journal_seq {where} ORDER BY o.seq DESC LIMIT ?",
        (limit,),
    ).fetchall()
    outbox = [
        {
            "journalId": r[0],
            "state": r[1],
            "commit": r[2],
            "reason": r[3],
            "createdAt": r[4],
            "requestId": r[5],
            "operation": r[6],
        }
        for r in rows
    ]
    commits: list[dict[str, Any]] = []
    repo = _reader(state_dir)
    if repo is not None and not pending_only:
        for commit in repo.walk(repo.head.target, SortMode.TIME):
            t = trailers(commit.message)
            commits.append(
                {
                    "commit": str(commit.id),
                    "at": _at(commit),
                    "author": commit.author.name,
                    "operation": t.get("Operation"),
                    "records": [r for r in t.get("Records", "").split(", ") if r],
                    "requestId": t.get("Request"),
                }
            )
            if len(commits) >= limit:
                break
    return {"unavailable": unavailable_reason(), "outbox": outbox, "commits": commits}


def _reader(state_dir: Path) -> Any:
    if pygit2 is None:
        return None
    try:
        repo = open_repo(state_dir, create=False)
    except (pygit2.GitError, OSError, ValueError):
        return None
    if repo is None or repo.head_is_unborn:
        return None
    return repo


def history(
    state_dir: Path, conn: sqlite3.Connection, record_id: str, limit: int = 50
) -> list[dict[str, Any]]:
    """Every checkpointed version of the record's file(s), newest first (exact id: also a
    withdrawn, superseded or merged record's)."""
    paths = [
        r[0] for r in conn.execute("SELECT DISTINCT path FROM journal_files WHERE record_id=?", (record_id,))
    ]
    repo = _reader(state_dir)
    if repo is None or not paths:
        return []
    out: list[dict[str, Any]] = []
    for commit in repo.walk(repo.head.target, SortMode.TIME | SortMode.TOPOLOGICAL):
        parent_tree = commit.parents[0].tree if commit.parents else None
        for path in paths:
            blob = _blob(commit.tree, path)
            if blob is None or (parent_tree is not None and _blob(parent_tree, path) == blob):
                continue
            data = repo[blob].data
            t = trailers(commit.message)
            out.append(
                {
                    "commit": str(commit.id),
                    "at": _at(commit),
                    "author": commit.author.name,
                    "operation": t.get("Operation"),
                    "source": "publish",
                    "revision": _revision(conn, t.get("Journal"), path),
                    "hash": hashlib.sha256(data).hexdigest(),
                    "path": path,
                }
            )
            if len(out) >= limit:
                return out
    return out


def _blob(tree: Any, path: str) -> Any:
    try:
        return tree[path].id
    except KeyError:
        return None


def _revision(conn: sqlite3.Connection, journal_seq: str | None, path: str) -> int | None:
    if journal_seq is None or not journal_seq.isdigit():
        return None
    row = conn.execute(
        "SELECT revision FROM journal_files WHERE seq=? AND path=?", (int(journal_seq), path)
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])
