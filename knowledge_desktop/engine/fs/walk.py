"""Walking a vault folder: which files are candidates, with their stat identity.

Layout (ARCHITECTURE.md, Vault layout on disk): every top-level non-hidden
folder is a partition whose name is the scope; hidden entries (`.knowledge`,
`.git`, editor locks) are never read. Inside a partition, `*.md` files are
candidate records and `ontology.yaml` / `ontologies/*.yaml` are ontology
manifests. Markdown at the vault root is outside every partition: listed and
diagnosed. Links to outside the vault are never followed; linked folders
inside it are skipped so nothing is read twice. Other tools' own folders
(`IGNORED_FOLDERS`: Obsidian's settings and trash, Git, npm's packages,
Logseq's backups, Foam's settings) are never read either, and what they hold
does not count toward the bound on other entries (issue 25, §7).

What the walk cannot read it still lists, with the reason as the entry's
`problem`, so that a person learns of it through a diagnostic rather than
by a file silently missing: a link out of the vault, a link that loops or
leads nowhere, a folder it may not list, a name that is not UTF-8.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as stat_mod
from pathlib import Path
from typing import Literal, NamedTuple

from knowledge_desktop.engine.errors import VaultRefused

OTHER_ENTRIES_ALLOWED = 50_000
"""Files and folders that are not Markdown any vault may hold, however few its notes.
Past it, a vault may hold `OTHER_PER_MARKDOWN` of them per Markdown file (docs/limits.md,
"Folders that are not vaults")."""
OTHER_PER_MARKDOWN = 20
"""A vault holds notes and their attachments; a source tree, a system folder or a disk of
photos holds a few README files among hundreds of thousands of other files."""
MAX_OTHER_ENTRIES = 1_000_000
"""Where a walk stops at once, whatever it found: no vault holds a million other files,
and listing them takes seconds (140,000 entries: 0.4 s)."""

EntryKind = Literal["markdown", "manifest"]
Problem = Literal["outside-link", "broken-link", "folder-unreadable", "name-not-utf8"]


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
    problem: Problem | None = None
    """Why this path is listed but not read (`reading` turns it into a diagnostic)."""
    detail: str = ""
    """The reason in the OS's words (a broken link, an unreadable folder)."""

    @property
    def stat_key(self) -> tuple[int, int, int]:
        return (self.size, self.mtime_ns, self.inode)


IGNORED_FOLDERS = frozenset({".obsidian", ".trash", ".git", ".foam", "node_modules"})
"""Folders other tools keep beside the notes, ignored at any depth: their Markdown is a
copy, a package's README or a setting, never a note of the vault. (The hidden ones are
ignored as hidden already; they are named for the reader and for `is_ignored_folder`.)"""
IGNORED_BELOW = frozenset({("logseq", "bak")})
"""(parent, name) pairs of folders ignored only under that parent: Logseq keeps a backup
copy of every page it rewrote in `logseq/bak/`, which would make each a duplicate."""


def is_hidden(name: str) -> bool:
    return name.startswith(".")


def is_ignored_folder(parent: str, name: str) -> bool:
    """Whether the folder `name`, inside a folder named `parent` ("" at the root), is never
    read: hidden, or another tool's own (`IGNORED_FOLDERS`, `IGNORED_BELOW`)."""
    return is_hidden(name) or name in IGNORED_FOLDERS or (parent, name) in IGNORED_BELOW


def is_ignored_path(path: str) -> bool:
    """Whether a vault-relative path lies in (or is) a folder the engine never reads."""
    parts = path.split("/")
    return any(not part or is_ignored_folder(parts[i - 1] if i else "", part) for i, part in enumerate(parts))


def classify_path(path: str) -> tuple[str | None, EntryKind] | None:
    """Scope and kind of a vault-relative path, or None when the engine ignores it."""
    if is_ignored_path(path):
        return None
    parts = path.split("/")
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
    A folder below `root` that cannot be listed is an entry of its own
    (`folder-unreadable`); `root` itself raises the `OSError`, since treating
    every file under it as deleted would be wrong.
    """
    root_real = os.path.realpath(root)
    out: list[FileEntry] = []
    stack: list[tuple[str, str, str | None, int]] = [(str(root), "", None, 0)]
    seen = 0  # entries listed (an ignored folder counts once, unwalked): for the bound on other entries
    while stack:
        folder, rel, scope, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            if not rel:
                raise
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                with contextlib.suppress(OSError):  # else gone too, since it was listed
                    out.append(folder_entry(folder, rel.rstrip("/"), exc))
            continue  # a folder moved or deleted since its parent was listed holds nothing
        in_library = depth == 2 and rel.endswith("/ontologies/")
        parent = rel[:-1].rpartition("/")[2]
        for entry in entries:
            name = entry.name
            if name[:1] == "." or (
                (name in IGNORED_FOLDERS or (parent, name) in IGNORED_BELOW) and _is_dir(entry)
            ):
                continue
            child_rel = rel + name
            try:
                if not is_utf8(name):
                    if name[-3:].lower() == ".md" or entry.is_dir(follow_symlinks=False):
                        out.append(_bad_name_entry(entry, child_rel, scope))
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, child_rel + "/", scope or name, depth + 1))
                    continue
                if entry.is_symlink():
                    found = _link_entry(entry.path, child_rel, root_real)
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
                continue  # gone since the folder was listed
        seen += len(entries)
        if seen - len(out) > MAX_OTHER_ENTRIES:
            raise _too_many_others(root, seen - len(out), len(out), stopped=True)
    other = seen - len(out)
    if other > OTHER_ENTRIES_ALLOWED and other > OTHER_PER_MARKDOWN * len(out):
        raise _too_many_others(root, other, len(out), stopped=False)
    return out


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _too_many_others(root: Path, other: int, markdown: int, *, stopped: bool) -> VaultRefused:
    """The refusal of a folder full of other things than notes (a source tree, the folder
    of all home folders, a disk of photos), counted by `walk`. Measured over the whole walk,
    so a vault whose attachments folder comes first is not refused before its notes count."""
    counted = "reading stopped after" if stopped else "it holds"
    return VaultRefused(
        f"{root} is not a vault: {counted} {other:,} files and folders that are not Markdown, "
        f"against {markdown:,} Markdown files (a vault holds at most {OTHER_ENTRIES_ALLOWED:,} "
        f"of them, or {OTHER_PER_MARKDOWN} per Markdown file); open the folder that holds your notes"
    )


def walk_below(folder: Path) -> list[FileEntry]:
    """`walk` of one folder below the vault root, with paths relative to that folder.

    Unlike the root, such a folder may be renamed or deleted by another program
    between the check that it is one and its listing: then it holds nothing. One
    that is there but cannot be listed is a single `folder-unreadable` entry."""
    try:
        return walk(folder)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return []
        try:
            return [folder_entry(str(folder), "", exc)]
        except OSError:
            return []


def is_utf8(name: str) -> bool:
    """Whether a name from the OS is valid UTF-8 (Python decodes other bytes to
    lone surrogates, which neither SQLite nor JSON output can hold)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(rel: str) -> str:
    """A vault-relative path that can be stored and printed: bytes that are not
    UTF-8 are written as `\\xNN` escapes."""
    return rel if is_utf8(rel) else os.fsencode(rel).decode("utf-8", "backslashreplace")


def folder_entry(full: str, rel: str, exc: OSError) -> FileEntry:
    """The entry standing for a folder that cannot be listed."""
    st = os.lstat(full)
    scope = rel.split("/", 1)[0]
    return FileEntry(rel, scope, "markdown", 0, st.st_mtime_ns, st.st_ino, "folder-unreadable", _reason(exc))


def _bad_name_entry(entry: os.DirEntry[str], rel: str, scope: str | None) -> FileEntry:
    st = entry.stat(follow_symlinks=False)
    shown = shown_path(rel)
    return FileEntry(shown, scope, "markdown", st.st_size, st.st_mtime_ns, st.st_ino, "name-not-utf8")


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "it leads back to itself in a loop"
    if exc.errno == errno.ENOENT:
        return "what it points to does not exist"
    return (exc.strerror or str(exc)).lower()


def _link_entry(full: str, rel: str, root_real: str) -> FileEntry | None:
    """A symbolic link: what it points at when that is a file inside the vault, else
    the problem (outside the vault, a loop, nothing); None for a linked folder inside
    the vault (it would be read twice) and for names the engine ignores."""
    target = os.path.realpath(full)
    inside = target == root_real or target.startswith(root_real + os.sep)
    where = classify_path(rel)
    if not inside:
        scope = rel.split("/", 1)[0] if "/" in rel else None
        st = os.lstat(full)
        return FileEntry(rel, scope, "markdown", st.st_size, st.st_mtime_ns, st.st_ino, "outside-link")
    if where is None:
        return None
    try:
        st = os.stat(full)
    except OSError as exc:
        lst = os.lstat(full)
        return FileEntry(
            rel, where[0], where[1], lst.st_size, lst.st_mtime_ns, lst.st_ino, "broken-link", _reason(exc)
        )
    if not stat_mod.S_ISREG(st.st_mode):
        return None  # a linked folder would be read twice; a pipe or device is not a file
    return FileEntry(rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino)


def stat_one(root: Path, rel: str) -> FileEntry | None:
    """The entry for one vault-relative path, None when it is gone or ignored."""
    if not is_utf8(rel):
        return _bad_name_at(root, rel)
    where = classify_path(rel)
    if where is None:
        return None
    full = root / rel
    try:
        st = full.lstat()
    except OSError:
        return None
    for parent in Path(rel).parents:
        if str(parent) != "." and (root / parent).is_symlink():
            return None
    if stat_mod.S_ISLNK(st.st_mode):
        return _link_entry(str(full), rel, os.path.realpath(root))
    if not stat_mod.S_ISREG(st.st_mode):
        return None
    return FileEntry(rel, where[0], where[1], st.st_size, st.st_mtime_ns, st.st_ino)


def _bad_name_at(root: Path, rel: str) -> FileEntry | None:
    """As the walk does: the first name that is not UTF-8 stands for all below it."""
    parts = rel.split("/")
    if is_ignored_path(rel):
        return None
    bad = next(i for i, part in enumerate(parts) if not is_utf8(part))
    named = "/".join(parts[: bad + 1])
    try:
        st = (root / named).lstat()
    except OSError:
        return None
    if bad == len(parts) - 1 and not stat_mod.S_ISDIR(st.st_mode) and parts[-1][-3:].lower() != ".md":
        return None  # neither Markdown nor a folder: the walk ignores it too
    scope = parts[0] if bad else None
    shown = shown_path(named)
    return FileEntry(shown, scope, "markdown", st.st_size, st.st_mtime_ns, st.st_ino, "name-not-utf8")
