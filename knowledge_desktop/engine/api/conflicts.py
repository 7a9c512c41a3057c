"""The person's decision on a conflict: View Changes' Accept and Reject (issue 16 §4; spec:
facts-entities-collections-api, "Writing facts" and "What the user sees").

An extension's put that would replace a value the person said writes nothing:
`facts.put` journals a `fact-conflict` entry (state `conflict`) with the
proposed and the current value. The conflict stays open until the person
decides, and that decision is the entry's `reviewed_at` (the journal's column
for "a person has looked at this"), so an open conflict is one not reviewed.

- Accept: the proposed value becomes the person's own (`user_facts.put`, origin
  `user`, its plan naming the conflict in `extra.resolves`), then the entry is
  marked reviewed. It is a write like any other, so `changes.revert` undoes it.
- Reject: the person's value stays; the entry is only marked reviewed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api import facts, user_facts
from knowledge_desktop.engine.api.changes import Changer
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.journal import Entry


@dataclass(frozen=True, slots=True)
class Conflict:
    """One open conflict as View Changes shows it."""

    seq: int
    run_id: str | None
    actor: str
    scope: str
    subject_id: str
    subject: str
    """The subject page's title (its id when the page is gone)."""
    predicate: str
    proposed: Any
    current: Any
    current_claim: str | None
    created_at: str


def _scope(store: Store, seq: int) -> str:
    row = store.reader().execute("SELECT scope FROM journal WHERE seq=?", (seq,)).fetchone()
    return str(row[0] or "") if row is not None else ""


def _conflict(store: Store, entry: Entry) -> Conflict:
    extra = entry.plan.get("extra") or {}
    proposed, held = extra.get("proposed") or {}, extra.get("current") or {}
    scope = _scope(store, entry.seq)
    subject_id = str(extra.get("subjectId") or "")
    row = (
        store.reader()
        .execute(
            "SELECT title FROM catalog WHERE scope=? AND id=? AND +kind='page' LIMIT 1", (scope, subject_id)
        )
        .fetchone()
    )
    return Conflict(
        entry.seq,
        entry.run_id,
        entry.actor,
        scope,
        subject_id,
        str(row[0]) if row is not None and row[0] else subject_id,
        str(proposed.get("predicate") or ""),
        proposed.get("value"),
        held.get("value"),
        held.get("claimId"),
        entry.created_at,
    )


def open_conflicts(store: Store) -> list[Conflict]:
    """The conflicts the person has not decided on, newest first."""
    conn = store.reader()
    rows = conn.execute(
        "SELECT seq FROM journal WHERE state=? AND operation=? AND reviewed_at IS NULL ORDER BY seq DESC",
        (journal.CONFLICT, facts.CONFLICT),
    ).fetchall()
    found = [journal.entry(conn, int(r[0])) for r in rows]
    return [_conflict(store, e) for e in found if e is not None]


def _open(store: Store, seq: int) -> Conflict:
    found = journal.entry(store.reader(), seq)
    if found is None or found.state != journal.CONFLICT or found.operation != facts.CONFLICT:
        raise ApiError(f"journal entry {seq} is no fact conflict")
    if found.reviewed_at is not None:
        raise ApiError(f"the conflict {seq} was already decided on {found.reviewed_at}")
    return _conflict(store, found)


def _decided(store: Store, seq: int) -> None:
    with store.write(durable=True) as tx:
        journal.mark_reviewed(tx, seq, utc_now_text())


def accept(who: Changer, root: Path, seq: int) -> user_facts.UserPut:
    """The proposed value of conflict `seq` becomes the person's own; the conflict is closed."""
    conflict = _open(who.store, seq)
    result = user_facts.put(
        who, root, conflict.scope, conflict.subject_id, conflict.predicate, conflict.proposed, resolves=seq
    )
    _decided(who.store, seq)
    return result


def reject(who: Changer, seq: int) -> None:
    """The person's value stays; the conflict is closed."""
    if who.session is not None:
        raise ApiError("only the person decides on a conflict")
    _open(who.store, seq)
    _decided(who.store, seq)
