"""Folders that are never opened as a vault, whatever they hold (docs/limits.md, "Folders
that are not vaults").

Opening a folder makes `.knowledge/` in it and reads every Markdown file below it. For
`/` that was the whole machine (672 MB of database within a minute); for the home folder,
every program's documentation and every project's README. Both hold Markdown, so the
vault check (a partition with Markdown) lets them through; they are refused by what they
are instead, before anything is written:

- the root of a file system: a folder that is its own parent (`/`, `C:\\`, a network
  share's root). Other mount points are not refused: a drive or a partition given to one
  vault is a good home for it.
- the user's home folder, and every folder above it (`/home`, `C:\\Users`): each holds
  all the home folder holds. A folder inside the home folder is where vaults usually
  live, and is fine.

The folder is compared after resolving symbolic links, so a link to `/` is `/`.
"""

from __future__ import annotations

from pathlib import Path


def refusal(root: Path) -> str | None:
    """Why the resolved folder `root` cannot be a vault, in a sentence; None when it can."""
    if root.parent == root:
        return f"{root} is the root of a file system, not a vault: open the folder that holds your notes"
    home = _home()
    if home is not None and root == home:
        return f"{root} is your home folder, not a vault: open the folder inside it that holds your notes"
    if home is not None and root in home.parents:
        return f"{root} holds your home folder ({home}), not a vault: open the folder that holds your notes"
    return None


def _home() -> Path | None:
    """The user's home folder, resolved; None when the OS names none (a bare service account)."""
    try:
        return Path.home().resolve()
    except (RuntimeError, OSError):
        return None
