"""Withdraw one page, claim or relationship (spec: corrections-and-merges, Withdraw a record).

Any record can be withdrawn — a superseded one, one with validation
findings — except a withdrawn one: a new request to withdraw it is refused
(`already-withdrawn`), while the request that withdrew it stays retryable
(the publish path answers a repeated request id with its first receipt
before any planner runs). Withdrawal is not erasure: the file keeps its
content and evidence and gets a new revision with `lifecycle: withdrawn`
and `lifecycle_change`; a durable guard keeps it withdrawn whatever a later
copy of the file says. Nothing cascades: one relationship's withdrawal
never touches others with the same endpoints, and dependents are listed as
impact, not changed.
"""

from __future__ import annotations

from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.lifecycle import (
    lifecycle_change,
    lifecycle_of,
    require_reason,
    revise,
    shown,
)
from knowledge_desktop.engine.write.plan import Fence, GuardChange, Plan, WriteRejected

OPERATION = "withdraw"


def plan_withdraw(ctx: WriteContext, fence: Fence, reason: str) -> Plan:
    reason = require_reason(reason)
    current = ctx.record(fence)
    lifecycle = lifecycle_of(ctx, current)
    if lifecycle == "withdrawn":
        raise WriteRejected(
            "already-withdrawn",
            f"{current.record_id} is already withdrawn; there is nothing more to withdraw",
            shown(current, lifecycle),
        )
    if current.kind not in ("page", "claim", "relationship"):
        raise WriteRejected("not-a-record", f"{current.path} is not a page, claim or relationship", {})
    write = revise(
        ctx,
        current,
        {"lifecycle": "withdrawn", "lifecycle_change": lifecycle_change(ctx, reason)},
    )
    return Plan(
        operation=OPERATION,
        target_id=current.record_id,
        reason=reason,
        writes=[write],
        guards=[GuardChange(current.scope, current.record_id, "withdrawn", None)],
        impact_of=[current.record_id],
    )
