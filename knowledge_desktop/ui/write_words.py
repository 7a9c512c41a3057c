"""What each write action's dialog says about undoing it (issue 29, §3).

Said before the button, so a person knows what the click commits to: a
withdrawal is final, a correction keeps the original superseded, and the
rest name the command that undoes them (spec: corrections-and-merges, which
gives undo to supersessions and merges, never to withdrawals).
"""

from __future__ import annotations

from knowledge_desktop.engine.write.undoing import CORRECTION_STAYS

RIGHT_AFTER = "Edit › Undo (Ctrl+Z) right after"

PERMANENCE = {
    "Withdraw": (
        "<b>This is final.</b> The record stays withdrawn (a durable guard keeps it so) and no "
        "operation brings it back; there is no undo. History and backups keep its content."
    ),
    "Correct": f"<b>No undo.</b> {CORRECTION_STAYS}",
    "Supersede": f"You can undo this: {RIGHT_AFTER}, or Record › Undo Supersession… later.",
    "Merge": f"You can undo this: {RIGHT_AFTER}, or Record › Unmerge… on the merged page later.",
    "Unmerge": "The merged page becomes active again; what the merge added to the survivor is taken back.",
    "Undo": "The claim becomes active again; its supersession guard is lifted.",
}
"""By the operation's verb (the dialog's title and button)."""


def permanence(verb: str) -> str:
    """The sentence about undoing `verb`, as rich text ("" when there is nothing to say)."""
    return PERMANENCE.get(verb, "")
