"""Correct a claim or relationship with a new version (spec: corrections-and-merges,
Correct a claim or relationship).

The target must be a valid, active (expired is fine) claim or explicit
relationship; pages are edited with save or edit-body instead. The
replacement is a complete record of the same kind, validated like a
create, that may not depend on the original or on anything depending on it.
The original keeps its content and evidence and gets a new revision with
`lifecycle: superseded`, `superseded_by` and `lifecycle_change`; the
replacement is a new record at revision 1 with `supersedes`. Both files are
one plan, so one journal entry and one receipt. Assertion writes are fenced
by the partition's ontology fingerprint (`WriteContext.ontology`).
"""

from __future__ import annotations

from knowledge_desktop.engine.graph.detail import REFERENCE_FIELDS
from knowledge_desktop.engine.query.impact import impact
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.naming import KIND_DIRECTORIES, PREFIXES
from knowledge_desktop.engine.write.operations.drafts import complete, read_draft
from knowledge_desktop.engine.write.operations.lifecycle import (
    facts,
    lifecycle_change,
    lifecycle_of,
    require_reason,
    revise,
    shown,
)
from knowledge_desktop.engine.write.plan import Fence, FileWrite, GuardChange, Plan, WriteRejected

OPERATION = "correct"


def plan_correct(
    ctx: WriteContext, fence: Fence, replacement: bytes, reason: str, *, replacement_id: str | None = None
) -> Plan:
    """`replacement_id`: the id the replacement gets, allocated by the caller when it showed
    a preview first (the window's dialog), so that the file holds the id the preview showed
    (issue 29, §4); None: a fresh one."""
    reason = require_reason(reason)
    target = ctx.record(fence)
    if target.kind not in ("claim", "relationship"):
        raise WriteRejected(
            "not-correctable",
            f"{target.record_id} is a {target.kind or 'file that is no record'}: only claims and "
            "relationships are corrected; edit a page with save or edit-body",
            shown(target),
        )
    lifecycle = lifecycle_of(ctx, target)
    known = facts(ctx, target)
    if lifecycle != "active" or not known.valid or known.duplicate:
        state = lifecycle if lifecycle != "active" else ("a duplicate id" if known.duplicate else "invalid")
        raise WriteRejected(
            "not-active",
            f"{target.record_id} is {state}: only a valid active (or expired) record can be corrected",
            shown(target, lifecycle),
        )
    draft = read_draft(replacement)
    kind = draft.kind or target.kind
    if kind != target.kind:
        raise WriteRejected(
            "kind-mismatch",
            f"the replacement is a {kind}, but {target.record_id} is a {target.kind}",
            shown(target, lifecycle),
        )
    scope = target.scope
    if draft.data.get("scope", scope) != scope:
        raise WriteRejected(
            "scope-mismatch",
            f"the replacement names scope {draft.data.get('scope')!r}; {target.record_id} is in {scope!r}",
            {"scope": scope},
        )
    ontology = ctx.ontology(scope, fence=True)
    directory = KIND_DIRECTORIES[kind]
    if kind == "relationship":
        label = draft.data.get("label")
        definition = ontology.definitions.get(label) if isinstance(label, str) else None
        directory = (definition.directory if definition is not None else None) or directory
    new_id = _replacement_id(ctx, kind, replacement_id)
    text = complete(draft, record_id=new_id, kind=kind, scope=scope, now=ctx.now, supersedes=target.record_id)
    path = ctx.new_path(scope, directory, draft.title or new_id, new_id)
    data = text.encode("utf-8")
    parsed = ctx.validate(path, scope, data)
    _refuse_dependence(ctx, scope, target.record_id, parsed.data or {})
    original = revise(
        ctx,
        target,
        {
            "lifecycle": "superseded",
            "superseded_by": new_id,
            "lifecycle_change": lifecycle_change(ctx, reason),
        },
    )
    return Plan(
        operation=OPERATION,
        target_id=target.record_id,
        reason=reason,
        writes=[original, FileWrite(path, data, None, new_id, 1)],
        replacement_id=new_id,
        guards=[GuardChange(scope, target.record_id, "superseded", new_id)],
        impact_of=[target.record_id],
    )


def _replacement_id(ctx: WriteContext, kind: str, given: str | None) -> str:
    """The id the caller chose, if it is a new record id of the kind's prefix; else a fresh one."""
    if given is None:
        return ctx.new_id(kind)
    prefix = f"{PREFIXES[kind]}_"
    if (
        not given.startswith(prefix)
        or len(given) <= len(prefix)
        or any(c.isspace() or c == "/" for c in given)
    ):
        raise WriteRejected(
            "replacement-id-invalid",
            f"the replacement's id must be a new {kind} id starting with {prefix!r}, not {given!r}",
            {"replacementId": given},
        )
    if ctx.exists(given):
        raise WriteRejected(
            "replacement-id-taken",
            f"id {given!r} is already used in this vault; preview the correction again",
            {"replacementId": given},
        )
    return given


def _refuse_dependence(ctx: WriteContext, scope: str, original: str, data: dict[str, object]) -> None:
    """The replacement may not depend on the original or its dependents: it would hide
    itself the moment it replaced them."""
    graph = ctx.reconciler.graph()
    named: dict[str, str] = {}
    for field in REFERENCE_FIELDS:
        value = data.get(field)
        for target in value if isinstance(value, list) else [value]:
            if isinstance(target, str):
                final, _path, status = graph.follow_merges(scope, target, set())
                if status == "resolved" and final is not None:
                    named.setdefault(final, field)
    if not named:
        return
    forbidden = {original} | {item["id"] for item in impact(ctx.store.reader(), [original], scope)}
    hit = sorted(set(named) & forbidden)
    if hit:
        which = "the original" if hit[0] == original else f"{hit[0]}, which depends on the original"
        raise WriteRejected(
            "depends-on-original",
            f"the replacement's {named[hit[0]]} names {which}; a replacement cannot depend on "
            "what it replaces",
            {"ids": hit},
        )
