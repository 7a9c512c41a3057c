"""Which records answer to a name first (docs/decisions.md, "Names in collections rank last";
issue 32 §3).

The knowledge API files the documents an extension writes in the partition's collection
folders — `diary/`, `keep/` and `collections/` (`engine/api/collections.py`). A document there
may carry any title, so, were titles equal, an extension could make the person's own
`[[Ruth Abernathy]]` ambiguous, or take a lookup that found the person before. Hence: when a
name (a title or alias) is matched, records in a collection folder count only if no record
outside one matches it. A path, and an id, still reach them directly.
"""

from __future__ import annotations

from collections.abc import Iterable

COLLECTION_ROOTS = ("diary", "keep", "collections")
"""The top folders of a partition that hold collections (`api/collections`: DIARY, KEEP and
CREATED_ROOT)."""


def in_collection_folder(path: str) -> bool:
    """Whether the vault-relative `path` (`<partition>/…`) lies in a collection folder."""
    parts = path.split("/", 2)
    return len(parts) == 3 and parts[1] in COLLECTION_ROOTS


def name_matches(paths: Iterable[str]) -> set[str]:
    """The paths a name match keeps: those outside collection folders when there are any,
    else every one."""
    every = set(paths)
    outside = {p for p in every if not in_collection_folder(p)}
    return outside or every
