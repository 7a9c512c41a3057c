"""Walking a vault folder: which files are candidates, with their stat identity.

Layout (ARCHITECTURE.md, Vault layout on disk): every top-level non-hidden
folder is a partition whose name is the scope; hidden entries (`.knowledge`,
`.git`, editor locks) are never read. Inside a partition, `*.md` files are
candidate records and `ontology.yaml` / `ontologies/*.yaml` are ontology
manifests. Markdown at the vault root is outside every partition: listed and
diagnosed. Links to outside the vault are never followed; linked folders
inside it are skipped so nothing is read twice.
"""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

EntryKind = Literal["markdown", "manifest"]


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str
    """Vault-relative, `/`-separated."""
    scope: str | None
    kind: EntryKind
    size: int
    mtime_ns: int
    inode: int
    outside_link: bool = False

    @property
    def stat_key(self) -> tuple[int, int, int]:
        return (self.size, self.mtime_ns, self.inode)


def is_hidden(name: str) -> bool:
    return name.startswith(".")


def classify_path(path: str) -> tuple[str | None, EntryKind] | None:
    """Scope and kind of a vault-relative path, or None when the engine ignores it."""
    parts = path.split("/")
    if any(is_hidden(p) or not p for p in parts):
        return None
    name = parts[-1]
    if len(parts) == 1:
        return (None, "markdown") if name.lower().endswith(".md") else None
    scope = parts[0]
    if name.lower().endswith(".md"):
        return scope, "markdown"
    if len(parts) == 2 and name == "ontology.yaml":
        return scope, "manifest"
    if len(parts) == 3 and parts[1] == "ontologies" and name.endswith((".yaml", ".yml")):
        return scope, "manifest"
    return None


def walk(root: Path) -> list[FileEntry]:
    """Every candidate file under `root`, in no particular order."""
    root_real = os.path.realpath(root)
    out: list[FileEntry] = []
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, rel = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if is_hidden(name):
                continue
            child_rel = f"{rel}{name}"
            try:
                is_link = entry.is_symlink()
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, child_rel + "/"))
                    continue
                if is_link:
                    entry_out = _link_entry(entry, child_rel, root_real)
                    if entry_out is not None:
                        out.append(entry_out)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                where = classify_path(child_rel)
                if where is None:
                    continue
                st = entry.stat(follow_symlinks=False)
                out.append(FileEntry(child_rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino))
            except OSError:
                continue
    return out


def _link_entry(entry: os.DirEntry[str], rel: str, root_real: str) -> FileEntry | None:
    target = os.path.realpath(entry.path)
    inside = target == root_real or target.startswith(root_real + os.sep)
    where = classify_path(rel)
    if not inside:
        scope = rel.split("/", 1)[0] if "/" in rel else None
        st = entry.stat(follow_symlinks=False)
        return FileEntry(rel, scope, "markdown", st.st_size, st.st_mtime_ns, st.st_ino, True)
    if where is None or os.path.isdir(target):
        return None  # linked folders inside the vault would be read twice
    st = entry.stat(follow_symlinks=True)
    return FileEntry(rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino)


def stat_one(root: Path, rel: str) -> FileEntry | None:
    """The entry for one vault-relative path, None when it is gone or ignored."""
    where = classify_path(rel)
    if where is None:
        return None
    full = root / rel
    try:
        st = full.lstat()
    except OSError:
        return None
    if stat_mod.S_ISLNK(st.st_mode):
        target = os.path.realpath(full)
        root_real = os.path.realpath(root)
        if not (target.startswith(root_real + os.sep)):
            return FileEntry(rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino, True)
        try:
            st = full.stat()
        except OSError:
            return None
    if not stat_mod.S_ISREG(st.st_mode):
        return None
    for parent in Path(rel).parents:
        if str(parent) != "." and (root / parent).is_symlink():
            return None
    return FileEntry(rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino)
