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
from pathlib import Path
from typing import Literal, NamedTuple

EntryKind = Literal["markdown", "manifest"]


class FileEntry(NamedTuple):
    """One candidate file. A named tuple rather than a frozen dataclass: the walk
    makes one per file, and at 100k files the dataclass's guarded `__init__` cost
    a fifth of a second of the freshness check."""

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
    """Every candidate file under `root`, in no particular order.

    This is the freshness check's hot loop (one stat per file), so each file
    is classified from what the walk already knows — its partition and depth —
    rather than by re-reading its path; `classify_path` gives the same answer.
    """
    root_real = os.path.realpath(root)
    out: list[FileEntry] = []
    stack: list[tuple[str, str, str | None, int]] = [(str(root), "", None, 0)]
    while stack:
        folder, rel, scope, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        in_library = depth == 2 and rel.endswith("/ontologies/")
        for entry in entries:
            name = entry.name
            if name[:1] == ".":
                continue
            child_rel = rel + name
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, child_rel + "/", scope or name, depth + 1))
                    continue
                if entry.is_symlink():
                    found = _link_entry(entry, child_rel, root_real)
                    if found is not None:
                        out.append(found)
                    continue
                if name[-3:].lower() == ".md":
                    kind: EntryKind = "markdown"
                elif (depth == 1 and name == "ontology.yaml") or (
                    in_library and name.endswith((".yaml", ".yml"))
                ):
                    kind = "manifest"
                else:
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                st = entry.stat(follow_symlinks=False)
                out.append(FileEntry(child_rel, scope, kind, st.st_size, st.st_mtime_ns, st.st_ino))
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
