"""The lifecycle operations as requests: what the CLI and the window call.

Each function builds the `Request` — its payload holds every argument, so
the same request id with a changed payload is rejected and with the same one
returns the first receipt — and hands it with its planner to `write`
(`Vault.write`, the one publish path). Fences are given as the CLI writes
them, `ID:REVISION:HASH`. `options` are `make_request`'s: `request_id`,
`actor`, `expected_vault_id`, `expected_ontology_fingerprint`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from knowledge_desktop.engine.write.operations.annotate import plan_annotate
from knowledge_desktop.engine.write.operations.correct import plan_correct
from knowledge_desktop.engine.write.operations.merge import plan_merge
from knowledge_desktop.engine.write.operations.supersede import plan_supersede, plan_unsupersede
from knowledge_desktop.engine.write.operations.unmerge import plan_unmerge
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Fence, Request
from knowledge_desktop.engine.write.publish import Planner
from knowledge_desktop.engine.write.requests import make_request

Write = Callable[[Request, Planner], dict[str, Any]]


def withdraw(write: Write, fence: str, reason: str, **options: Any) -> dict[str, Any]:
    parsed = Fence.parse(fence)
    request = make_request("withdraw", {"fence": fence, "reason": reason}, **options)
    return write(request, lambda ctx: plan_withdraw(ctx, parsed, reason))


def correct(
    write: Write,
    fence: str,
    replacement: str,
    reason: str,
    *,
    replacement_id: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """`replacement_id`: the new record's id, chosen before a preview so that the preview
    and the file agree (None: allocated when it plans)."""
    parsed = Fence.parse(fence)
    payload: dict[str, Any] = {"fence": fence, "replacement": replacement, "reason": reason}
    if replacement_id is not None:  # absent otherwise: earlier requests keep their payload hash
        payload["replacementId"] = replacement_id
    request = make_request("correct", payload, **options)
    data = replacement.encode("utf-8")
    return write(request, lambda ctx: plan_correct(ctx, parsed, data, reason, replacement_id=replacement_id))


def supersede(
    write: Write, by: str, fences: list[str], reason: str, *, undo: bool = False, **options: Any
) -> dict[str, Any]:
    """Supersede the claims `fences` name by `by`; `undo`: restore them (operation
    unsupersede)."""
    by_fence = Fence.parse(by)
    earlier = [Fence.parse(f) for f in fences]
    payload = {"by": by, "fences": fences, "reason": reason, "undo": undo}
    request = make_request("unsupersede" if undo else "supersede", payload, **options)
    plan = plan_unsupersede if undo else plan_supersede
    return write(request, lambda ctx: plan(ctx, by_fence, earlier, reason))


def merge(
    write: Write,
    survivor: str,
    absorbed: str,
    reason: str,
    *,
    title: str | None = None,
    body: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    kept, gone = Fence.parse(survivor), Fence.parse(absorbed)
    payload = {"survivor": survivor, "absorbed": absorbed, "reason": reason, "title": title, "body": body}
    request = make_request("merge", payload, **options)
    return write(request, lambda ctx: plan_merge(ctx, kept, gone, reason, title=title, body=body))


def unmerge(write: Write, fence: str, reason: str, **options: Any) -> dict[str, Any]:
    parsed = Fence.parse(fence)
    request = make_request("unmerge", {"fence": fence, "reason": reason}, **options)
    return write(request, lambda ctx: plan_unmerge(ctx, parsed, reason))


def annotate(write: Write, fence: str, entities: list[str], **options: Any) -> dict[str, Any]:
    parsed = Fence.parse(fence)
    request = make_request("annotate", {"fence": fence, "entities": entities}, **options)
    return write(request, lambda ctx: plan_annotate(ctx, parsed, entities))
