"""Saving a whole page (`knowledge save`) and editing only its body (`knowledge edit-body`).

Both are fenced by the revision and hash the writer read, and apply to
pages only: claims and relationships change by correction (spec:
corrections-and-merges, "Pages are not corrected this way"). A save takes
the submitted file as the page's new bytes, except for what the store
owns: the revision goes up by one and `updated_at` is the operation's time;
`format`, `id`, `kind`, `scope`, `recorded_at`, `lifecycle` and the
lifecycle metadata must be as they are (a key left out is put back). Every
other byte — unknown keys, comments, order, quoting, the body — is written
as submitted, so a save of the file as read with one key changed differs in
that key, `revision` and `updated_at` only (spec: records-and-ontology,
Records). A body edit keeps the frontmatter's bytes but those two keys.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.records.roundtrip import replace_body, update_frontmatter
from knowledge_desktop.engine.write.context import Current, WriteContext
from knowledge_desktop.engine.write.operations.common import (
    CANONICAL,
    LIFECYCLE_METADATA,
    anchors,
    submitted_frontmatter,
)
from knowledge_desktop.engine.write.plan import Fence, FileWrite, Plan, WriteRejected

STORE_OWNED = ("format", "id", "kind", "scope", "recorded_at", "lifecycle", *LIFECYCLE_METADATA)
_MISSING = object()


def plan_save(ctx: WriteContext, fence: Fence, text: str) -> Plan:
    current = _page(ctx, fence)
    submitted = submitted_frontmatter(text)
    now = current.frontmatter
    revision = (current.revision or 0) + 1
    changes: dict[str, Any] = {"revision": revision, "updated_at": ctx.now}
    for key in STORE_OWNED:
        theirs, ours = submitted.get(key, _MISSING), now.get(key, _MISSING)
        if theirs is _MISSING:
            if ours is not _MISSING:
                changes[key] = ours
        elif theirs != ours:
            raise WriteRejected(
                "store-owned-field",
                f"{key} is kept by the store and cannot be changed by a save"
                + (" (lifecycle operations change it)" if key in (*LIFECYCLE_METADATA, "lifecycle") else ""),
                {key: None if ours is _MISSING else ours},
            )
    order = [k for k in (*CANONICAL, *LIFECYCLE_METADATA) if k in changes]
    placed = anchors([k for k in order if k not in submitted], set(submitted))
    return _plan("save", ctx, current, _updated(text, {k: changes[k] for k in order}, placed), revision)


def plan_edit_body(ctx: WriteContext, fence: Fence, body: str) -> Plan:
    current = _page(ctx, fence)
    revision = (current.revision or 0) + 1
    text = _updated(current.text, {"revision": revision, "updated_at": ctx.now}, {})
    return _plan("edit-body", ctx, current, replace_body(text, body), revision)


def _page(ctx: WriteContext, fence: Fence) -> Current:
    current = ctx.record(fence)
    if current.kind != "page":
        raise WriteRejected(
            "not-a-page",
            f"{current.record_id} is a {current.kind}; claims and relationships are corrected "
            "(knowledge correct), not saved",
            {"id": current.record_id, "kind": current.kind},
        )
    if current.lifecycle == "withdrawn":
        raise WriteRejected(
            "not-active", f"{current.record_id} is withdrawn; a withdrawn record is not edited", {}
        )
    return current


def _updated(text: str, changes: dict[str, Any], after: dict[str, str]) -> str:
    try:
        return update_frontmatter(text, changes, after=after)
    except ValueError as exc:
        raise WriteRejected("invalid-record", str(exc), {}) from None


def _plan(operation: str, ctx: WriteContext, current: Current, text: str, revision: int) -> Plan:
    encoded = text.encode("utf-8")
    ctx.validate(current.path, current.scope, encoded, old=current.frontmatter)
    write = FileWrite(current.path, encoded, current.sha256, current.record_id, revision)
    return Plan(operation, current.record_id, None, [write])
