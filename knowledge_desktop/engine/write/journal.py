"""The operation journal in `state.sqlite`: one entry per accepted request, and its files.

An entry is written, in one durable transaction, *before* the first file is
replaced: the request, the actor, the plan (reason, guards, impact, extra
receipt fields) and, in `journal_files`, every file's bytes before and
after. That is what makes a multi-file plan all-or-nothing across a crash:
whoever finds an entry still `pending` (the next open, or `resume`) compares
each file on disk with its two hashes and either finishes the replacements
or puts back the ones already made. States:

- `pending`: intent recorded; files may be partly replaced.
- `published`: every file replaced, guards applied, receipt stored.
- `rolled-back`: nothing of it stays on disk; `outcome` says why (a conflict
  with an outside edit, or a failed write).
- `conflict`: a write the knowledge API refused to make because it would
  overwrite what the person said (issue 16): no files, never published; its
  plan holds the proposed and the current value for View Changes.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.write.plan import Plan, WriteRejected

PENDING, PUBLISHED, ROLLED_BACK, CONFLICT = "pending", "published", "rolled-back", "conflict"
DELETED_MARK = ""
"""`journal_files.new_sha256` of a file the entry deletes (with an empty `new_data`): the
columns are NOT NULL, and no SHA-256 is empty, so the mark cannot be taken for bytes."""


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    request_id: str
    operation: str
    payload_sha256: str
    actor: str
    target_id: str | None
    state: str
    plan: dict[str, Any]
    """reason, replacementId, guards, impact, extra and `at` (the operation's time)."""
    outcome: dict[str, Any] | None
    created_at: str
    finished_at: str | None
    reviewed_at: str | None
    run_id: str | None = None
    """The run the entry belongs to (issue 16), when its request named one."""

    @property
    def conflict(self) -> bool:
        return self.outcome is not None and self.outcome.get("code") == "write-conflict"


@dataclass(frozen=True, slots=True)
class JournalFile:
    idx: int
    path: str
    record_id: str | None
    revision: int | None
    old_sha256: str | None
    """None: the file did not exist before."""
    old_data: bytes | None
    new_sha256: str | None
    new_data: bytes | None
    """None (with `new_sha256`): the entry deletes the file."""

    @property
    def deletes(self) -> bool:
        return self.new_data is None


_ENTRY_COLUMNS = (
    "seq, request_id, operation, payload_sha256, actor, target_id, state, plan, outcome,"
    " created_at, finished_at, reviewed_at, run_id"
)


def record_intent(
    tx: Tx,
    *,
    request_id: str,
    operation: str,
    payload_sha256: str,
    actor: str,
    target_id: str | None,
    scope: str | None,
    payload: dict[str, Any],
    plan: dict[str, Any],
    files: list[JournalFile],
    now: str,
    run_id: str | None = None,
) -> int:
    """Insert a `pending` entry with its files; its journal id (`seq`)."""
    cursor = tx.execute(
        "INSERT INTO journal(request_id, operation, scope, payload, created_at, payload_sha256, actor,"
        " target_id, state, plan, run_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            request_id,
            operation,
            scope,
            json.dumps(payload, ensure_ascii=False, sort_keys=True),
            now,
            payload_sha256,
            actor,
            target_id,
            PENDING,
            json.dumps(plan, ensure_ascii=False),
            run_id,
        ),
    )
    seq = cursor.lastrowid
    assert seq is not None
    tx.executemany(
        "INSERT INTO journal_files(seq, idx, path, record_id, revision, old_sha256, old_data,"
        " new_sha256, new_data) VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (
                seq,
                f.idx,
                f.path,
                f.record_id,
                f.revision,
                f.old_sha256,
                f.old_data,
                DELETED_MARK if f.new_sha256 is None else f.new_sha256,
                b"" if f.new_data is None else f.new_data,
            )
            for f in files
        ],
    )
    return seq


def record_conflict(
    tx: Tx,
    *,
    request_id: str,
    operation: str,
    actor: str,
    target_id: str | None,
    scope: str,
    payload: dict[str, Any],
    plan: dict[str, Any],
    now: str,
    run_id: str | None,
) -> int:
    """Journal a write that was not made (state `conflict`, no files): the person decides on it
    in View Changes. Its journal id."""
    cursor = tx.execute(
        "INSERT INTO journal(request_id, operation, scope, payload, created_at, payload_sha256, actor,"
        " target_id, state, plan, run_id, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            request_id,
            operation,
            scope,
            json.dumps(payload, ensure_ascii=False, sort_keys=True),
            now,
            "",
            actor,
            target_id,
            CONFLICT,
            json.dumps(plan, ensure_ascii=False),
            run_id,
            now,
        ),
    )
    seq = cursor.lastrowid
    assert seq is not None
    return seq


def finish(tx: Tx, seq: int, state: str, now: str, outcome: dict[str, Any] | None = None) -> None:
    tx.execute(
        "UPDATE journal SET state=?, outcome=?, finished_at=? WHERE seq=?",
        (state, json.dumps(outcome, ensure_ascii=False) if outcome else None, now, seq),
    )


def mark_reviewed(tx: Tx, seq: int, now: str) -> None:
    tx.execute("UPDATE journal SET reviewed_at=? WHERE seq=? AND reviewed_at IS NULL", (now, seq))


def entry(conn: sqlite3.Connection | Tx, seq: int) -> Entry | None:
    row = conn.execute(f"SELECT {_ENTRY_COLUMNS} FROM journal WHERE seq=?", (seq,)).fetchone()
    return _entry(row) if row else None


def by_request(conn: sqlite3.Connection | Tx, request_id: str) -> Entry | None:
    """The latest entry of a request id."""
    row = conn.execute(
        f"SELECT {_ENTRY_COLUMNS} FROM journal WHERE request_id=? ORDER BY seq DESC LIMIT 1", (request_id,)
    ).fetchone()
    return _entry(row) if row else None


def pending(conn: sqlite3.Connection | Tx) -> list[Entry]:
    rows = conn.execute(f"SELECT {_ENTRY_COLUMNS} FROM journal WHERE state=? ORDER BY seq", (PENDING,))
    return [_entry(r) for r in rows]


def unreviewed_conflicts(conn: sqlite3.Connection | Tx) -> list[Entry]:
    rows = conn.execute(
        f"SELECT {_ENTRY_COLUMNS} FROM journal WHERE state=? AND reviewed_at IS NULL"
        " AND json_extract(outcome, '$.code')='write-conflict' ORDER BY seq",
        (ROLLED_BACK,),
    )
    return [_entry(r) for r in rows]


def files(conn: sqlite3.Connection | Tx, seq: int) -> list[JournalFile]:
    rows = conn.execute(
        "SELECT idx, path, record_id, revision, old_sha256, old_data, new_sha256, new_data"
        " FROM journal_files WHERE seq=? ORDER BY idx",
        (seq,),
    )
    return [_file(row) for row in rows]


def _file(row: tuple[Any, ...]) -> JournalFile:
    idx, path, record_id, revision, old_sha, old_data, new_sha, new_data = row
    if new_sha == DELETED_MARK:
        return JournalFile(idx, path, record_id, revision, old_sha, old_data, None, None)
    return JournalFile(idx, path, record_id, revision, old_sha, old_data, new_sha, new_data)


def listing(conn: sqlite3.Connection, limit: int, offset: int) -> tuple[list[Entry], int]:
    """Entries newest first, and how many there are."""
    total = conn.execute("SELECT count(*) FROM journal").fetchone()[0]
    rows = conn.execute(
        f"SELECT {_ENTRY_COLUMNS} FROM journal ORDER BY seq DESC LIMIT ? OFFSET ?", (limit, offset)
    )
    return [_entry(r) for r in rows], int(total)


def _entry(row: tuple[Any, ...]) -> Entry:
    seq, request_id, operation, sha, actor, target, state, plan, outcome, created, finished, reviewed, run = (
        row
    )
    return Entry(
        seq,
        request_id,
        operation,
        sha or "",
        actor or "",
        target,
        state,
        json.loads(plan) if plan else {},
        json.loads(outcome) if outcome else None,
        created,
        finished,
        reviewed,
        run,
    )


def plan_json(plan: Plan, now: str, affected: list[dict[str, Any]]) -> dict[str, Any]:
    """What an entry keeps of its plan besides the files: the receipt's fields and the guards."""
    return {
        "reason": plan.reason,
        "replacementId": plan.replacement_id,
        "guards": [
            {"scope": g.scope, "recordId": g.record_id, "guard": g.guard, "byId": g.by_id, "lift": g.lift}
            for g in plan.guards
        ],
        "impact": affected,
        "extra": plan.extra,
        "at": now,
    }


def outcome_error(entry: Entry) -> WriteRejected:
    """A rolled-back entry's outcome, raised again for whoever asks after it."""
    outcome = entry.outcome or {}
    code = str(outcome.get("code", "rolled-back"))
    current = {k: v for k, v in outcome.items() if k not in ("code", "message")}
    current.update({"journalId": entry.seq, "state": entry.state, "reviewedAt": entry.reviewed_at})
    return WriteRejected(code, str(outcome.get("message", "the request was rolled back")), current)


def entry_json(entry: Entry, receipt: dict[str, Any] | None) -> dict[str, Any]:
    """One journal entry as `knowledge journal` lists it."""
    return {
        "journalId": entry.seq,
        "requestId": entry.request_id,
        "operation": entry.operation,
        "targetId": entry.target_id,
        "state": entry.state,
        "actor": entry.actor,
        "at": entry.created_at,
        "finishedAt": entry.finished_at,
        "receipt": receipt,
        "outcome": entry.outcome,
        "reviewedAt": entry.reviewed_at,
        "runId": entry.run_id,
    }
