"""Uninstalling an extension: what it contributed, then Keep or Delete (issue 16 §2; spec:
facts-entities-collections-api, Uninstall and data ownership; docs/decisions.md).

- `contributions` counts what the extension wrote that is still there: its current facts (the
  claims its `fact-put`s made, or whose origin it is), the documents it created that still
  exist, and the collections whose marker says it created them.
- `uninstall` removes its private state either way (`Extensions.remove`: its row and ref key,
  grants, refs, ticked folders). Its declared predicates stay in the partition's vocabulary
  file, and its quota rows stay, so a reinstall neither loses facts' predicates nor resets
  the day.
- Keep (the default) leaves every fact and document as it is; the evidence still names it.
- Delete is one run of the person (`user`), every step through the publish path, so that
  `changes.revert` of that run undoes it: each document outside the collections it created is
  deleted (`document-delete`), each current fact expires (`fact-expire`: `expires_at` set to
  now, the claim kept, as the spec's "the facts expire" reads), and each collection it created
  goes with everything in it (`collection-delete`, outermost first). Reverting writes back the
  bytes of each file; the private state is not given back (the spec: a reinstall starts from
  nothing of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.session import Write, actor_of, new_run_id
from knowledge_desktop.engine.api.undo import (
    PERSON,
    Changer,
    NothingToUndo,
    Planner,
    UndoStep,
    marked,
    register_undo,
)
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.journal import Entry
from knowledge_desktop.engine.write.operations.lifecycle import revise
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected
from knowledge_desktop.engine.write.requests import make_request

EXPIRE = "fact-expire"


@dataclass(frozen=True, slots=True)
class Contributions:
    """What an extension wrote that is still there: the Keep/Delete dialog's counts."""

    facts: list[str]
    """Claim ids of its current facts."""
    documents: list[str]
    """Record ids of the documents it created that still exist."""
    collections: list[cols.Collection]
    """The collections it created, as they are now."""

    def as_json(self) -> dict[str, int]:
        return {
            "facts": len(self.facts),
            "documents": len(self.documents),
            "collections": len(self.collections),
        }


@dataclass(slots=True)
class Uninstalled:
    name: str
    deleted: bool
    contributed: Contributions
    run_id: str | None
    """The Delete's run (revert it to undo the Delete); None for Keep."""
    changes: int = 0
    kept: list[str] = field(default_factory=list)
    """Files a Delete could not remove (not records, or changed while it ran)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "mode": "delete" if self.deleted else "keep",
            "contributed": self.contributed.as_json(),
            "runId": self.run_id,
            "changes": self.changes,
            "kept": self.kept,
        }


def contributions(store: Store, root: Path, name: str) -> Contributions:
    """The counts `uninstall` offers for extension `name` (`UnknownExtension` if it is not
    installed)."""
    scope = Extensions(store, root).get(name).scope
    actor = actor_of(name)
    conn = store.reader()
    now = utc_now_text()
    facts = conn.execute(
        "SELECT claim_id FROM facts_v1 WHERE scope=? AND eligible=1"
        " AND (active_from IS NULL OR active_from<=?) AND (active_until IS NULL OR active_until>?)"
        " AND (origin=? OR claim_id IN (SELECT target_id FROM journal WHERE actor=? AND operation=?"
        " AND state=?)) ORDER BY claim_id",
        (scope, now, now, actor, actor, "fact-put", journal.PUBLISHED),
    )
    created = conn.execute(
        "SELECT DISTINCT target_id FROM journal WHERE actor=? AND operation=? AND state=? AND scope=?",
        (actor, docs.CREATE, journal.PUBLISHED, scope),
    )
    place = docs.Place(store, root, scope)
    documents = sorted(str(r[0]) for r in created if r[0] and docs.by_id(place, str(r[0])) is not None)
    index = cols.CollectionIndex(root / scope)
    made = sorted((c for c in index.by_folder.values() if c.created_by == actor), key=lambda c: c.folder)
    return Contributions([str(r[0]) for r in facts], documents, made)


def uninstall(
    store: Store, root: Path, write: Write, name: str, *, delete: bool = False, run_id: str | None = None
) -> Uninstalled:
    """Uninstall extension `name`: Keep (default) or, with `delete`, Delete what it contributed
    in one run of the person; its private state goes either way (see the module docstring)."""
    extensions = Extensions(store, root)
    scope = extensions.get(name).scope
    contributed = contributions(store, root, name)
    result = Uninstalled(name, delete, contributed, None)
    if delete:
        result.run_id = run_id or new_run_id()
        _delete(Changer.person(store, write, result.run_id, root=root), scope, name, contributed, result)
    extensions.remove(name)
    return result


def _delete(who: Changer, scope: str, name: str, contributed: Contributions, result: Uninstalled) -> None:
    reason = f"uninstalling extension {name}"
    inside = [f"{scope}/{c.folder}/" for c in contributed.collections]
    place = docs.Place(who.store, who.root, scope)

    def publish(operation: str, target: str, planner: Planner) -> bool:
        payload = {"id": target, "uninstall": name}
        try:
            who.write(make_request(operation, payload, actor=PERSON, run_id=who.run_id), planner)
        except WriteRejected as exc:  # changed while the Delete ran: it stays, and is listed
            result.kept.append(f"{operation} {target}: {exc.message}")
            return False
        result.changes += 1
        return True

    for record_id in contributed.documents:
        found = docs.by_id(place, record_id)
        if found is None or any(found.path.startswith(p) for p in inside):
            continue  # gone since, or goes with its collection
        publish(docs.DELETE, record_id, partial(_delete_document, found, reason))
    for claim_id in contributed.facts:
        publish(EXPIRE, claim_id, partial(_plan_expire, claim_id, reason))
    outermost = [
        c
        for c in contributed.collections
        if not any(c.folder.startswith(f"{o.folder}/") for o in contributed.collections)
    ]
    for col in outermost:
        plan, kept = cols.deletion(who.root, scope, col, reason)
        if publish(cols.DELETE_OP, col.id, partial(_planned, plan)):
            cols.remove_folders(who.root, plan)
            result.kept += kept


def _delete_document(found: docs.Found, reason: str, ctx: WriteContext) -> Plan:
    return docs.deletion(found, reason)


def _planned(plan: Plan, ctx: WriteContext) -> Plan:
    """A plan made before the write lock: every file it deletes is fenced by its hash."""
    return plan


def _plan_expire(claim_id: str, reason: str, ctx: WriteContext) -> Plan:
    """The claim with `expires_at` now: no longer current, nothing deleted, and its earlier
    bytes in the journal for the undo."""
    current = ctx.lookup(claim_id)
    ctx.record(current.fence())
    return Plan(EXPIRE, claim_id, reason, [revise(ctx, current, {"expires_at": ctx.now})])


@register_undo(EXPIRE)
def _undo_expire(who: Changer, entry: Entry) -> UndoStep:
    """The claim as it was before it expired, if it is as the expiry left it."""
    files = journal.files(who.store.reader(), entry.seq)
    if len(files) != 1 or files[0].old_data is None:
        raise NothingToUndo("the change names no claim file")
    f = files[0]

    def planner(ctx: WriteContext) -> Plan:
        if ctx.sha_on_disk(f.path) != f.new_sha256:
            raise NothingToUndo("the fact changed or moved since; it is kept as it is")
        write = FileWrite(f.path, f.old_data, f.new_sha256, f.record_id or "", (f.revision or 1) - 1)
        return marked(Plan("", entry.target_id, f"reverted by {who.actor}", [write]), entry)

    return UndoStep("the fact is current again", planner)
