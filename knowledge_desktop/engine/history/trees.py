"""Trees changed path by path (issue 15, §1: each checkpoint's tree is the previous one
with the written paths set).

Only the trees along a changed path are rebuilt, each from the old tree's raw entries
(`history/splice.py`); the rest of the vault's trees are shared by id. Reading the
whole vault into an index instead would cost a pass over every file (100k entries) per
checkpoint.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from knowledge_desktop.engine.history import splice
from knowledge_desktop.engine.history.repo import ensure_sound

Change = bytes | Any | None
"""New bytes, an existing blob's id (a `pygit2.Oid`), or None to delete the path."""

BIG_FOLDER = 2000
"""Entries from which a folder's tree is written uncompressed by `splice` and its
entries kept for the next checkpoint in this process."""
KEPT_TREES = 8
_kept: OrderedDict[tuple[str, str], splice.Entries | bytes] = OrderedDict()
"""A big folder's entries by (repository, tree id): parsed, as a write left them, or the
tree's content as `warm` read it, parsed when first taken. Parsed, the 94,000 entries of
a 100k vault's two big folders held 20 MiB of small bytes objects for the life of the
window, which may never write; as content, 5 MB, and the first checkpoint in the folder
parses it (about 25 ms at 45,000 entries, half of reading it afresh)."""
_kept_lock = threading.Lock()


def _entries(repo: Any, tree_id: Any) -> splice.Entries:
    """The entries of tree `tree_id` (None: an empty folder). A big folder's (a 45k-file
    folder is a 2.5 MB tree, ~30 ms to read and parse) are taken from the ones kept
    after earlier writes: a tree's id names its content, so entries kept under that id
    are exactly that tree's. They are taken out while used, so two commits never share
    them."""
    if tree_id is None:
        return splice.Entries()
    with _kept_lock:
        kept = _kept.pop((repo.path, str(tree_id)), None)
    if kept is not None:
        return kept if isinstance(kept, splice.Entries) else splice.Entries.parse(kept)
    return splice.Entries.parse(_content(repo, tree_id))


def _content(repo: Any, tree_id: Any) -> bytes:
    ensure_sound(repo, tree_id)
    _kind, data = repo.odb.read(tree_id)
    return bytes(data)


def _write(repo: Any, entries: splice.Entries) -> Any:
    big = len(entries) >= BIG_FOLDER
    oid = splice.write(repo, entries, stored=big)
    if big:
        with _kept_lock:
            _kept[(repo.path, str(oid))] = entries
            while len(_kept) > KEPT_TREES:
                _kept.popitem(last=False)
    return oid


WARM_FOLDERS = 500
"""At most this many folders are read by `warm`."""


def warm(repo: Any, tree: Any) -> int:
    """Hold the content of `tree`'s big folders (the newest checkpoint's) so that the
    first checkpoint of this process in one of them splices instead of reading its tree
    (~50 ms for a 45,000-file folder): a host calls it on a worker after opening. Reads
    each folder's tree once, breadth first, up to `WARM_FOLDERS`; how many were kept."""
    queue = [tree.id]
    kept = read = 0
    while queue and read < WARM_FOLDERS and kept < KEPT_TREES:
        tree_id = queue.pop(0)
        key = (repo.path, str(tree_id))
        with _kept_lock:
            held = _kept.pop(key, None)
        keep: splice.Entries | bytes
        if isinstance(held, splice.Entries):  # parsed by a write of this process: kept so
            entries = keep = held
        else:  # kept as content (see `_kept`)
            keep = held if held is not None else _content(repo, tree_id)
            entries = splice.Entries.parse(keep)
        read += 1
        queue.extend(entries.folders())
        if len(entries) >= BIG_FOLDER:
            with _kept_lock:
                _kept[key] = keep
                kept += 1
                while len(_kept) > KEPT_TREES:
                    _kept.popitem(last=False)
    return kept


def apply(repo: Any, base: Any, changes: Mapping[str, Change]) -> tuple[Any, dict[str, tuple[Any, Any]]]:
    """The id of `base` (a tree, or None for the empty tree) with `changes` applied, and
    for each changed path its blob ids before and after (None: no file). Each folder's
    tree is read once: Git's object cache keeps no tree over 4 KiB, and a folder of 45k
    files is a 2.5 MB tree, so looking paths up one by one would read it again each time."""
    moved: dict[str, tuple[Any, Any]] = {}
    oid = _apply(repo, None if base is None else base.id, changes, "", moved)
    return (oid if oid is not None else splice.write(repo, splice.Entries(), stored=False)), moved


def _apply(
    repo: Any, tree_id: Any, changes: Mapping[str, Change], prefix: str, moved: dict[str, tuple[Any, Any]]
) -> Any:
    entries = _entries(repo, tree_id)
    below: dict[str, dict[str, Change]] = {}
    for path, value in changes.items():
        name, sep, rest = path.partition("/")
        if sep:
            below.setdefault(name, {})[rest] = value
            continue
        old = entries.get(name)
        before = old[0] if old is not None and not old[1] else None
        if value is None:
            if old is not None:
                entries.remove(name)
            after = None
        else:
            after = repo.create_blob(value) if isinstance(value, bytes) else value
            entries.set(name, after, folder=False)
        if before != after:
            moved[prefix + name] = (before, after)
    for name, sub in below.items():
        entry = entries.get(name)
        subtree = entry[0] if entry is not None and entry[1] else None
        oid = _apply(repo, subtree, sub, f"{prefix}{name}/", moved)
        if oid is None:
            if entry is not None:
                entries.remove(name)
        else:
            entries.set(name, oid, folder=True)
    if len(entries) == 0:
        return None
    return _write(repo, entries)


def blob_ids(repo: Any, tree: Any, paths: list[str]) -> dict[str, Any]:
    """The blob id at each path in `tree` (None: no file there), reading each folder's
    tree once (each checked sound before it is read)."""
    folders: dict[str, list[str]] = {}
    for path in paths:
        folder, _, _name = path.rpartition("/")
        folders.setdefault(folder, []).append(path)
    out: dict[str, Any] = {}
    for folder, members in folders.items():
        sub = _folder(repo, tree, folder)
        for path in members:
            out[path] = blob_id(sub, path.rpartition("/")[2])
    return out


def _folder(repo: Any, tree: Any, folder: str) -> Any:
    """The subtree at `folder` (None: absent or not a folder), walked a name at a time so
    that each tree is checked sound before libgit2 reads it."""
    sub = tree
    for name in folder.split("/") if folder else []:
        if sub is None:
            return None
        try:
            entry = sub[name]  # the entry only: its object is read when used
        except (KeyError, ValueError):
            return None
        if entry.type_str != "tree":
            return None
        ensure_sound(repo, entry.id)
        sub = entry
    return sub


def blob_id(tree: Any, path: str) -> Any:
    """The id of the blob at `path` in `tree`, or None."""
    if tree is None:
        return None
    try:
        entry = tree[path]
    except (KeyError, ValueError):
        return None
    return entry.id if entry.type_str == "blob" else None


def read(repo: Any, tree: Any, path: str) -> bytes | None:
    """The bytes at `path` in `tree`, or None when there is no file there."""
    folder, _, name = path.rpartition("/")
    oid = blob_id(_folder(repo, tree, folder), name)
    if oid is None:
        return None
    ensure_sound(repo, oid)
    return bytes(repo[oid].data)
