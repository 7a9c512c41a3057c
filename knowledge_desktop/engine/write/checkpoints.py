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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.history import baseline, index, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history.index import trailers
from knowledge_desktop.engine.store.db import Store, Tx
from knowledge_desktop.engine.visible_text import one_line
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.journal import Entry, JournalFile

REPO_DIR = hrepo.REPO_DIR
BRANCH = hrepo.BRANCH
PENDING, COMMITTED = "pending", "committed"
unavailable_reason = hrepo.unavailable_reason
open_repo = hrepo.open_repo
__all__ = ["trailers"]


def queue(tx: Tx, journal_seq: int, now: str, reason: str | None = None) -> None:
    """Queue a publication's checkpoint (inside the publish transaction); `reason`: why it
    waits, when it is left for a later flush on purpose."""
    tx.execute(
        "INSERT INTO git_outbox(journal_seq, state, created_at, reason) VALUES (?,?,?,?)",
        (journal_seq, PENDING, now, reason),
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


BATCH_MAX = 100
"""At most this many publications in one checkpoint commit (its message lists each)."""


@dataclass(slots=True)
class Pending:
    """One pending outbox row with its journal entry and files."""

    seq: int
    entry: Entry
    files: list[JournalFile]


def flush(state_dir: Path, store: Store, root: Path | None = None, loose_limit: int | None = None) -> None:
    """Commit every pending checkpoint, oldest first, consecutive ones by the same actor as
    one commit (`batches`); on a failure the rest stay pending.
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
    except hrepo.git_errors() as exc:
        _set_reason(store, [seq for seq, _ in pending], f"the checkpoint repository cannot be opened: {exc}")
        return
    items: list[Pending] = []
    for seq, journal_seq in pending:
        entry = journal.entry(conn, journal_seq)
        if entry is not None:
            items.append(Pending(seq, entry, journal.files(conn, journal_seq)))
    groups = batches(items)
    for n, group in enumerate(groups):
        try:
            commit_id, parent, rows_ = _commit(repo, group)
        except hrepo.git_errors() as exc:
            left = [item.seq for later in groups[n:] for item in later]
            _set_reason(store, left, f"the checkpoint commit failed: {exc}")
            return
        with store.write(durable=True) as tx:
            for item in group:
                tx.execute(
                    "UPDATE git_outbox SET state=?, commit_id=?, reason=NULL WHERE seq=?",
                    (COMMITTED, commit_id, item.seq),
                )
                # a replay of the request then answers with the commit, as a later read does
                tx.execute(
                    "UPDATE receipts SET receipt=json_set(receipt, '$.git', json(?)) WHERE request_id=?",
                    (f'{{"state": "committed", "commit": "{commit_id}"}}', item.entry.request_id),
                )
            index.record(tx, repo[commit_id], parent, rows_)
    with contextlib.suppress(*hrepo.git_errors()):  # packing is tried again after the next commit
        hrepo.maybe_pack(repo, loose_limit)


def batches(items: list[Pending]) -> list[list[Pending]]:
    """Consecutive pending publications grouped into commits: a group holds publications
    of one run by one actor (a commit has one author) and ends before one that writes a
    path the group already wrote (so every version of every file gets its own commit), or
    at `BATCH_MAX`. A publication of no run (a person's save) is committed alone, as is
    one with a line break in a path (the batch message names paths one a line)."""
    out: list[list[Pending]] = []
    group: list[Pending] = []
    paths: set[str] = set()
    for item in items:
        mine = {f.path for f in item.files}
        if group and (
            _alone(item)
            or _alone(group[0])
            or len(group) >= BATCH_MAX
            or (item.entry.actor, item.entry.run_id) != (group[0].entry.actor, group[0].entry.run_id)
            or not mine.isdisjoint(paths)
        ):
            out.append(group)
            group, paths = [], set()
        group.append(item)
        paths |= mine
    if group:
        out.append(group)
    return out


def _alone(item: Pending) -> bool:
    return item.entry.run_id is None or any("\n" in f.path or "\r" in f.path for f in item.files)


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


def _commit(repo: Any, group: list[Pending]) -> tuple[str, str | None, list[index.PathRow]]:
    """One commit for `group`: the previous checkpoint's tree with its files set to their
    new bytes; its id, its parent's, and the index rows of the paths it changed (in a
    batch, each with its own publication's operation, actor and reason)."""
    parent = hrepo.head(repo)
    base = None if parent is None else parent.tree
    changes = {f.path: f.new_data for item in group for f in item.files}
    tree, moved = trees.apply(repo, base, changes)
    rows: list[index.PathRow] = []
    named: list[list[index.PathRow]] = []  # every file of each publication, for the message
    for item in group:
        mine: list[index.PathRow] = []
        for f in item.files:
            blob = moved[f.path][1] if f.path in moved else None  # None: deleted (or unchanged)
            row = index.row_for(f.path, None if blob is None else str(blob), f.new_data)
            row.record_id = f.record_id or row.record_id
            row.revision = f.revision if f.revision is not None else row.revision
            if len(group) > 1:
                row.author = item.entry.actor or "unknown"
                row.operation = item.entry.operation
                row.reason = _reason(item.entry)
            mine.append(row)
            if f.path in moved:  # else the checkpoint already held these bytes
                rows.append(row)
        named.append(mine)
    last = group[-1].entry
    if len(group) == 1:
        text = message(last, group[0].files)
    else:
        text = batch_message([item.entry for item in group], named)
    when = _epoch(str(last.plan.get("at", last.created_at)))
    commit = hrepo.make_commit(repo, tree, parent, last.actor or "unknown", when, text)
    return str(commit.id), None if parent is None else str(parent.id), rows


def _reason(entry: Entry) -> str | None:
    reason = entry.plan.get("reason")
    return " ".join(str(reason).split()) if reason else None


def message(entry: Entry, files: list[JournalFile]) -> str:
    """The message of a one-publication checkpoint (`history` reads its trailers)."""
    records = sorted({f.record_id for f in files if f.record_id})
    lines = [
        f"{entry.operation} {entry.target_id or ', '.join(records) or ''}".rstrip(),
        "",
        f"Operation: {entry.operation}",
        f"Records: {', '.join(records)}",
        f"Request: {one_line(entry.request_id)}",
        f"Actor: {one_line(entry.actor or 'unknown')}",
        f"Journal: {entry.seq}",
    ]
    reason = _reason(entry)
    if reason:
        lines.append(f"Reason: {reason}")
    return "\n".join(lines) + "\n"


def batch_message(entries: list[Entry], files: list[list[index.PathRow]]) -> str:
    """The message of a checkpoint of several publications (docs/history.md, "Batched
    checkpoints"): a summary block, read as one publication's trailers are, then one
    block per publication from `Entry: <journal id>`, with a `File:` line per path it
    wrote, so that the index can be rebuilt from the repository row for row."""
    operations = list(dict.fromkeys(e.operation for e in entries))
    records = sorted({r.record_id for rows in files for r in rows if r.record_id})
    lines = [
        f"{len(entries)} publications: {', '.join(operations)}",
        "",
        f"Operation: {', '.join(operations)}",
        f"Records: {', '.join(records)}",
        f"Request: {', '.join(one_line(e.request_id) for e in entries)}",
        f"Actor: {one_line(entries[0].actor or 'unknown')}",
        f"Journal: {', '.join(str(e.seq) for e in entries)}",
        f"Batch: {len(entries)}",
    ]
    for entry, rows in zip(entries, files, strict=True):
        mine = sorted({r.record_id for r in rows if r.record_id})
        lines += [
            "",
            f"{index.ENTRY_KEY}: {entry.seq}",
            f"Operation: {entry.operation}",
            f"Records: {', '.join(mine)}",
            f"Request: {one_line(entry.request_id)}",
            f"Actor: {one_line(entry.actor or 'unknown')}",
        ]
        reason = _reason(entry)
        if reason:
            lines.append(f"Reason: {reason}")
        lines += [index.file_line(r) for r in rows]
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
    except hrepo.git_errors():
        return None


def history(
    state_dir: Path, store: Store, record_id: str, limit: int = 50, until: str | None = None
) -> list[dict[str, Any]]:
    """Every checkpointed version of the record, by exact id (also a withdrawn, superseded
    or merged record's, and across a move to another path), newest first, from the index
    (brought to the branch's head first); with `until`, up to that checkpoint commit."""
    repo = _reader(state_dir)
    if repo is not None:
        with contextlib.suppress(*hrepo.git_errors(), sqlite3.Error):  # answered from what is indexed
            index.sync(store, repo)
    return index.versions(store.reader(), record_id, limit, until)
