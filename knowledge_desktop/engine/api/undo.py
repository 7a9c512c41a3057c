"""The one undo protocol of the knowledge API (docs/decisions.md, "The knowledge API mapped
onto the vault"; spec: facts-entities-collections-api, Changes and undo).

Every module that journals a write registers how to undo it here, keyed by the journal
operation (`register_undo`), and `changes.revert` looks the undo up in `UNDO`, whoever
reverts: an extension's session or the person. That is why an undo is handed a `Changer` (a
store, a vault folder, a publish path, an actor and a run) and the journal `Entry`, and never
a `Session`: the person has none. What the undo needs of a partition it reads from the entry
(its files' paths, its plan) and the changer's store and folder.

An undo answers an `UndoStep`: what the person is told, the planner of the undo request (None:
nothing to write), and what to do once that request is published, for the one thing that is
not Markdown and so not written by the publish path: a collection's folder and marker. The
reverter journals the step as `<operation>-undo` with `extra.reverts` naming the entry, in
its own run, so every undo, a folder's too, leaves a journal trace that lists the entry as
reverted and keeps a second revert from undoing it again.

This module sits below `changes`, `documents` and `collections` so that each can register
its undos without importing the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.session import Session, Write, new_run_id
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.journal import Entry
from knowledge_desktop.engine.write.plan import Plan, Request
from knowledge_desktop.engine.write.requests import make_request

MANAGE = "changes.manage"
PERSON = "user"
Planner = Callable[[WriteContext], Plan]


@dataclass(frozen=True, slots=True)
class Changer:
    """Who lists and reverts changes: an extension (`session`) or the person (no session)."""

    store: Store
    write: Write
    actor: str
    run_id: str
    root: Path
    """The vault folder: an undo reads and removes files of the partition an entry wrote."""
    session: Session | None = None

    @classmethod
    def of(cls, session: Session) -> Changer:
        return cls(session.store, session.write, session.actor, session.run_id, session.root, session)

    @classmethod
    def person(cls, store: Store, write: Write, run_id: str | None = None, *, root: Path) -> Changer:
        return cls(store, write, PERSON, run_id or new_run_id(), root)

    @property
    def sees_all(self) -> bool:
        return self.session is None or self.session.allowed(MANAGE)

    def request(self, operation: str, payload: dict[str, Any]) -> Request:
        return make_request(operation, payload, actor=self.actor, run_id=self.run_id)

    def change_ref(self, seq: int) -> str:
        """An extension gets an opaque `chg_…` ref; the person the journal id itself."""
        if self.session is None:
            return str(seq)
        return self.session.refs.issue("change", [str(seq)])[0]

    def seq_of(self, ref: str) -> int:
        if self.session is None:
            # ASCII digits only ('²' is a digit to `isdigit`), and no more than SQLite holds
            if not (ref.isascii() and ref.isdigit()) or int(ref) >= 2**63:
                raise ApiError(f"{ref!r} is not a change (a journal id)")
            return int(ref)
        rows = self.store.reader().execute("SELECT seq FROM journal WHERE actor=?", (self.actor,))
        found = self.session.refs.lookup(ref, "change", lambda: [str(r[0]) for r in rows])
        if found is None:
            raise ApiError(f"no change for ref {ref}")
        return int(found)


class NothingToUndo(ApiError):
    """A change whose effect is already gone (its claim withdrawn since, say)."""


@dataclass(frozen=True, slots=True)
class UndoStep:
    """How one change is undone: the note for the person, the planner of the undo request (None:
    nothing needs writing), and `then`, run once that request is published, for what the
    publish path does not write (a collection's folder and marker)."""

    note: str
    planner: Planner | None
    then: Callable[[], None] | None = None


Undo = Callable[[Changer, Entry], UndoStep]
UNDO: dict[str, Undo] = {}


def register_undo(operation: str) -> Callable[[Undo], Undo]:
    """Register the undo of journal operation `operation` (a decorator)."""

    def add(undo: Undo) -> Undo:
        UNDO[operation] = undo
        return undo

    return add


def marked(plan: Plan, entry: Entry) -> Plan:
    """`plan` as the undo of `entry`: operation `<op>-undo`, `extra.reverts` = its journal id."""
    plan.operation = f"{entry.operation}-undo"
    plan.extra = {**plan.extra, "reverts": entry.seq}
    return plan


def entry_scope(store: Store, entry: Entry) -> str:
    """The partition an entry wrote in (the journal keeps it per entry)."""
    row = store.reader().execute("SELECT scope FROM journal WHERE seq=?", (entry.seq,)).fetchone()
    if row is None or not row[0]:
        raise NothingToUndo(f"change {entry.seq} names no partition")
    return str(row[0])
