"""Facts for extensions: lookup, put, retract (spec: facts-entities-collections-api, Reading
facts and Writing facts; docs/decisions.md, "The knowledge API mapped onto the vault").

A fact is a claim with a `fact:` mapping; this module makes and reads such
claims and nothing else. Reads answer from the facts projection
(`store/projections/facts.py`), so a lookup is one index range. Writes go
through the one publish path as operations of their own name — `fact-put`
(a new claim, plus the supersession of the value it replaces on a
`cardinality: one` predicate, all in one plan) and `fact-retract` (a
withdrawal) — so `changes.revert` knows how to undo each. A put that would
replace what the person said writes nothing and journals a `fact-conflict`
entry (state `conflict`) with the proposed and the current value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.api import entities
from knowledge_desktop.engine.api.access import authorize_fact_write, readable_predicates
from knowledge_desktop.engine.api.identifiers import SELF_ALIAS
from knowledge_desktop.engine.api.permissions import Permission, covers, needed_for_fact, predicate_problem
from knowledge_desktop.engine.api.predicates import cardinality_of
from knowledge_desktop.engine.api.quotas import check_single_write
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.api.vocabulary_file import load_vocabulary
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.store.projections import facts as projection
from knowledge_desktop.engine.store.projections.facts import FactRow
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.operations.create import plan_new
from knowledge_desktop.engine.write.operations.lifecycle import lifecycle_change, lifecycle_of, revise
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import GuardChange, Plan, WriteRejected

PUT = "fact-put"
RETRACT = "fact-retract"
CONFLICT = "fact-conflict"
USER = "user"
DEFAULT_SOURCE = "extracted"


@dataclass(frozen=True, slots=True)
class Fact:
    """A current fact as `lookup` gives it: no source, writer or confidence (spec)."""

    ref: str
    predicate: str
    value: Any
    object: str | None
    valid_from: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "predicate": self.predicate,
            "value": self.value,
            "object": self.object,
            "validFrom": self.valid_from,
        }


@dataclass(frozen=True, slots=True)
class PutResult:
    """`applied` (written; `superseded` lists the refs of the values it replaced), `duplicate`
    (the same value was current: nothing written) or `conflict` (the person's value stays)."""

    status: str
    ref: str
    predicate: str
    superseded: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "ref": self.ref,
            "predicate": self.predicate,
            "superseded": list(self.superseded),
        }


@dataclass(frozen=True, slots=True)
class RetractResult:
    status: str
    """`retracted`, or `already_retracted`."""

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status}


# -- subjects and rows ---------------------------------------------------------------------
def subject_of(session: Session, subject: str) -> tuple[entities.Page, str]:
    """The page a subject names and its permission subject: `self` for the self page, else the
    entity's kind (`person`, `org`, …)."""
    if subject == "self":
        return entities.self_page(session), "self"
    return entities.entity_page(session, subject)


def subject_kind_of_id(session: Session, record_id: str) -> str:
    """The permission subject of a fact about page `record_id`."""
    page = entities.page_of(session, record_id)
    if page is None:
        raise ApiError(f"the subject of this fact ({record_id}) is gone")
    return "self" if SELF_ALIAS in page.aliases else entities.kind_of(session, page)


def clean_prefix(prefix: str | None) -> str | None:
    text = (prefix or "").strip()
    text = text.removesuffix("*").rstrip(".")
    return text or None


def _fact(session: Session, row: FactRow) -> Fact:
    [fact] = _facts(session, [row])
    return fact


def _facts(session: Session, rows: list[FactRow]) -> list[Fact]:
    """The facts of `rows`, their refs issued in at most two transactions (facts, objects):
    a transaction per fact was most of a lookup's time (bench/facts.py, RESULTS.md)."""
    refs = session.refs.issue("fact", [r.claim_id for r in rows])
    objects = sorted({r.object_id for r in rows if r.object_id})
    object_refs = dict(zip(objects, session.refs.issue("entity", objects), strict=True))
    return [
        Fact(ref, r.predicate, r.value, object_refs[r.object_id] if r.object_id else None, r.valid_from)
        for ref, r in zip(refs, rows, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class _GrantsNow:
    """The extension's grants read once for one call: `Extensions.allowed` reads and parses
    them again for every predicate asked about, ten times in a lookup of ten predicates. Read
    at the start of each call, so a switch still counts from the next call."""

    name: str
    granted: tuple[Permission, ...]

    def check(self, name: str, needed: str | Permission) -> None:
        raise NotImplementedError("query methods only ask `allowed`")

    def allowed(self, name: str, needed: str | Permission) -> bool:
        return name == self.name and any(covers(g, needed) for g in self.granted)


def readable_rows(session: Session, subject_id: str, kind: str, prefix: str | None) -> list[FactRow]:
    """The current facts about a subject whose predicate a grant lets the extension read."""
    rows = projection.current(session.store.reader(), session.scope, subject_id, utc_now_text(), prefix)
    grants = _GrantsNow(session.name, session.extensions.granted(session.name))
    readable = set(readable_predicates(grants, session.name, kind, sorted({r.predicate for r in rows})))
    return [r for r in rows if r.predicate in readable]


# -- the methods ---------------------------------------------------------------------------
def lookup(session: Session, subject: str = "self", prefix: str | None = None) -> list[Fact]:
    """The facts currently valid about `subject` (`self` or an entity ref) under `prefix`; facts
    whose predicate no `facts.read` grant covers are left out without a word — all of them,
    before the subject is looked up, when no `facts.read` grant is of its kind of subject."""
    if subject == "self" and not session.holds(("facts.read",), "self"):
        return []
    if subject != "self" and not session.holds(("facts.read",), other_than="self"):
        return []
    page, kind = subject_of(session, subject)
    return _facts(session, readable_rows(session, page.record_id, kind, clean_prefix(prefix)))


def put(
    session: Session,
    *,
    predicate_hint: str,
    value: Any,
    subject: str = "self",
    object: str | None = None,
    source_ref: str | None = None,
    valid_from: str | None = None,
    origin: str | None = None,
    source: str | None = None,
    description: str | None = None,
) -> PutResult:
    """Say `subject · predicate · value`. The hint is resolved to a predicate first, then
    `facts.write` is checked on it; `origin`/`source` need `origin.override`. `description`
    (at most 200 characters) says in a person's words what the predicate means — kept with
    the fact, for a predicate the vocabulary does not describe (an `x.…` one).

    Before the subject or the hint is resolved, the extension must hold some `facts.write`
    grant for this kind of subject (`self`, or an entity kind), and `origin.override` when it
    names `origin`/`source`: a call without them learns nothing about the vault."""
    wanted = predicate_hint if predicate_problem(predicate_hint) is None else "<predicate>"
    if subject == "self":
        session.gate(f"facts.write:self:{wanted}", ("facts.write",), "self")
    else:
        session.gate(f"facts.write:<entity kind>:{wanted}", ("facts.write",), other_than="self")
    if origin is not None or source is not None:
        session.check("origin.override")
    check_single_write(value=value)
    page, kind = subject_of(session, subject)
    vocabulary = load_vocabulary(session.folder)
    predicate = authorize_fact_write(session.extensions, session.name, kind, predicate_hint, vocabulary)
    if source_ref is not None and (not isinstance(source_ref, str) or len(source_ref) > 1000):
        raise ApiError("sourceRef is a string of at most 1000 characters")
    if description is not None and (not isinstance(description, str) or len(description) > 200):
        raise ApiError("description is a string of at most 200 characters")
    object_id = entities.entity_id(session, object) if object else None
    said_by = origin or session.actor
    value_json = json.dumps(value, ensure_ascii=False, sort_keys=True)
    same = [
        r
        for r in projection.current(
            session.store.reader(), session.scope, page.record_id, utc_now_text(), predicate
        )
        if r.predicate == predicate
    ]
    for row in same:
        if row.value_json == value_json and row.object_id == object_id:
            return PutResult("duplicate", _fact(session, row).ref, predicate)
    replaced = same if cardinality_of(predicate, vocabulary) == "one" else []
    held = [r for r in replaced if r.origin == USER and said_by != USER]
    if held:
        _journal_conflict(session, page, predicate, value, object_id, held[0])
        return PutResult("conflict", _fact(session, held[0]).ref, predicate)
    session.charge(len(value_json))
    fact: dict[str, Any] = {"predicate": predicate, "value": value}
    if object_id:
        fact["object"] = object_id
    fact.update({"origin": said_by, "source": source or DEFAULT_SOURCE})
    if source_ref:
        fact["source_ref"] = source_ref
    if description and description.strip():
        fact["description"] = " ".join(description.split())
    text = claim_text(session, page, fact, valid_from, source_ref)
    payload = {"subject": page.record_id, "text": text, "replaces": [r.claim_id for r in replaced]}
    receipt = session.write(
        session.request(PUT, payload), lambda ctx: plan_put(ctx, text, [r.claim_id for r in replaced])
    )
    [ref] = session.refs.issue("fact", [str(receipt["targetId"])])
    return PutResult(
        "applied", ref, predicate, tuple(session.refs.issue("fact", [r.claim_id for r in replaced]))
    )


def claim_text(
    session: Session,
    page: entities.Page,
    fact: dict[str, Any],
    valid_from: str | None,
    source_ref: str | None,
) -> str:
    """A new claim file for `fact` about `page`, as docs/decisions.md lays it out (the store adds
    id, revision and times when it is planned)."""
    predicate = str(fact["predicate"])
    typed = (
        json.dumps(fact["value"], ensure_ascii=False) if not isinstance(fact["value"], str) else fact["value"]
    )
    shown = " ".join(typed.split())  # a title is one line
    shown = shown if len(shown) <= 120 else shown[:119] + "…"
    user = fact["origin"] == USER
    evidence = {
        "url": f"extension:{session.name}" + (f"/{source_ref}" if source_ref else ""),
        "attribution": f"extension {session.name}",
    }
    fields: dict[str, Any] = {
        "title": f"{page.title}: {predicate} = {shown}"[:1000],
        "scope": session.scope,
        "claim_kind": "preference" if predicate.startswith("pref.") else "fact",
        "assertion_origin": "user_belief" if user else "agent_inference",
        "attribution": f"extension {session.name}",
        "evidence": [evidence],
        "entities": [page.record_id, *([fact["object"]] if fact.get("object") else [])],
    }
    if valid_from is not None:
        fields["valid_from"] = valid_from
    fields["fact"] = fact
    body = f"{literal_markdown(page.title)} · {predicate}: {literal_markdown(typed)}\n"
    return update_frontmatter(f"---\nkind: claim\n---\n{body}", fields)


_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def literal_markdown(text: str) -> str:
    """`text` as Markdown that shows it exactly and makes nothing of it: every ASCII
    punctuation character backslash-escaped (CommonMark shows an escaped one as itself, so no
    `[[link]]`, `![image]`, `<tag>`, `&entity;`, emphasis or `---` line comes of it), each line
    break a hard break (a backslash before it) and each blank line a `&nbsp;` entity, so the
    text stays one paragraph. What an extension reads back is the fact's `value` in the
    frontmatter, never this line (docs/decisions.md, "An extension's text is data")."""
    lines = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        escaped = "".join("\\" + c if c in _PUNCTUATION else c for c in line.strip())
        lines.append(escaped or "&nbsp;")
    return "\\\n".join(lines)


def plan_put(
    ctx: WriteContext, text: str, replaced: list[str], why: str = "a new value of a cardinality-one predicate"
) -> Plan:
    """The new claim, and each value it replaces superseded by it, in one plan (an extension's
    put and the person's own edit, `user_facts.put`, share it)."""
    plan = plan_new(ctx, text)
    plan.operation = PUT
    new = plan.target_id
    assert new is not None
    change = lifecycle_change(ctx, why)
    for claim_id in replaced:
        current = ctx.lookup(claim_id)
        ctx.record(current.fence())
        if lifecycle_of(ctx, current) != "active":
            raise WriteRejected(
                "not-active", f"{claim_id} changed while the fact was written; write it again", {}
            )
        plan.writes.append(
            revise(
                ctx, current, {"lifecycle": "superseded", "superseded_by": new, "lifecycle_change": change}
            )
        )
        plan.guards.append(GuardChange(current.scope, claim_id, "superseded", new))
    plan.extra = {"supersededIds": replaced}
    plan.impact_of = list(replaced)
    return plan


def _journal_conflict(
    session: Session, page: entities.Page, predicate: str, value: Any, object_id: str | None, held: FactRow
) -> int:
    """Journal a put that was not made because the person's own value stands."""
    now = utc_now_text()
    proposed = {"predicate": predicate, "value": value, "object": object_id}
    current = {"claimId": held.claim_id, "value": held.value, "object": held.object_id, "origin": held.origin}
    plan: dict[str, Any] = {
        "reason": f"{predicate} holds one value, and the current one was said by the user",
        "replacementId": None,
        "guards": [],
        "impact": [],
        "extra": {"subjectId": page.record_id, "proposed": proposed, "current": current},
        "at": now,
    }
    with session.store.write(durable=True) as tx:
        return journal.record_conflict(
            tx,
            request_id=new_id("request"),
            operation=CONFLICT,
            actor=session.actor,
            target_id=held.claim_id,
            scope=session.scope,
            payload={"subject": page.record_id, "proposed": proposed},
            plan=plan,
            now=now,
            run_id=session.run_id,
        )


def fact_row(session: Session, fact_ref: str) -> FactRow:
    """The fact a fact ref names (any lifecycle); `ApiError` when there is none."""
    conn = session.store.reader()
    claim_id = session.refs.lookup(fact_ref, "fact", lambda: projection.claim_ids(conn, session.scope))
    row = projection.by_claim(conn, session.scope, claim_id) if claim_id else None
    if row is None:
        raise ApiError(f"no fact for ref {fact_ref}")
    return row


def retract(session: Session, fact_ref: str) -> RetractResult:
    """Make a fact expire (a withdrawal: nothing is deleted). Needs `facts.write` on it, and
    `changes.manage` for a fact another writer said (some `facts.write` grant first of all)."""
    session.gate("facts.write:<subject>:<predicate>", ("facts.write",))
    row = fact_row(session, fact_ref)
    kind = subject_kind_of_id(session, row.subject_id)
    session.check(needed_for_fact("write", kind, row.predicate))
    if row.origin != session.actor:
        session.check("changes.manage")
    if row.lifecycle == "withdrawn":
        return RetractResult("already_retracted")
    session.charge(0)

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(row.claim_id)
        plan = plan_withdraw(ctx, current.fence(), f"retracted by {session.actor}")
        plan.operation = RETRACT
        return plan

    try:
        session.write(session.request(RETRACT, {"claim": row.claim_id}), planner)
    except WriteRejected as exc:
        if exc.code == "already-withdrawn":
            return RetractResult("already_retracted")
        raise
    return RetractResult("retracted")
