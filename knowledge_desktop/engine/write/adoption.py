"""Adopting notes as requests: what the CLI and the window call (`operations/adopt.py` plans).

`dry_run` plans without publishing: what a real run would write, each
file's sha256 and the id it would get. `adopt` publishes one journaled plan;
given the dry run's output (`expect`) it refuses the whole run when a file
changed since, and writes the ids the dry run showed. `undo` puts an adopt
run's files back from the journal.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.adopt import plan_adopt, plan_undo
from knowledge_desktop.engine.write.operations.filing import arrange
from knowledge_desktop.engine.write.plan import Plan, Request, WriteRejected
from knowledge_desktop.engine.write.publish import Planner
from knowledge_desktop.engine.write.requests import make_request

Write = Callable[[Request, Planner], dict[str, Any]]


def dry_run(
    ctx: WriteContext,
    partition: str | None = None,
    *,
    type_map: dict[str, str] | None = None,
    move: Collection[str] = (),
    root_into: str | None = None,
) -> dict[str, Any]:
    """What `adopt` would do, writing nothing. `partition` None: the whole vault. `move`: the
    notes (vault-relative paths) to file in their type's folder (`operations/filing.py`).
    `root_into`: the partition the vault root's notes move into (`operations/root_move.py`)."""
    return _dry(arrange(ctx, plan_adopt(ctx, partition, type_map=type_map, root_into=root_into), move))


def previewed(
    preview: Callable[[Request, Planner], Plan],
    partition: str | None = None,
    *,
    type_map: dict[str, str] | None = None,
    move: Collection[str] = (),
    root_into: str | None = None,
) -> dict[str, Any]:
    """`dry_run` through a vault's `preview` (the window: its lock, its context)."""
    request = make_request("adopt", {})

    def planner(ctx: WriteContext) -> Plan:
        return arrange(ctx, plan_adopt(ctx, partition, type_map=type_map, root_into=root_into), move)

    return _dry(preview(request, planner))


def _dry(plan: Plan) -> dict[str, Any]:
    extra = plan.extra
    return {
        "dryRun": True,
        "partition": extra["partition"],
        "partitions": extra["partitions"],
        "files": extra["adopted"],
        "skipped": extra["skipped"],
        "ambiguousNames": extra["ambiguousNames"],
        "crossPartitionLinks": extra["crossPartitionLinks"],
        "rootInto": extra["rootInto"],
        "linksRewritten": extra["linksRewritten"],
    }


def expected_from(dry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fences a dry run's output holds: path -> {sha256, id}."""
    files = dry.get("files")
    if not isinstance(files, list) or not all(
        isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)
        for f in files
    ):
        raise WriteRejected("expect-invalid", "the --expect file is not a dry run's JSON output", {})
    return {f["path"]: {"sha256": f["sha256"], "id": f.get("id")} for f in files}


def adopt(
    write: Write,
    partition: str | None = None,
    *,
    type_map: dict[str, str] | None = None,
    expect: dict[str, dict[str, Any]] | None = None,
    move: Collection[str] = (),
    root_into: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    payload: dict[str, Any] = {"partition": partition, "typeMap": type_map or {}, "expect": expect}
    if move:
        payload["move"] = sorted(move)
    if root_into is not None:
        payload["rootInto"] = root_into
    request = make_request("adopt", payload, **options)

    def planner(ctx: WriteContext) -> Plan:
        plan = arrange(
            ctx, plan_adopt(ctx, partition, type_map=type_map, expect=expect, root_into=root_into), move
        )
        if not plan.writes:
            raise WriteRejected(
                "nothing-to-adopt",
                "no plain note in the partition can be adopted"
                if partition is not None
                else "no plain note in the vault can be adopted",
                {"partition": plan.extra["partition"], "skipped": plan.extra["skipped"]},
            )
        return plan

    return write(request, planner)


def undo(write: Write, journal_id: int, **options: Any) -> dict[str, Any]:
    request = make_request("undo", {"journalId": journal_id}, **options)
    return write(request, lambda ctx: plan_undo(ctx, journal_id))
