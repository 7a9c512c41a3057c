"""Annotate: link a claim to the pages it is about (spec: corrections-and-merges,
Supersede claims by an existing claim — "Link them first with knowledge_annotate").

The pages are added to the claim's `entities` (those it names already stay,
in their order); nothing else of the claim changes but its revision and
`updated_at`. Each page must be a page of the claim's partition that is not
withdrawn; a merged page is refused with its survivor's id, as every new
reference to one is (`WriteContext.validate`). A claim's entities make it depend on those pages, so
this is an assertion write, fenced by the ontology fingerprint.
"""

from __future__ import annotations

from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.lifecycle import lifecycle_of, revise, shown
from knowledge_desktop.engine.write.plan import Fence, Plan, WriteRejected

MAX_ENTITIES = 100


def plan_annotate(ctx: WriteContext, fence: Fence, entity_ids: list[str]) -> Plan:
    if not entity_ids or len(entity_ids) > MAX_ENTITIES:
        raise WriteRejected(
            "entity-count", f"name 1 to {MAX_ENTITIES} pages to link", {"count": len(entity_ids)}
        )
    claim = ctx.record(fence)
    if claim.kind != "claim":
        raise WriteRejected(
            "not-a-claim", f"{claim.record_id} is a {claim.kind}: only claims have entities", shown(claim)
        )
    state = lifecycle_of(ctx, claim)
    if state == "withdrawn":
        raise WriteRejected("not-active", f"{claim.record_id} is withdrawn", shown(claim, state))
    graph = ctx.reconciler.graph()
    for entity in entity_ids:
        paths = graph.ids.get(claim.scope, entity)
        node = graph.nodes[next(iter(paths))] if len(paths) == 1 else None
        problem = None
        if not paths:
            problem = "matches no record"
        elif node is None:
            problem = "is a duplicate id"
        elif node.kind != "page":
            problem = f"is a {node.kind}, not a page"
        elif node.lifecycle == "withdrawn":
            problem = "is withdrawn (the claim would be hidden)"
        if problem is not None:
            raise WriteRejected(
                "entity-invalid",
                f"entity {entity!r} {problem} in partition {claim.scope!r}",
                {"id": entity},
            )
    existing = claim.frontmatter.get("entities")
    held = [e for e in existing if isinstance(e, str)] if isinstance(existing, list) else []
    added = [e for e in dict.fromkeys(entity_ids) if e not in held]
    if not added:
        raise WriteRejected(
            "no-change", f"{claim.record_id} already names every one of these pages", shown(claim, state)
        )
    ctx.ontology(claim.scope, fence=True)
    write = revise(ctx, claim, {"entities": [*held, *added]})
    ctx.validate(write.path, claim.scope, write.content, old=claim.frontmatter)
    return Plan(
        operation="annotate",
        target_id=claim.record_id,
        reason=None,
        writes=[write],
        extra={"addedEntities": added},
    )
