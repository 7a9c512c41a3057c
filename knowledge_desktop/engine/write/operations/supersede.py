"""Supersede earlier claims by an existing one, and undo that (spec: corrections-and-merges,
Supersede claims by an existing claim).

`by` must be a current claim: active, valid, not expired and not hidden by
an unavailable dependency. The earlier claims — 1 to 25, each listed once,
none of them `by` — must be active claims sharing at least one linked page
with `by` (entities or an evidence source page, merge redirects followed),
the check that they are about the same subject (`annotate` links them
first). Each gets a new revision exactly like a corrected original; `by` is
fenced but not rewritten. Because `by` is current and every earlier claim
active, supersession cannot form a cycle.

The undo takes the same `by` and the superseded claims' current fences: each
becomes active again without `superseded_by`, its `lifecycle_change` giving
the undo's reason, and the plan lifts its supersession guard (the only way
one is lifted). A claim that `correct` replaced is refused: its replacement
names it in `supersedes`, being a new version of it, not a later claim.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.records.roundtrip import DELETE
from knowledge_desktop.engine.store import guards
from knowledge_desktop.engine.write.context import Current, WriteContext
from knowledge_desktop.engine.write.operations.lifecycle import (
    facts,
    lifecycle_change,
    lifecycle_of,
    require_reason,
    revise,
    shown,
)
from knowledge_desktop.engine.write.plan import Fence, GuardChange, Plan, WriteRejected

MAX_SUPERSEDED = 25


def plan_supersede(ctx: WriteContext, by_fence: Fence, fences: list[Fence], reason: str) -> Plan:
    reason = require_reason(reason)
    _check_list(by_fence, fences)
    by = ctx.record(by_fence)
    _require_claim(by, "by")
    known = facts(ctx, by)
    lifecycle = lifecycle_of(ctx, by)
    if lifecycle != "active" or not known.current_at(ctx.now):
        raise WriteRejected(
            "by-not-current",
            f"{by.record_id} is not a current claim (active, valid, not expired and not hidden "
            "by an unavailable dependency), so it cannot supersede others",
            shown(by, lifecycle),
        )
    linked = linked_pages(ctx, by)
    change = lifecycle_change(ctx, reason)
    writes = []
    for fence in fences:
        earlier = ctx.record(fence)
        _require_claim(earlier, "superseded")
        if earlier.scope != by.scope:
            raise WriteRejected(
                "other-partition",
                f"{earlier.record_id} is in {earlier.scope!r}, {by.record_id} in {by.scope!r}",
                shown(earlier),
            )
        state = lifecycle_of(ctx, earlier)
        if state != "active":
            raise WriteRejected(
                "not-active",
                f"{earlier.record_id} is {state}: only active claims can be superseded",
                shown(earlier, state),
            )
        if not linked & linked_pages(ctx, earlier):
            raise WriteRejected(
                "no-shared-page",
                f"{earlier.record_id} and {by.record_id} share no linked page (entities or source "
                "page): link both to their subject first with annotate",
                {**shown(earlier), "byLinked": sorted(linked)},
            )
        writes.append(
            revise(
                ctx,
                earlier,
                {"lifecycle": "superseded", "superseded_by": by.record_id, "lifecycle_change": change},
            )
        )
    ids = [w.record_id for w in writes]
    return Plan(
        operation="supersede",
        target_id=ids[0],
        reason=reason,
        writes=writes,
        replacement_id=by.record_id,
        guards=[GuardChange(by.scope, i, "superseded", by.record_id) for i in ids],
        impact_of=ids,
        extra={"supersededIds": ids},
    )


def plan_unsupersede(ctx: WriteContext, by_fence: Fence, fences: list[Fence], reason: str) -> Plan:
    reason = require_reason(reason)
    _check_list(by_fence, fences)
    by = ctx.record(by_fence)
    _require_claim(by, "by")
    replaced = _ids(by.frontmatter.get("supersedes"))
    conn = ctx.store.reader()
    change = lifecycle_change(ctx, reason)
    writes = []
    for fence in fences:
        earlier = ctx.record(fence)
        held = guards.of_record(conn, earlier.scope, earlier.record_id)
        state = lifecycle_of(ctx, earlier)
        named = held.by_id if held is not None and held.guard == "superseded" else None
        named = named or earlier.frontmatter.get("superseded_by")
        if state != "superseded" or named != by.record_id or earlier.scope != by.scope:
            raise WriteRejected(
                "not-superseded-by",
                f"{earlier.record_id} is {state}"
                + (f" (by {named})" if state == "superseded" and named else "")
                + f", not superseded by {by.record_id}: there is nothing to undo",
                {**shown(earlier, state), "supersededBy": named},
            )
        if earlier.record_id in replaced:
            raise WriteRejected(
                "made-by-correct",
                f"{by.record_id} is a correction of {earlier.record_id} (it names it in supersedes), "
                "not a later claim: correct or withdraw the replacement instead",
                shown(earlier, state),
            )
        writes.append(
            revise(ctx, earlier, {"lifecycle": "active", "superseded_by": DELETE, "lifecycle_change": change})
        )
    ids = [w.record_id for w in writes]
    return Plan(
        operation="unsupersede",
        target_id=ids[0],
        reason=reason,
        writes=writes,
        guards=[GuardChange(by.scope, i, "superseded", by.record_id, lift=True) for i in ids],
        impact_of=ids,
        extra={"byId": by.record_id, "restoredIds": ids},
    )


def linked_pages(ctx: WriteContext, claim: Current) -> set[str]:
    """The pages a claim is linked to: its entities and its evidence's source pages, each
    followed through merges to the page that stands for it now."""
    data = claim.frontmatter
    named = _ids(data.get("entities"))
    evidence = data.get("evidence")
    if isinstance(evidence, list):
        named += [e["source"] for e in evidence if isinstance(e, dict) and isinstance(e.get("source"), str)]
    graph = ctx.reconciler.graph()
    out: set[str] = set()
    for target in named:
        final, path, status = graph.follow_merges(claim.scope, target, set())
        if status == "resolved" and final is not None and path is not None and graph.kind_at(path) == "page":
            out.add(final)
    return out


def _check_list(by: Fence, fences: list[Fence]) -> None:
    if not 1 <= len(fences) <= MAX_SUPERSEDED:
        raise WriteRejected(
            "supersede-count",
            f"name 1 to {MAX_SUPERSEDED} earlier claims, not {len(fences)}",
            {"count": len(fences)},
        )
    seen: set[str] = set()
    for fence in fences:
        if fence.record_id == by.record_id:
            raise WriteRejected("supersede-self", f"{by.record_id} cannot supersede itself", {})
        if fence.record_id in seen:
            raise WriteRejected(
                "listed-twice", f"{fence.record_id} is listed more than once", {"id": fence.record_id}
            )
        seen.add(fence.record_id)


def _require_claim(current: Current, role: str) -> None:
    if current.kind != "claim":
        raise WriteRejected(
            "not-a-claim",
            f"{current.record_id} is a {current.kind}: supersede works on claims only ({role})",
            shown(current),
        )


def _ids(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str)]
