"""Merge two pages that are one entity (spec: corrections-and-merges, Merge duplicate pages).

Pages only, of one type and one partition, both active. The survivor gains
the absorbed page's title (as an alias) and aliases, its tags, its evidence
and the fields it lacks; its own field values win and every disagreement is
reported (`conflicts` in the receipt). Bodies are never merged: a `body`
given is written as the survivor's new body, and a `title` given becomes
its title (its old title stays as an alias, so links by that name keep
working). The absorbed page stays on disk with `lifecycle: merged`,
`merged_into` and `lifecycle_change`; records naming it are not rewritten,
reads resolve them to the survivor. The survivor records it in
`merged_from`.

What the merge added to the survivor is kept in the plan's `merge` extra —
journaled with the entry and returned in the receipt — so that `unmerge`
can take exactly that back out (`unmerge.py`).
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.write.context import Current, WriteContext
from knowledge_desktop.engine.write.operations.lifecycle import (
    facts,
    lifecycle_change,
    lifecycle_of,
    require_reason,
    revise,
    shown,
)
from knowledge_desktop.engine.write.plan import Fence, Plan, WriteRejected

OPERATION = "merge"
GAINED = ("aliases", "tags", "evidence", "fields", "merged_from")
"""Survivor keys a merge adds to; one it creates is removed again by unmerge once empty."""


def plan_merge(
    ctx: WriteContext,
    survivor_fence: Fence,
    absorbed_fence: Fence,
    reason: str,
    *,
    title: str | None = None,
    body: str | None = None,
    identity_evidence: list[dict[str, Any]] | None = None,
) -> Plan:
    reason = require_reason(reason)
    if survivor_fence.record_id == absorbed_fence.record_id:
        raise WriteRejected("merge-self", "a page cannot be merged into itself", {})
    if title is not None and not title.strip():
        raise WriteRejected("title-blank", "a combined title must not be blank", {})
    survivor = ctx.record(survivor_fence)
    absorbed = ctx.record(absorbed_fence)
    _check_pair(ctx, survivor, absorbed)
    s, a = survivor.frontmatter, absorbed.frontmatter
    changes: dict[str, Any] = {}
    added: dict[str, Any] = {}
    old_title = _text(s.get("title"))
    new_title = title.strip() if title is not None else old_title
    if new_title != old_title:
        changes["title"] = new_title
    aliases = _strings(s.get("aliases"))
    names = {normalise_name(n) for n in [new_title, *aliases]}
    gained: list[str] = []
    for name in [_text(a.get("title")), *_strings(a.get("aliases"))]:
        if name.strip() and normalise_name(name) not in names:
            names.add(normalise_name(name))
            gained.append(name)
    kept_title = [old_title] if normalise_name(old_title) not in names and old_title.strip() else []
    if gained or kept_title:
        changes["aliases"] = [*aliases, *kept_title, *gained]
        added["aliases"] = gained
    tags = _strings(s.get("tags"))
    new_tags = [t for t in dict.fromkeys(_strings(a.get("tags"))) if t not in tags]
    if new_tags:
        changes["tags"] = [*tags, *new_tags]
        added["tags"] = new_tags
    evidence = _list(s.get("evidence"))
    new_evidence: list[Any] = []
    for item in [*_list(a.get("evidence")), *(identity_evidence or [])]:
        if item not in evidence and item not in new_evidence:
            new_evidence.append(item)
    if new_evidence:
        changes["evidence"] = [*evidence, *new_evidence]
        added["evidence"] = new_evidence
    fields, theirs = _mapping(s.get("fields")), _mapping(a.get("fields"))
    lacking = {k: v for k, v in theirs.items() if k not in fields}
    conflicts = [
        {"field": k, "survivor": fields[k], "absorbed": v}
        for k, v in theirs.items()
        if k in fields and fields[k] != v
    ]
    if lacking:
        changes["fields"] = {**fields, **lacking}
        added["fields"] = lacking
    merged_from = _strings(s.get("merged_from"))
    changes["merged_from"] = [*[i for i in merged_from if i != absorbed.record_id], absorbed.record_id]
    created = sorted(k for k in GAINED if k in changes and k not in s)
    survivor_write = revise(ctx, survivor, changes, body=body)
    absorbed_write = revise(
        ctx,
        absorbed,
        {
            "lifecycle": "merged",
            "merged_into": survivor.record_id,
            "lifecycle_change": lifecycle_change(ctx, reason),
        },
    )
    ctx.validate(survivor_write.path, survivor.scope, survivor_write.content, old=s)
    ctx.validate(absorbed_write.path, absorbed.scope, absorbed_write.content, old=a)
    return Plan(
        operation=OPERATION,
        target_id=absorbed.record_id,
        reason=reason,
        writes=[survivor_write, absorbed_write],
        impact_of=[absorbed.record_id],
        extra={
            "survivorId": survivor.record_id,
            "conflicts": conflicts,
            "merge": {
                "scope": survivor.scope,
                "survivor": survivor.record_id,
                "absorbed": absorbed.record_id,
                "added": added,
                "createdKeys": created,
                "titleWritten": "title" in changes,
                "bodyWritten": body is not None,
            },
        },
    )


def _check_pair(ctx: WriteContext, survivor: Current, absorbed: Current) -> None:
    for page in (survivor, absorbed):
        if page.kind != "page":
            raise WriteRejected(
                "not-a-page",
                f"{page.record_id} is a {page.kind}: only pages are merged (claims and "
                "relationships are corrected or superseded)",
                shown(page),
            )
        state = lifecycle_of(ctx, page)
        if state != "active":
            raise WriteRejected("not-active", f"{page.record_id} is {state}", shown(page, state))
    if survivor.scope != absorbed.scope:
        raise WriteRejected(
            "other-partition",
            f"{survivor.record_id} is in {survivor.scope!r} and {absorbed.record_id} in {absorbed.scope!r}",
            {},
        )
    types = (facts(ctx, survivor).type, facts(ctx, absorbed).type)
    if types[0] is None or types[0] != types[1]:
        raise WriteRejected(
            "type-mismatch",
            f"{survivor.record_id} is a {types[0] or 'untyped'} page and {absorbed.record_id} a "
            f"{types[1] or 'untyped'} one: only pages of one type are merged",
            {"types": list(types)},
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []
