"""Whether a backlinks answer is a note's (issue 25 §2).

`Vault.backlinks` answers for a note as for a record (linking files by path, unlinked
mentions), but with no id; a file that is not a record and not a note has no id either
and nothing can link to it. The Backlinks pane tells the two apart by this mark.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.vault import Vault


def note_backlinks(vault: Vault, path: str, result: dict[str, Any]) -> dict[str, Any]:
    """`result` marked `note: True` when `path` is a note (runs on a worker)."""
    if result.get("id"):
        return result
    if result.get("linked") or result.get("mentions"):
        return {**result, "note": True}  # only a note is linked without an id
    rows = vault.find(path)
    if rows and rows[0].get("path") == path and rows[0].get("status") == "note":
        return {**result, "note": True}
    return result
