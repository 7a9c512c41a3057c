"""Changes and undo: `changes.list` and `changes.revert` (spec: facts-entities-collections-api,
Changes and undo; docs/decisions.md, "The knowledge API mapped onto the vault").

A change is a journal entry: its actor, run id, operation, target and state
(a published write is `applied`, or `reverted` once an undo names it; a
refused put is a `conflict` entry). Whoever asks is a `Changer`: an
extension's session (it sees its own changes; with `changes.manage`, every
change of its partition) or the person (every change; `Changer.person`).

Revert undoes each change of a run newest first, or one change by ref, each
through the publish path as a request of the reverter, in the reverter's
run, whose plan names the entry it reverts (`extra.reverts`). How an
operation is undone is looked up in `UNDO` (`api/undo.py`, the one undo
protocol) by the entry's operation: facts and entities register theirs here,
documents and collections in their own modules, imported here so that every
undo is registered before the first revert. A change without an undo is
reported as skipped, never guessed at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.api import collections, documents, entities, facts, uninstall
from knowledge_desktop.engine.api.undo import (
    MANAGE,
    PERSON,
    UNDO,
    Changer,
    NothingToUndo,
    Planner,
    Undo,
    UndoStep,
    marked,
    register_undo,
)
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.journal import Entry
from knowledge_desktop.engine.write.operations.common import ASSIGNED, LIFECYCLE_METADATA
from knowledge_desktop.engine.write.operations.create import plan_new
from knowledge_desktop.engine.write.operations.lifecycle import lifecycle_of, revise
from knowledge_desktop.engine.write.operations.supersede import plan_unsupersede
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Plan, WriteRejected

__all__ = [
    "MANAGE",
    "PERSON",
    "UNDO",
    "Change",
    "Changer",
    "NothingToUndo",
    "Planner",
    "RevertResult",
    "Reverted",
    "Undo",
    "UndoStep",
    "list_changes",
    "register_undo",
    "revert",
    "reverted_seqs",
]
REGISTERED = (collections, documents, uninstall)
"""The modules whose undos `UNDO` holds besides this one's (imported for that alone)."""
LIST_LIMIT = 1000
STATUS = {journal.PUBLISHED: "applied", journal.CONFLICT: "conflict"}
REF_KINDS = {"fact-": "fact", "entity-": "entity", "document-": "document", "collection-": "collection"}


@dataclass(frozen=True, slots=True)
class Change:
    ref: str
    run_id: str | None
    actor: str
    op: str
    target: str | None
    summary: str
    status: str
    proposed: Any
    created_at: str

    def as_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "runId": self.run_id,
            "actor": self.actor,
            "op": self.op,
            "target": self.target,
            "summary": self.summary,
            "status": self.status,
            "proposed": self.proposed,
            "createdAt": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class Reverted:
    """What revert did with one change: `reverted` (with the undo's journal id), `skipped` or
    `failed`, and why."""

    ref: str
    op: str
    status: str
    note: str
    journal_id: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "op": self.op, "status": self.status, "note": self.note}


@dataclass(slots=True)
class RevertResult:
    items: list[Reverted] = field(default_factory=list)

    @property
    def reverted(self) -> int:
        return sum(i.status == "reverted" for i in self.items)

    def as_json(self) -> dict[str, Any]:
        return {"reverted": self.reverted, "items": [i.as_json() for i in self.items]}


# -- listing ---------------------------------------------------------------------------------
def _entries(who: Changer, run_id: str | None, seq: int | None = None) -> list[Entry]:
    where: list[str] = ["1"]
    args: list[Any] = []
    if seq is not None:
        where.append("seq=?")
        args.append(seq)
    if run_id is not None:
        where.append("run_id=?")
        args.append(run_id)
    if who.session is not None:
        if who.sees_all:
            where.append("scope=?")
            args.append(who.session.scope)
        else:
            where.append("actor=?")
            args.append(who.actor)
    conn = who.store.reader()
    rows = conn.execute(
        f"SELECT seq FROM journal WHERE {' AND '.join(where)} ORDER BY seq DESC LIMIT ?", (*args, LIST_LIMIT)
    )
    found = [journal.entry(conn, int(r[0])) for r in rows.fetchall()]
    return [e for e in found if e is not None]


def reverted_seqs(store: Store) -> set[int]:
    """Journal ids that a published undo names."""
    rows = store.reader().execute(
        "SELECT json_extract(plan, '$.extra.reverts') FROM journal WHERE state=?"
        " AND json_extract(plan, '$.extra.reverts') IS NOT NULL",
        (journal.PUBLISHED,),
    )
    return {int(r[0]) for r in rows}


def _summary(entry: Entry, title: str | None = None) -> str:
    extra = entry.plan.get("extra") or {}
    if entry.state == journal.CONFLICT:
        proposed, current = extra.get("proposed") or {}, extra.get("current") or {}
        return (
            f"{proposed.get('predicate')}: proposed {json.dumps(proposed.get('value'), ensure_ascii=False)},"
            f" the user's {json.dumps(current.get('value'), ensure_ascii=False)} stays"
        )
    if "reverts" in extra:
        return f"undid change {extra['reverts']}"
    name = title or (entry.plan.get("extra") or {}).get("collection", {}).get("folder")
    return f"{entry.operation}: {name}" if name else f"{entry.operation} {entry.target_id or ''}".strip()


def _titles(store: Store, seqs: list[int]) -> dict[str, str]:
    """The title each entry's first file has after it (before it, for a deletion), by journal id:
    what a person recognizes a change by (`fact-put: Me: pref.food.rated = ramen`)."""
    if not seqs:
        return {}
    marks = ",".join("?" * len(seqs))
    rows = store.reader().execute(
        f"SELECT seq, new_data, old_data FROM journal_files WHERE idx=0 AND seq IN ({marks})", seqs
    )
    out: dict[str, str] = {}
    for seq, new, old in rows:
        data = new or old
        title = _title_in(bytes(data)) if data else None
        if title:
            out[str(seq)] = title
    return out


def _title_in(data: bytes) -> str | None:
    try:
        split = frontmatter.split(data.decode("utf-8"))
        loaded = yaml12.load(split.yaml_text) if split is not None else None
    except (UnicodeDecodeError, frontmatter.FrontmatterError, yaml12.YamlError):
        return None
    value = loaded.data.get("title") if loaded is not None and isinstance(loaded.data, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def _target(who: Changer, entry: Entry) -> str | None:
    if entry.target_id is None or who.session is None:
        return entry.target_id
    kind = next((k for prefix, k in REF_KINDS.items() if entry.operation.startswith(prefix)), None)
    if kind is None:
        return None  # an id the extension has no ref kind for
    return who.session.refs.issue(kind, [entry.target_id])[0]


def list_changes(
    who: Changer, *, run_id: str | None = None, status: str | None = None, since: str | None = None
) -> list[Change]:
    """The changes `who` may see, newest first; `status` (`applied`, `reverted`, `conflict`,
    `rolled-back`, `pending`) and `since` (an ISO date or time) narrow them. A query method:
    what it may not see is left out."""
    undone = reverted_seqs(who.store)
    kept: list[tuple[Entry, str]] = []
    for entry in _entries(who, run_id):
        shown = STATUS.get(entry.state, entry.state)
        if shown == "applied" and entry.seq in undone:
            shown = "reverted"
        if (status is None or shown == status) and (since is None or entry.created_at >= since):
            kept.append((entry, shown))
    titles = _titles(who.store, [e.seq for e, _ in kept])  # read only for the changes listed
    out: list[Change] = []
    for entry, shown in kept:
        extra = entry.plan.get("extra") or {}
        proposed = (
            {"proposed": extra.get("proposed"), "current": extra.get("current")}
            if entry.state == journal.CONFLICT
            else None
        )
        out.append(
            Change(
                who.change_ref(entry.seq),
                entry.run_id,
                entry.actor,
                entry.operation,
                _target(who, entry),
                _summary(entry, titles.get(str(entry.seq))),
                shown,
                proposed,
                entry.created_at,
            )
        )
    return out


# -- reverting -------------------------------------------------------------------------------
def revert(who: Changer, *, run_id: str | None = None, change_ref: str | None = None) -> RevertResult:
    """Undo the changes of run `run_id` (newest first) or the one change `change_ref` names."""
    if (run_id is None) == (change_ref is None):
        raise ApiError("revert takes a runId or a change ref, one of them")
    if change_ref is not None:
        entries = _entries(who, None, who.seq_of(change_ref))
        if not entries:
            raise ApiError(f"no change {change_ref} that this caller may revert")
    else:
        entries = _entries(who, run_id)
    result = RevertResult()
    undone = reverted_seqs(who.store)  # read once: a run of 500 changes read it 500 times
    for entry in entries:
        result.items.append(_revert_one(who, entry, undone))
    return result


def _revert_one(who: Changer, entry: Entry, undone: set[int]) -> Reverted:
    ref = who.change_ref(entry.seq)

    def skipped(note: str) -> Reverted:
        return Reverted(ref, entry.operation, "skipped", note)

    if entry.state == journal.CONFLICT:
        return skipped("a conflict: nothing was written")
    if entry.state != journal.PUBLISHED:
        return skipped(f"{entry.state}: nothing of it is on disk")
    if entry.seq in undone:
        return skipped("already reverted")
    undo = UNDO.get(entry.operation)
    if undo is None:
        return skipped(f"no undo for {entry.operation}")
    try:
        step = undo(who, entry)
        if step.planner is None:
            return skipped(step.note)
        receipt = who.write(who.request(f"{entry.operation}-undo", {"reverts": entry.seq}), step.planner)
        if step.then is not None:
            step.then()
    except NothingToUndo as exc:
        return skipped(str(exc))
    except ApiError as exc:
        return Reverted(ref, entry.operation, "failed", str(exc))
    except OSError as exc:  # a folder the undo could not remove or write back
        return Reverted(ref, entry.operation, "failed", f"the files are undone, the folder not: {exc}")
    except WriteRejected as exc:  # a fence or a rule: the person reads why
        return Reverted(ref, entry.operation, "failed", f"{exc.code}: {exc.message}")
    return Reverted(ref, entry.operation, "reverted", step.note, receipt.get("journalId"))


# -- the undos of facts and entities -------------------------------------------------------
@register_undo(facts.PUT)
def _undo_put(who: Changer, entry: Entry) -> UndoStep:
    """Withdraw the claim the put made, and make active again what it superseded."""
    new_id = entry.target_id
    replaced = [str(i) for i in (entry.plan.get("extra") or {}).get("supersededIds", [])]
    if new_id is None:
        raise NothingToUndo("the change names no claim")

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(new_id)
        reason = f"reverted by {who.actor}"
        writes, guards, restored = [], [], []
        if lifecycle_of(ctx, current) != "withdrawn":
            withdrawn = plan_withdraw(ctx, current.fence(), reason)
            writes += withdrawn.writes
            guards += withdrawn.guards
        fences = []
        for claim_id in replaced:
            earlier = ctx.lookup(claim_id)
            if lifecycle_of(ctx, earlier) == "superseded":
                fences.append(earlier.fence())
        if fences:
            lifted = plan_unsupersede(ctx, current.fence(), fences, reason)
            writes += lifted.writes
            guards += lifted.guards
            restored = list(lifted.extra.get("restoredIds", []))
        if not writes:
            raise NothingToUndo("the claim is already withdrawn and nothing it replaced is superseded")
        plan = Plan("", new_id, reason, writes, guards=guards, impact_of=[new_id, *restored])
        plan.extra = {"restoredIds": restored}
        return marked(plan, entry)

    note = "the fact was withdrawn" + (" and the value it replaced is current again" if replaced else "")
    return UndoStep(note, planner)


@register_undo(facts.RETRACT)
def _undo_retract(who: Changer, entry: Entry) -> UndoStep:
    """A withdrawal is permanent: the same fact is said again, as a new claim."""
    files = journal.files(who.store.reader(), entry.seq)
    old = files[0].old_data if files else None
    if old is None:
        raise NothingToUndo("the journal kept no copy of the retracted claim")
    text = old.decode("utf-8")
    fresh = update_frontmatter(text, dict.fromkeys((*ASSIGNED, *LIFECYCLE_METADATA), DELETE))

    def planner(ctx: WriteContext) -> Plan:
        plan = plan_new(ctx, fresh)
        plan.extra = {"sayingAgain": entry.target_id}
        return marked(plan, entry)

    return UndoStep("a withdrawal is permanent: the fact was written again as a new claim", planner)


@register_undo(entities.CREATE)
def _undo_create(who: Changer, entry: Entry) -> UndoStep:
    page_id = entry.target_id
    if page_id is None:
        raise NothingToUndo("the change names no page")

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(page_id)
        return marked(plan_withdraw(ctx, current.fence(), f"reverted by {who.actor}"), entry)

    return UndoStep("the entity's page was withdrawn", planner)


@register_undo(entities.ADD_IDENTIFIER)
def _undo_add_identifier(who: Changer, entry: Entry) -> UndoStep:
    page_id, alias = entry.target_id, (entry.plan.get("extra") or {}).get("alias")
    if page_id is None or not isinstance(alias, str):
        raise NothingToUndo("the change names no identifier")

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(page_id)
        ctx.record(current.fence())
        raw = current.frontmatter.get("aliases")
        aliases = [a for a in raw if isinstance(a, str)] if isinstance(raw, list) else []
        if alias not in aliases:
            raise NothingToUndo(f"{alias} is no longer on the page")
        kept = [a for a in aliases if a != alias]
        write = revise(ctx, current, {"aliases": kept if kept else DELETE})
        plan = Plan("", page_id, f"reverted by {who.actor}", [write])
        return marked(plan, entry)

    return UndoStep(f"the identifier {alias} was removed", planner)
