"""Unmerge: restore a merged page and take back what its merge gave the survivor
(spec: corrections-and-merges, Merge duplicate pages).

The fence names the merged page (the one write that may name a merged
page). It becomes active again without `merged_into`, with a
`lifecycle_change` giving the reason. The survivor — the page its
`merged_into` names, which must not itself be merged since — loses the
absorbed id from `merged_from` and what the merge added, as the merge's
journal entry recorded it (`merge.py`): each alias, tag and evidence entry
still there is removed, and each field is removed only while it still holds
the value the merge gave it, so values edited since stay. A title or body
written during the merge is not reverted. A page merged by hand (no
journaled merge) gets only its own restoration and `merged_from` cleaned;
the receipt says `addedUnknown`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from knowledge_desktop.engine.records.roundtrip import DELETE
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.lifecycle import (
    lifecycle_change,
    lifecycle_of,
    require_reason,
    revise,
    shown,
)
from knowledge_desktop.engine.write.plan import Fence, Plan, WriteRejected

OPERATION = "unmerge"


def plan_unmerge(ctx: WriteContext, fence: Fence, reason: str) -> Plan:
    reason = require_reason(reason)
    absorbed = ctx.record(fence, allow_merged=True)
    state = lifecycle_of(ctx, absorbed)
    into = absorbed.frontmatter.get("merged_into")
    if state != "merged" or not isinstance(into, str):
        raise WriteRejected(
            "not-merged",
            f"{absorbed.record_id} is {state}, not merged: nothing to unmerge",
            shown(absorbed, state),
        )
    survivor = ctx.lookup(into)
    if survivor.scope != absorbed.scope or survivor.lifecycle == "merged":
        raise WriteRejected(
            "survivor-merged",
            f"{into}, which {absorbed.record_id} was merged into, is merged itself: unmerge that first",
            shown(survivor),
        )
    ctx.checked.append((survivor.path, survivor.sha256))  # publish checks it again before writing
    record = merge_record(ctx.store.reader(), absorbed.scope, absorbed.record_id, into)
    s = survivor.frontmatter
    changes: dict[str, Any] = {}
    removed: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    created = set(record.get("createdKeys", [])) if record else set()
    added: dict[str, Any] = record.get("added", {}) if record else {}
    for key in ("aliases", "tags", "evidence"):
        gone = [v for v in added.get(key, []) if v in _list(s.get(key))]
        if gone:
            left = [v for v in _list(s.get(key)) if v not in gone]
            changes[key] = left if left or key not in created else DELETE
            removed[key] = gone
    fields = s.get("fields") if isinstance(s.get("fields"), dict) else None
    if fields is not None and added.get("fields"):
        left_fields = dict(fields)
        for name, value in added["fields"].items():
            if name in fields and fields[name] == value:
                del left_fields[name]
                removed.setdefault("fields", {})[name] = value
            elif name in fields:
                kept.setdefault("fields", {})[name] = fields[name]
        if "fields" in removed:
            changes["fields"] = left_fields if left_fields or "fields" not in created else DELETE
    merged_from = _list(s.get("merged_from"))
    if absorbed.record_id in merged_from:
        rest = [i for i in merged_from if i != absorbed.record_id]
        changes["merged_from"] = rest if rest else DELETE
    writes = [
        revise(
            ctx,
            absorbed,
            {"lifecycle": "active", "merged_into": DELETE, "lifecycle_change": lifecycle_change(ctx, reason)},
        )
    ]
    ctx.validate(writes[0].path, absorbed.scope, writes[0].content, old=absorbed.frontmatter)
    if changes:
        writes.append(revise(ctx, survivor, changes))
        ctx.validate(writes[1].path, survivor.scope, writes[1].content, old=s)
    extra: dict[str, Any] = {"survivorId": into, "removed": removed, "keptEdited": kept}
    if record is None:
        extra["addedUnknown"] = True
    return Plan(OPERATION, absorbed.record_id, reason, writes, extra=extra)


def merge_record(conn: sqlite3.Connection, scope: str, absorbed: str, survivor: str) -> dict[str, Any] | None:
    """What the latest published merge of `absorbed` into `survivor` added (its plan's
    `merge` extra), None when no journaled merge made it."""
    row = conn.execute(
        "SELECT json_extract(plan, '$.extra.merge') FROM journal WHERE operation='merge'"
        " AND state='published' AND json_extract(plan, '$.extra.merge.scope')=?"
        " AND json_extract(plan, '$.extra.merge.absorbed')=?"
        " AND json_extract(plan, '$.extra.merge.survivor')=? ORDER BY seq DESC LIMIT 1",
        (scope, absorbed, survivor),
    ).fetchone()
    if row is None or row[0] is None:
        return None
    found: dict[str, Any] = json.loads(row[0])
    return found


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []
