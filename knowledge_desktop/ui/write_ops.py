"""What the window's write actions hand the engine, and what they show before asking.

No widgets here: the record an action targets (`Subject`), the operation it
builds (`Operation`: a lifecycle request from `engine/write/lifecycle.py`
with the fences the window showed), and the two calls that run on a worker —
`preview` (the plan made now and not published, `Vault.preview`, turned into
a frontmatter diff, the fences and the impact list) and `publish` (the same
request through `Vault.write`). A `WriteRejected` comes back as a value, not
an error, so the dialog can read its code (a stale fence offers to reload).

The preview shows what will be written (issue 29, §4): both calls use the
operation's one request id and actor (`pinned`), a correction's new id is
chosen before either, and the only values not known until the person
publishes — the reason and the time — are shown as `PREVIEW_REASON` and
`PUBLISH_TIME`.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.query.impact import impact
from knowledge_desktop.engine.records import frontmatter as fm
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.lifecycle import Write
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.operations.common import ASSIGNED, LIFECYCLE_METADATA
from knowledge_desktop.engine.write.plan import Plan, Request, WriteRejected
from knowledge_desktop.engine.write.publish import Planner

PREVIEW_REASON = "(the reason you give)"
"""The reason the preview plans with: the real one is typed in the dialog afterwards."""

PUBLISH_TIME = "(the time you publish)"
"""Shown where the preview's plan wrote its own time: the write takes the time it is published."""

STALE_CODES = frozenset({"fence-revision", "fence-hash", "merged-target", "not-found"})
"""Rejections that mean "the record is not what was shown": the dialog offers to reload."""


@dataclass(frozen=True, slots=True)
class Subject:
    """A record as the window showed it: what an action is enabled by and fenced with."""

    id: str
    path: str
    kind: str
    type: str | None
    title: str
    scope: str
    lifecycle: str
    revision: int
    hash: str
    superseded_by: str | None = None
    merged_into: str | None = None

    @property
    def fence(self) -> str:
        return f"{self.id}:{self.revision}:{self.hash}"

    @property
    def label(self) -> str:
        return f"{self.kind} “{self.title}”"

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Subject | None:
        """From `Vault.show`; None for a file that is not a record with an id and a revision."""
        data = view.get("frontmatter") or {}
        if not view.get("id") or not isinstance(view.get("revision"), int) or not view.get("hash"):
            return None
        by, into = data.get("superseded_by"), data.get("merged_into")
        return cls(
            str(view["id"]),
            str(view["path"]),
            str(view.get("kind") or ""),
            view.get("type") if isinstance(view.get("type"), str) else None,
            str(view.get("title") or view["id"]),
            str(view.get("scope") or ""),
            str(view.get("lifecycle") or ""),
            int(view["revision"]),
            str(view["hash"]),
            by if isinstance(by, str) else None,
            into if isinstance(into, str) else None,
        )


Call = Callable[[Write, dict[str, str], str], dict[str, Any]]
"""(write, fences by record id, reason) -> receipt: one lifecycle request."""


@dataclass(slots=True)
class Operation:
    """One action, ready to preview and publish."""

    verb: str
    """Shown as the dialog's title and its publish button ("Withdraw")."""
    summary: str
    fences: dict[str, str]
    """The fence of every record the request names, as the window showed it."""
    call: Call
    request_id: str = field(default_factory=lambda: new_id("request"))
    """One id for the preview and the publish, so the `lifecycle_change.request_id` shown is
    the one written (a preview is never journaled, so the id is still unused when published)."""
    actor: str | None = None
    """Who publishes (Settings › Your name); None: the engine's default, the OS user."""

    def pinned(self, write: Write) -> Write:
        """`write` with this operation's request id and actor on every request."""

        def call(request: Request, planner: Planner) -> dict[str, Any]:
            actor = self.actor or request.actor
            return write(dataclasses.replace(request, request_id=self.request_id, actor=actor), planner)

        return call


@dataclass(slots=True)
class FileDiff:
    path: str
    lines: list[str]
    """Unified diff lines of the frontmatter (`+`, `-`, ` `), without headers."""
    new_file: bool = False


@dataclass(slots=True)
class Preview:
    operation: str
    diffs: list[FileDiff]
    impact: list[dict[str, Any]]
    fences: list[tuple[str, int, str]] = field(default_factory=list)
    """(id, revision, hash) of every fenced record."""
    request_id: str = ""
    replacement_id: str | None = None


def preview(vault: Vault, op: Operation) -> Preview | WriteRejected:
    """Runs on a worker: the plan `op` would publish now, as the dialog shows it."""
    captured: list[tuple[Request, Planner]] = []
    times: list[str] = []

    def capture(request: Request, planner: Planner) -> dict[str, Any]:
        captured.append((request, planner))
        return {}

    try:
        op.call(op.pinned(capture), op.fences, PREVIEW_REASON)
        request, planner = captured[0]
        plan = vault.preview(request, lambda ctx: _timed(ctx, planner, times))
    except WriteRejected as rejected:
        return rejected
    affected = impact(vault.store.reader(), plan.impact_of) if plan.impact_of else []
    fences = []
    for text in op.fences.values():
        record_id, revision, sha = text.split(":")
        fences.append((record_id, int(revision), sha))
    diffs = _diffs(vault, plan, times[0])
    return Preview(plan.operation, diffs, affected, fences, op.request_id, plan.replacement_id)


def publish(vault: Vault, op: Operation, reason: str) -> dict[str, Any] | WriteRejected:
    """Runs on a worker: the request through the one publish path; its receipt."""
    try:
        return op.call(op.pinned(vault.write), op.fences, reason)
    except WriteRejected as rejected:
        return rejected


def reload_fences(vault: Vault, op: Operation) -> Operation:
    """Runs on a worker: `op` with the fences of its records as they are now."""
    fresh = {}
    for record_id in op.fences:
        view = vault.show(record_id)
        fresh[record_id] = f"{view['id']}:{view['revision']}:{view['hash']}"
    return dataclasses.replace(op, fences=fresh)


def _timed(ctx: WriteContext, planner: Planner, times: list[str]) -> Plan:
    """`planner(ctx)`, noting the time the plan writes (the preview shows it as PUBLISH_TIME)."""
    times.append(ctx.now)
    return planner(ctx)


def _diffs(vault: Vault, plan: Plan, now: str) -> list[FileDiff]:
    out = []
    for write in plan.writes:
        old = ""
        if write.expected_sha256 is not None:
            old = _frontmatter_text((vault.root / write.path).read_bytes())
        new = "" if write.data is None else _frontmatter_text(write.data).replace(now, PUBLISH_TIME)
        lines = [
            line
            for line in difflib.unified_diff(old.splitlines(), new.splitlines(), n=2, lineterm="")
            if not line.startswith(("---", "+++", "@@"))
        ]
        out.append(FileDiff(write.path, lines, write.expected_sha256 is None))
    return out


def _frontmatter_text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        split = fm.split(text)
    except fm.FrontmatterError:
        return text
    return split.yaml_text if split is not None else ""


def correction_draft(text: str) -> str:
    """The original record's file without the fields the store assigns: what Correct…
    prefills, so the replacement is read like a new record (docs/writing.md, correct)."""
    return update_frontmatter(text, dict.fromkeys((*ASSIGNED, *LIFECYCLE_METADATA), DELETE))


def describe_receipt(receipt: dict[str, Any]) -> str:
    """One line for the status bar and the activity panel."""
    items = receipt.get("items") or []
    what = f"{receipt.get('operation')} {receipt.get('targetId') or ''}".strip()
    extra = f", replaced by {receipt['replacementId']}" if receipt.get("replacementId") else ""
    return f"{what}: {len(items)} file(s) written{extra} (journal {receipt.get('journalId')})"
