"""What the lifecycle operations share: the reason, `lifecycle_change`, a record's
lifecycle as reads see it, its catalog facts, and a revised file.

A revised file is the record's own bytes with only the keys an operation
owns changed (`records/roundtrip.py`): its revision goes up by one and
`updated_at` becomes the operation's time; unknown keys, comments, order,
quoting and the body stay byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.graph.guards import outranks
from knowledge_desktop.engine.records.roundtrip import DELETE, replace_body, update_frontmatter
from knowledge_desktop.engine.store import guards
from knowledge_desktop.engine.write.context import Current, WriteContext
from knowledge_desktop.engine.write.plan import FileWrite, WriteRejected

ANCHORS: dict[str, tuple[str, ...]] = {
    "superseded_by": ("lifecycle",),
    "merged_into": ("lifecycle",),
    "lifecycle_change": ("superseded_by", "merged_into", "lifecycle"),
    "merged_from": ("lifecycle_change", "lifecycle"),
    "supersedes": ("lifecycle",),
    "entities": ("attribution", "assertion_origin", "claim_kind"),
    "aliases": ("title",),
    "tags": ("aliases", "title"),
}
"""Where a key an operation adds goes: after the first of these the file has (else at the end)."""


def require_reason(reason: str | None) -> str:
    """A lifecycle change needs a nonblank reason (spec: corrections-and-merges)."""
    if reason is None or not reason.strip():
        raise WriteRejected("reason-required", "a reason is required and must not be blank", {})
    return reason.strip()


def lifecycle_change(ctx: WriteContext, reason: str) -> dict[str, Any]:
    """`lifecycle_change: {reason, at, actor, request_id}` (spec: records-and-ontology,
    Lifecycle and merge metadata)."""
    return {
        "reason": reason,
        "at": ctx.now,
        "actor": ctx.request.actor,
        "request_id": ctx.request.request_id,
    }


def lifecycle_of(ctx: WriteContext, current: Current) -> str:
    """The lifecycle reads see: the file's, unless a durable guard holds more."""
    own = current.lifecycle or "active"
    held = guards.of_record(ctx.store.reader(), current.scope, current.record_id)
    return held.guard if held is not None and outranks(held.guard, own) else own


@dataclass(frozen=True, slots=True)
class Facts:
    """What the catalog says of a record (the reconcile of its path came first)."""

    valid: bool
    duplicate: bool
    deps_ok: bool
    eligible: bool
    type: str | None
    active_from: str | None
    active_until: str | None

    def current_at(self, now: str) -> bool:
        """Eligible and inside its validity window at `now` (not expired, not yet ended)."""
        return (
            self.eligible
            and (self.active_from is None or self.active_from <= now)
            and (self.active_until is None or self.active_until > now)
        )


def facts(ctx: WriteContext, current: Current) -> Facts:
    row = (
        ctx.store.reader()
        .execute(
            "SELECT valid, duplicate, deps_ok, eligible, type, active_from, active_until"
            " FROM catalog WHERE path=?",
            (current.path,),
        )
        .fetchone()
    )
    if row is None:
        raise WriteRejected("not-found", f"{current.path} is not in the catalog; read it again", {})
    valid, duplicate, deps_ok, eligible, type_, start, end = row
    return Facts(bool(valid), bool(duplicate), bool(deps_ok), bool(eligible), type_, start, end)


def shown(current: Current, lifecycle: str | None = None) -> dict[str, Any]:
    """The `current` values a rejection carries for one record."""
    return {
        "id": current.record_id,
        "revision": current.revision,
        "hash": current.sha256,
        "path": current.path,
        "lifecycle": lifecycle or current.lifecycle,
    }


def revise(
    ctx: WriteContext, current: Current, changes: Mapping[str, Any], *, body: str | None = None
) -> FileWrite:
    """The record's file with `changes` made, its revision up by one and `updated_at` now;
    `body`: a new body too (the frontmatter's closing line stays)."""
    revision = (current.revision or 0) + 1
    merged: dict[str, Any] = {**changes, "revision": revision, "updated_at": ctx.now}
    present = set(current.frontmatter) | {k for k, v in merged.items() if v is not DELETE}
    after = {
        key: next((a for a in ANCHORS.get(key, ()) if a in present and a != key), "")
        for key in merged
        if key not in current.frontmatter
    }
    text = update_frontmatter(current.text, merged, after={k: a for k, a in after.items() if a})
    if body is not None:
        text = replace_body(text, body)
    return FileWrite(current.path, text.encode("utf-8"), current.sha256, current.record_id, revision)
