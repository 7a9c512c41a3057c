"""Which published writes can be undone, and the request that undoes one (issue 29, §3).

The spec (corrections-and-merges) gives three undos, each its own journaled
operation on the one publish path: a supersession is undone by `supersede`
with `undo` (the claims become active again and their guard is lifted), a
merge by `unmerge`, and an adopt run by `undo`. Nothing undoes a withdrawal
(a durable guard keeps the record withdrawn: "There is no unwithdraw"), nor a
correction (the replacement is a new version of the original, so the
supersession undo refuses it). An undo is fenced with what the write left:
the receipt's items, so an edit made since makes it fail and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.write import adoption, lifecycle
from knowledge_desktop.engine.write.plan import WriteRejected

FenceOf = Callable[[str], str]
"""A record id -> its fence as it is now (`ID:REVISION:HASH`)."""

UNDONE_BY = {"supersede": "unsupersede", "merge": "unmerge", "adopt": "undo"}
"""The operation that undoes each undoable one."""

WITHDRAWAL_IS_FINAL = (
    "A withdrawal is final: the record stays withdrawn (a durable guard keeps it so), and no "
    "operation brings it back."
)
CORRECTION_STAYS = (
    "A correction has no undo: the original stays superseded by its replacement. Correct or "
    "withdraw the replacement instead."
)


@dataclass(frozen=True, slots=True)
class Undoable:
    """Whether a receipt's write can be undone, and the words for it."""

    label: str
    """What the undo is called ("Undo Supersede")."""
    blocked: str | None
    """Why it cannot be undone; None when it can."""


def undoable(receipt: dict[str, Any]) -> Undoable:
    operation = str(receipt.get("operation") or "")
    label = f"Undo {operation.capitalize()}" if operation else "Undo"
    if operation in UNDONE_BY:
        return Undoable(label, None)
    if operation == "withdraw":
        return Undoable(label, WITHDRAWAL_IS_FINAL)
    if operation == "correct":
        return Undoable(label, CORRECTION_STAYS)
    if operation in UNDONE_BY.values():
        return Undoable(label, f"This {operation} is itself an undo; do the operation again instead.")
    return Undoable(label, f"A {operation or 'write'} has no undo.")


def undo(
    write: lifecycle.Write, fence_of: FenceOf, receipt: dict[str, Any], reason: str, **options: Any
) -> dict[str, Any]:
    """Undo the write `receipt` describes through `write` (the publish path); its receipt.

    WriteRejected when it has no undo, or when a record changed since the write (a fence)."""
    blocked = undoable(receipt).blocked
    if blocked is not None:
        raise WriteRejected("not-undoable", blocked, {"operation": receipt.get("operation")})
    operation = receipt["operation"]
    if operation == "adopt":
        return adoption.undo(write, int(receipt["journalId"]), **options)
    fences = {item["id"]: f"{item['id']}:{item['revision']}:{item['hash']}" for item in receipt["items"]}
    if operation == "supersede":
        by = str(receipt["replacementId"])
        earlier = [fences[i] for i in receipt.get("supersededIds") or [receipt["targetId"]]]
        return lifecycle.supersede(write, fence_of(by), earlier, reason, undo=True, **options)
    return lifecycle.unmerge(write, fences[str(receipt["targetId"])], reason, **options)
