"""The vault's non-Markdown files that notes link and embed (images, PDFs …), found by name.

The walk lists only Markdown and manifests, so an `![[image.png]]` is looked up
here: a listing of the vault's other files made the first time a derivation
asks during one graph step and dropped when the step ends (`Attachments.reset`).
Only files inside the vault count: hidden folders (`.obsidian`, `.trash`,
`.git`), `node_modules` and Logseq's `logseq/bak` are not listed, and symbolic
links are not followed, so an attachment never resolves outside the vault
(the vault boundary rules of ARCHITECTURE.md stay).

Attachments are not part of the graph's keys: a link to one is checked again
when its note is derived again (an edit of the note, or a full scan), not when
the attachment alone appears or goes. docs/decisions.md says so.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_ATTACHMENTS = 200_000
"""Files listed at most; a vault with more has the rest unresolved by name."""
_SKIPPED = frozenset(("node_modules",))


class Attachments:
    """Vault-relative paths of non-Markdown files, by lowercased file name."""

    __slots__ = ("_by_name", "root")

    def __init__(self) -> None:
        self.root: Path | None = None
        """The vault folder; None (nothing resolves) until the reconciler sets it."""
        self._by_name: dict[str, list[str]] | None = None

    def reset(self) -> None:
        """Forget the listing: the next lookup lists the vault again."""
        self._by_name = None

    def named(self, name: str) -> list[str]:
        """Files whose name is `name` (case-insensitive), in any folder."""
        if self._by_name is None:
            self._by_name = self._list()
        return self._by_name.get(name.lower(), [])

    def exists(self, rel: str) -> bool:
        """Whether vault-relative `rel` is a listed (so inside-the-vault) file."""
        return rel in self.named(rel.rsplit("/", 1)[-1])

    def _list(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if self.root is None:
            return out
        count = 0
        stack = [""]
        while stack and count < MAX_ATTACHMENTS:
            rel = stack.pop()
            try:
                with os.scandir(os.path.join(self.root, rel) if rel else self.root) as entries:
                    for entry in entries:
                        name = entry.name
                        if name.startswith(".") or name in _SKIPPED:
                            continue
                        child = f"{rel}{name}"
                        if entry.is_dir(follow_symlinks=False):
                            if child != "logseq/bak":
                                stack.append(child + "/")
                        elif entry.is_file(follow_symlinks=False) and not name.lower().endswith(".md"):
                            out.setdefault(name.lower(), []).append(child)
                            count += 1
            except OSError:
                continue  # an unreadable folder is the walk's diagnostic, not ours
        return out
