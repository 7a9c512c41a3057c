"""The publish path's file work: checking where a plan writes, replacing, putting back.

Every file of a plan is judged by its bytes on disk against the two hashes
the journal holds for it: `old` (still as the writer saw it), `new` (already
replaced by this entry) or `other` (changed by someone else: a conflict).
Replacing and putting back each check the file again right before acting,
and never write over `other` bytes.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
from pathlib import Path
from typing import Literal

from knowledge_desktop.engine.fs.atomic import remove_durably, write_atomic
from knowledge_desktop.engine.fs.inside import LeavesVault, inside, read_inside
from knowledge_desktop.engine.fs.walk import is_hidden
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES, sha256_hex
from knowledge_desktop.engine.write.journal import JournalFile
from knowledge_desktop.engine.write.plan import FileWrite, WriteRejected

CONFLICTS_DIR = "conflicts"
FileState = Literal["old", "new", "other"]


class Disk:
    def __init__(self, root: Path, state_dir: Path) -> None:
        self.root = root
        self.state_dir = state_dir

    def rows(self, writes: list[FileWrite], *, root_markdown: bool = False) -> list[JournalFile]:
        """The journal rows of a plan's writes, after checking each path and each file's
        bytes against what the plan expects (WriteRejected when one differs).
        `root_markdown`: an adopt run may delete a note at the vault root (it moves into a
        partition) and its undo may write it back; no other write touches the root."""
        out: list[JournalFile] = []
        seen: set[str] = set()
        for idx, w in enumerate(writes):
            self.check_path(w.path, at_root=root_markdown and "/" not in w.path)
            if w.path in seen:
                raise ValueError(f"the plan writes {w.path} twice")
            seen.add(w.path)
            if w.data is None and w.expected_sha256 is None:
                raise ValueError(f"the plan deletes {w.path} without saying which bytes it deletes")
            if w.data is not None and len(w.data) > MAX_FILE_BYTES:
                raise WriteRejected(
                    "file-too-large",
                    f"{w.path} would be {len(w.data)} bytes; the limit is {MAX_FILE_BYTES}",
                    {},
                )
            old = self.read(w.path)
            old_sha = sha256_hex(old) if old is not None else None
            if w.expected_sha256 is None and old is not None:
                raise WriteRejected(
                    "path-taken", f"{w.path} exists already", {"path": w.path, "hash": old_sha}
                )
            if w.expected_sha256 is not None and old_sha != w.expected_sha256:
                raise WriteRejected(
                    "fence-hash",
                    f"{w.path} changed since it was read; read it again",
                    {"id": w.record_id, "path": w.path, "hash": old_sha},
                )
            out.append(
                JournalFile(
                    idx,
                    w.path,
                    w.record_id,
                    w.revision,
                    old_sha,
                    old,
                    None if w.data is None else sha256_hex(w.data),
                    w.data,
                )
            )
        return out

    def check_path(self, rel: str, *, at_root: bool = False) -> None:
        """A plan writes Markdown inside a partition of this vault (`at_root`: or at the vault
        root), never through a link."""
        parts = rel.split("/")
        bad = (
            "\\" in rel
            or os.path.isabs(rel)
            or len(parts) < (1 if at_root else 2)
            or any(not p or p in (".", "..") or is_hidden(p) for p in parts)
            or not rel.lower().endswith(".md")
        )
        if bad:
            raise WriteRejected("bad-path", f"{rel!r} is not a Markdown path inside a partition", {})
        full = self.root / rel
        if full.is_symlink():
            raise WriteRejected("bad-path", f"{rel} is a symbolic link; it is not written through", {})
        existing = full.parent
        while not existing.exists():
            existing = existing.parent
        root_real = os.path.realpath(self.root)
        if os.path.realpath(existing) != root_real and not inside(root_real, os.path.realpath(existing)):
            raise WriteRejected("bad-path", f"{rel} leads outside the vault", {})

    def read(self, rel: str) -> bytes | None:
        """The file's bytes; None when it does not exist."""
        try:
            return read_inside(self.root, rel)
        except FileNotFoundError:
            return None
        except LeavesVault:
            raise WriteRejected("bad-path", f"{rel} leads outside the vault", {}) from None

    def sha(self, rel: str) -> str | None:
        data = self.read(rel)
        return sha256_hex(data) if data is not None else None

    def sweep_temp(self, rel: str) -> None:
        """Remove the temp files a killed `write_atomic` of `rel` left: `.<name>.` and the
        eight characters `mkstemp` picks, then `.tmp` (an editor's own temp files differ)."""
        full = self.root / rel
        shape = re.compile(rf"^\.{re.escape(full.name)}\.[a-z0-9_]{{8}}\.tmp$")
        for leftover in full.parent.glob(f".{glob.escape(full.name)}.*.tmp"):
            if shape.match(leftover.name):
                with contextlib.suppress(OSError):
                    leftover.unlink()

    def state(self, f: JournalFile) -> FileState:
        now = self.sha(f.path)
        if now == f.new_sha256:
            return "new"
        return "old" if now == f.old_sha256 else "other"

    def replace(self, f: JournalFile, folders: set[Path] | None = None) -> bool:
        """Write the new bytes (or delete the file, for an entry that deletes it) if the file still
        holds the old ones; False (nothing written) if not.
        `folders`: collect the folder to fsync once after the batch instead of after each file (a
        rename lost to a power cut leaves the old bytes, which recovery replaces again)."""
        if self.sha(f.path) != f.old_sha256:
            return False
        target = self.root / f.path
        if f.new_data is None:
            remove_durably(target)
        else:
            write_atomic(target, f.new_data, sync_folder=folders is None)
        if folders is not None:
            folders.add(target.parent)
        return True

    def restore(self, f: JournalFile) -> bool:
        """Put the old bytes back if the file holds this entry's new ones; whether it did."""
        if f.new_sha256 == f.old_sha256 or self.sha(f.path) != f.new_sha256:
            return False
        if f.old_data is None:
            remove_durably(self.root / f.path)
        else:
            write_atomic(self.root / f.path, f.old_data)
        return True

    def keep_conflict(self, seq: int, files: list[JournalFile], conflict: JournalFile) -> Path:
        """Keep the proposed, original and displaced bytes of a conflicting entry's files under
        `.knowledge/conflicts/<journal id>/`, with `conflict.json` saying which is which."""
        folder = self.state_dir / CONFLICTS_DIR / str(seq)
        listing = []
        for f in files:
            if f.new_data is not None:  # a deletion proposes no bytes
                write_atomic(folder / "proposed" / f.path, f.new_data)
            if f.old_data is not None:
                write_atomic(folder / "original" / f.path, f.old_data)
            displaced = self.read(f.path) if f is conflict else None
            if displaced is not None:
                write_atomic(folder / "displaced" / f.path, displaced)
            listing.append(
                {
                    "path": f.path,
                    "recordId": f.record_id,
                    "conflict": f is conflict,
                    "proposed": f.new_sha256,
                    "original": f.old_sha256,
                    "displaced": sha256_hex(displaced) if displaced is not None else None,
                }
            )
        write_atomic(folder / "conflict.json", (json.dumps({"files": listing}, indent=2) + "\n").encode())
        return folder
