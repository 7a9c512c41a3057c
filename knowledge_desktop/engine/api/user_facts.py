"""Facts the person says themselves: Settings › Knowledge's editable self facts, a conflict
accepted in View Changes, and the facts a record pane lists (issue 16 §4; spec:
facts-entities-collections-api, "What the user sees").

`facts.put` is an extension's method: it checks grants, charges quotas and
names the extension in the evidence. What the person types in the window is
none of that — it is the person's word, origin `user`, and it overrides what
any extension said (a `cardinality: one` value is superseded whoever said
it). The write is still the same `fact-put` operation through the one publish
path, with the plan `facts.put` makes (the new claim plus the superseded
values in one plan, `extra.supersededIds`), so `changes.revert` undoes it the
same way. The person is a `Changer.person` (actor `user`, a run of its own).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.changes import PERSON, Changer
from knowledge_desktop.engine.api.permissions import as_permission, covers, needed_for_fact
from knowledge_desktop.engine.api.predicates import Vocabulary, cardinality_of
from knowledge_desktop.engine.api.quotas import check_single_write
from knowledge_desktop.engine.api.vocabulary_file import load_vocabulary
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.store.projections import facts as projection
from knowledge_desktop.engine.store.projections.facts import FactRow
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Plan, WriteRejected

SAID_IN = "knowledge:settings"
"""The evidence of a value the person typed: where it was said, not a document."""


@dataclass(frozen=True, slots=True)
class UserPut:
    """`applied` (`claim_id` is the new claim) or `duplicate` (it was already the value)."""

    status: str
    claim_id: str
    superseded: tuple[str, ...] = ()


def current(store: Store, scope: str, subject_id: str, prefix: str | None = None) -> list[FactRow]:
    """The facts about page `subject_id` of `scope` valid now, by predicate (every origin: the
    person sees them all)."""
    return projection.current(store.reader(), scope, subject_id, utc_now_text(), prefix)


def vocabulary_of(root: Path, scope: str) -> Vocabulary:
    """The core predicates plus those declared in partition `scope`."""
    return load_vocabulary(root / scope)


def _person(who: Changer) -> None:
    if who.session is not None or who.actor != PERSON:
        raise ApiError("only the person says a fact as the user; an extension uses facts.put")


def _title(store: Store, scope: str, subject_id: str) -> str:
    row = (
        store.reader()
        .execute(
            "SELECT title FROM catalog WHERE scope=? AND id=? AND +kind='page' AND status='record' LIMIT 1",
            (scope, subject_id),
        )
        .fetchone()
    )
    if row is None:
        raise ApiError(f"no page {subject_id} in partition {scope!r} to say a fact about")
    return str(row[0] or subject_id)


def claim_text(scope: str, subject_id: str, title: str, predicate: str, value: Any) -> str:
    """A new claim file for what the person said (docs/decisions.md's fact layout, with the
    person as the one who believes it)."""
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 120 else shown[:119] + "…"
    fields: dict[str, Any] = {
        "title": f"{title}: {predicate} = {shown}"[:1000],
        "scope": scope,
        "claim_kind": "preference" if predicate.startswith("pref.") else "fact",
        "assertion_origin": "user_belief",
        "attribution": "the user",
        "evidence": [{"url": SAID_IN, "attribution": "the user, in Knowledge Desktop"}],
        "entities": [subject_id],
        "fact": {"predicate": predicate, "value": value, "origin": facts.USER, "source": "user"},
    }
    return update_frontmatter(f"---\nkind: claim\n---\n{title} · {predicate}: {shown}\n", fields)


def put(
    who: Changer,
    root: Path,
    scope: str,
    subject_id: str,
    predicate: str,
    value: Any,
    *,
    resolves: int | None = None,
) -> UserPut:
    """The person says `subject · predicate · value`. On a `cardinality: one` predicate it
    supersedes every current value, whoever said it; `resolves` names the conflict (journal
    id) this settles, kept in the plan so the journal tells why it was written."""
    _person(who)
    check_single_write(value=value)
    value_json = json.dumps(value, ensure_ascii=False, sort_keys=True)
    same = [r for r in current(who.store, scope, subject_id, predicate) if r.predicate == predicate]
    for row in same:
        if row.value_json == value_json and row.object_id is None and row.origin == facts.USER:
            return UserPut("duplicate", row.claim_id)
    one = cardinality_of(predicate, vocabulary_of(root, scope)) == "one"
    replaced = [r.claim_id for r in same] if one else [r.claim_id for r in same if r.value_json == value_json]
    text = claim_text(scope, subject_id, _title(who.store, scope, subject_id), predicate, value)
    payload = {"subject": subject_id, "text": text, "replaces": replaced}

    def planner(ctx: WriteContext) -> Plan:
        plan = facts.plan_put(ctx, text, replaced, "the user gave a new value")
        if resolves is not None:
            plan.extra["resolves"] = resolves
        return plan

    receipt = who.write(who.request(facts.PUT, payload), planner)
    return UserPut("applied", str(receipt["targetId"]), tuple(replaced))


def retract(who: Changer, claim_id: str) -> str:
    """The person takes a fact back (a withdrawal, as `facts.retract`): `retracted`, or
    `already_retracted`."""
    _person(who)

    def planner(ctx: WriteContext) -> Plan:
        plan = plan_withdraw(ctx, ctx.lookup(claim_id).fence(), "retracted by the user")
        plan.operation = facts.RETRACT
        return plan

    try:
        who.write(who.request(facts.RETRACT, {"claim": claim_id}), planner)
    except WriteRejected as exc:
        if exc.code == "already-withdrawn":
            return "already_retracted"
        raise
    return "retracted"


# -- Settings › Knowledge: the self facts an extension's permissions cover ----------------------
@dataclass(frozen=True, slots=True)
class SelfFact:
    """One predicate an extension's `facts.…:self:` permissions cover, with the person's current
    values (`(claim id, value, origin)`). `label` is the app's name of a core predicate, else
    the description its declarer wrote; `added_by_this` marks one this extension declared."""

    predicate: str
    label: str
    core: bool
    added_by_this: bool
    cardinality: str
    writes: bool
    """Whether the extension asked to write it (else it only reads it)."""
    values: tuple[tuple[str, Any, str | None], ...]


def self_facts(
    store: Store, root: Path, scope: str, self_id: str, name: str, permissions: list[str]
) -> list[SelfFact]:
    """The predicates extension `name`'s self permissions (`facts.read|write:self:…`, asked for,
    on or off) cover — every one of the vocabulary, and any other already said — each with its
    current values about the self page `self_id`; core ones in the spec's order first."""
    asked = [p for p in (as_permission(t) for t in permissions) if p.data == "facts" and p.scope == "self"]
    if not asked:
        return []
    vocabulary = vocabulary_of(root, scope)
    rows = current(store, scope, self_id)
    names = list(vocabulary) + sorted({r.predicate for r in rows} - set(vocabulary))

    def asks(action: str, predicate: str) -> bool:
        return any(covers(p, needed_for_fact(action, "self", predicate)) for p in asked if p.action == action)

    out = []
    for predicate in names:
        reads, writes = asks("read", predicate), asks("write", predicate)
        if not (reads or writes):
            continue
        d = vocabulary.get(predicate)
        out.append(
            SelfFact(
                predicate,
                (d.label or d.description) if d is not None else predicate,
                d is not None and d.core,
                d is not None and name in d.declared_by,
                d.cardinality if d is not None else "many",
                writes,
                tuple((r.claim_id, r.value, r.origin) for r in rows if r.predicate == predicate),
            )
        )
    return out


def describe_claims(store: Store, claim_ids: list[str]) -> dict[str, str]:
    """`predicate = value` of each fact claim among `claim_ids` (what View Changes shows for a
    change instead of a bare claim id); ids that are no fact are left out."""
    out: dict[str, str] = {}
    conn = store.reader()
    for claim_id in dict.fromkeys(claim_ids):
        row = conn.execute(
            "SELECT predicate, value FROM facts_v1 WHERE claim_id=? LIMIT 1", (claim_id,)
        ).fetchone()
        if row is not None:
            value = json.loads(row[1])
            out[claim_id] = (
                f"{row[0]} = {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
            )
    return out
