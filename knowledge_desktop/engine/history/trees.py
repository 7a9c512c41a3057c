"""Trees changed path by path (issue 15, §1: each checkpoint's tree is the previous one
with the written paths set).

Only the trees along a changed path are rebuilt, with a `TreeBuilder` seeded from the
old tree; the rest of the vault's trees are shared by id. Reading the whole vault into
an index instead would cost a pass over every file (100k entries) per checkpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pygit2.enums import FileMode

Change = bytes | Any | None
"""New bytes, an existing blob's id (a `pygit2.Oid`), or None to delete the path."""


def apply(repo: Any, base: Any, changes: Mapping[str, Change]) -> Any:
    """The id of `base` (a tree, or None for the empty tree) with `changes` applied."""
    oid = _apply(repo, base, changes)
    return oid if oid is not None else repo.TreeBuilder().write()


def _apply(repo: Any, tree: Any, changes: Mapping[str, Change]) -> Any:
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    below: dict[str, dict[str, Change]] = {}
    for path, value in changes.items():
        name, sep, rest = path.partition("/")
        if sep:
            below.setdefault(name, {})[rest] = value
        elif value is None:
            if builder.get(name) is not None:
                builder.remove(name)
        else:
            blob = repo.create_blob(value) if isinstance(value, bytes) else value
            builder.insert(name, blob, FileMode.BLOB)
    for name, sub in below.items():
        entry = builder.get(name)
        subtree = entry if entry is not None and entry.type_str == "tree" else None
        oid = _apply(repo, subtree, sub)
        if oid is None:
            if entry is not None:
                builder.remove(name)
        else:
            builder.insert(name, oid, FileMode.TREE)
    if len(builder) == 0:
        return None
    return builder.write()


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
    oid = blob_id(tree, path)
    return None if oid is None else bytes(repo[oid].data)
