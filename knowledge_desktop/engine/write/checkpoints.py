"""Checkpoints: every publication committed, with the exact bytes it wrote, to the app's own Git.

The repository is a bare one at `.knowledge/history.git` (issue 15, §1): made on first
need, opened without searching upward (so never the user's `.git` nor an enclosing
repository), with no remote. One branch, `checkpoints`; each commit's tree is the
previous checkpoint's tree with the publication's paths set to the bytes written, built
path by path (`history/trees.py`), and its changed paths go into the checkpoint index
(`history/index.py`) that `history` reads. The first checkpoint of a vault is preceded by
a baseline of every file already there (`history/baseline.py`).

The publish transaction queues a `git_outbox` row (`queue`); after the publication is
durable the publisher calls `flush`, which commits every pending row in order. A failure
here (pygit2 missing, a locked, corrupt or full repository) never undoes a publication:
the row stays pending with its reason, and the next open of the vault tries again.
The message carries trailers (`Operation:`, `Records:`, `Request:`, `Actor:`,
`Journal:`) that `history` reads back.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.history import baseline, index, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history.index import trailers
from knowledge_desktop.engine.store.db import Store, Tx
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.journal import Entry, JournalFile

REPO_DIR = hrepo.REPO_DIR
BRANCH = hrepo.BRANCH
PENDING, COMMITTED = "pending", "committed"
unavailable_reason = hrepo.unavailable_reason
open_repo = hrepo.open_repo
__all__ = ["trailers"]
_READ_ERRORS: tuple[type[BaseException], ...] = (*hrepo.GIT_ERRORS, sqlite3.Error)


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


def flush(state_dir: Path, store: Store, root: Path | None = None, loose_limit: int | None = None) -> None:
    """Commit every pending checkpoint, oldest first; on a failure the rest stay pending.
    With `root`, the vault's baseline is committed first when there is no checkpoint yet.
    The loose objects are packed once about `loose_limit` have piled up (seconds: the
    publish path passes a high one, and the window packs on a worker, `maintain`)."""
    conn = store.reader()
    rows = conn.execute("SELECT seq, journal_seq FROM git_outbox WHERE state=? ORDER BY seq", (PENDING,))
    pending = [(int(r[0]), int(r[1])) for r in rows.fetchall()]
    if not pending or unavailable_reason() is not None:
        return
    try:
        repo = open_repo(state_dir, create=True)
        if root is not None and hrepo.head(repo) is None:
            baseline.ensure(root, repo, store, overrides=_before(conn, [j for _, j in pending]))
    except hrepo.GIT_ERRORS as exc:
        _set_reason(store, [seq for seq, _ in pending], f"the checkpoint repository cannot be opened: {exc}")
        return
    for n, (seq, journal_seq) in enumerate(pending):
        entry = journal.entry(conn, journal_seq)
        if entry is None:
            continue
        try:
            commit_id, parent, rows_ = _commit(repo, entry, journal.files(conn, journal_seq))
        except hrepo.GIT_ERRORS as exc:
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
            index.record(tx, repo[commit_id], parent, rows_)
    with contextlib.suppress(*hrepo.GIT_ERRORS):  # packing is tried again after the next commit
        hrepo.maybe_pack(repo, loose_limit)


def _before(conn: sqlite3.Connection, journal_seqs: list[int]) -> dict[str, bytes | None]:
    """The bytes each pending publication's paths had before it (the oldest one wins)."""
    out: dict[str, bytes | None] = {}
    for seq in journal_seqs:
        for f in journal.files(conn, seq):
            out.setdefault(f.path, f.old_data)
    return out


def _set_reason(store: Store, seqs: list[int], reason: str) -> None:
    with store.write() as tx:
        for seq in seqs:
            tx.execute("UPDATE git_outbox SET reason=? WHERE seq=?", (reason, seq))


def _commit(repo: Any, entry: Entry, files: list[JournalFile]) -> tuple[str, str | None, list[index.PathRow]]:
    """One commit: the previous checkpoint's tree with `files` set to their new bytes; its
    id, its parent's, and the index rows of the paths it changed."""
    parent = hrepo.head(repo)
    base = None if parent is None else parent.tree
    tree, moved = trees.apply(repo, base, {f.path: f.new_data for f in files})
    rows: list[index.PathRow] = []
    for f in files:
        if f.path not in moved:
            continue  # the checkpoint already held these bytes
        blob = moved[f.path][1]  # None: the publication deleted the file
        row = index.row_for(f.path, None if blob is None else str(blob), f.new_data)
        row.record_id = f.record_id or row.record_id
        row.revision = f.revision if f.revision is not None else row.revision
        rows.append(row)
    when = _epoch(str(entry.plan.get("at", entry.created_at)))
    commit = hrepo.make_commit(repo, tree, parent, entry.actor or "unknown", when, message(entry, files))
    return str(commit.id), None if parent is None else str(parent.id), rows


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


def _epoch(at: str) -> int:
    try:
        return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return int(time.time())


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
    commit = None if repo is None or pending_only else hrepo.head(repo)
    while commit is not None and len(commits) < limit:  # first parents: the branch is a line
        t = trailers(commit.message)
        commits.append(
            {
                "commit": str(commit.id),
                "at": index.at_of(commit),
                "author": commit.author.name,
                "operation": t.get("Operation"),
                "records": [r for r in t.get("Records", "").split(", ") if r],
                "requestId": t.get("Request"),
            }
        )
        commit = commit.parents[0] if commit.parents else None
    return {"unavailable": unavailable_reason(), "outbox": outbox, "commits": commits}


def _reader(state_dir: Path) -> Any:
    if unavailable_reason() is not None:
        return None
    try:
        repo = open_repo(state_dir, create=False)
        return None if repo is None or hrepo.head(repo) is None else repo
    except hrepo.GIT_ERRORS:
        return None


def history(
    state_dir: Path, store: Store, record_id: str, limit: int = 50, until: str | None = None
) -> list[dict[str, Any]]:
    """Every checkpointed version of the record, by exact id (also a withdrawn, superseded
    or merged record's, and across a move to another path), newest first, from the index
    (brought to the branch's head first); with `until`, up to that checkpoint commit."""
    repo = _reader(state_dir)
    if repo is not None:
        with contextlib.suppress(*_READ_ERRORS):  # answered from what is indexed
            index.sync(store, repo)
    return index.versions(store.reader(), record_id, limit, until)
