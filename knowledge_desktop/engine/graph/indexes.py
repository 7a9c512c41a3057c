"""The graph's lookups by id, name, path and watched key, sized for 100,000 files.

Each index files vault paths under a group (a scope, or a key kind and a
scope) and a value. They are nested rather than keyed by tuples, and an
entry with one member is just that path: most ids, names and watched keys
have exactly one file behind them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Generic, TypeVar

from knowledge_desktop.engine.graph.node import RecordNode

Members = str | tuple[str, ...] | set[str]
"""An index entry: the one path (the common case), a tuple of a few, or a set of many.

Most ids, names and watched keys have exactly one file behind them, and most
of the rest a few dozen at most; a set costs over 200 bytes even for one
member, and over 700 from five, where a tuple of five costs 80.
"""

SMALL = 64
"""Up to this many members an entry is a tuple: 8 bytes a member where a set
takes 30-50, for a copy of at most 64 pointers when a member comes or goes."""


Group = TypeVar("Group", str, tuple[str, str])


class Index(Generic[Group]):
    """Paths filed under (group, value): group a scope or (key kind, scope).

    Nested by group rather than keyed by tuples: at 100,000 records the
    tuple keys alone would take tens of megabytes.
    """

    __slots__ = ("_groups",)

    def __init__(self) -> None:
        self._groups: dict[Group, dict[str, Members]] = {}

    def get(self, group: Group, value: str) -> Collection[str]:
        """The paths filed under (group, value), empty when none."""
        found = self._groups.get(group, _NO_MEMBERS).get(value)
        if found is None:
            return ()
        return (found,) if isinstance(found, str) else found

    def toggle(self, group: Group, value: str, path: str, add: bool) -> None:
        """File path under (group, value), or take it out."""
        entries = self._groups.get(group)
        if entries is None:
            if not add:
                return
            entries = self._groups[group] = {}
        stored = entries.get(value)
        if stored is None:
            if add:
                entries[value] = path
            return
        found: tuple[str, ...] | set[str] = (stored,) if isinstance(stored, str) else stored
        if add:
            if isinstance(found, set):
                found.add(path)
            elif path not in found:
                entries[value] = (*found, path) if len(found) < SMALL else {*found, path}
        elif isinstance(found, set):
            found.discard(path)
            if len(found) <= SMALL // 2:
                entries[value] = tuple(found)
        elif path in found:
            rest = tuple(p for p in found if p != path)
            if not rest:
                del entries[value]
            else:
                entries[value] = rest[0] if len(rest) == 1 else rest

    def fill(self, staged: Staged[Group]) -> None:
        """File what `stage` gathered, as `toggle` adding each would, in one pass.

        `staged` is emptied as it goes: freeing a million staged lists at once
        when the caller dropped it held the interpreter lock for 200 ms (the
        window's thread stalled); popped one by one, they go between bytecodes.
        """
        while staged:
            group, entries = staged.popitem()
            into = self._groups.setdefault(group, {})
            while entries:
                value, paths = entries.popitem()
                if value in into:
                    for path in paths:
                        self.toggle(group, value, path, True)
                    continue
                unique = tuple(dict.fromkeys(paths)) if len(paths) > 1 else paths
                into[value] = (
                    unique[0] if len(unique) == 1 else tuple(unique) if len(unique) <= SMALL else set(unique)
                )

    def groups(self) -> list[Group]:
        """The groups that have entries (the scopes, for a scope-grouped index)."""
        return [group for group, entries in self._groups.items() if entries]

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._groups.values())


_NO_MEMBERS: dict[str, Members] = {}

Staged = dict[Group, dict[str, list[str]]]
"""Paths gathered per (group, value) before an `Index.fill`."""


def stage(staged: Staged[Group], group: Group, values: Iterable[str], path: str) -> None:
    """Note `path` under (group, value) for each value, for a later `Index.fill`."""
    entries = staged.get(group)
    if entries is None:
        entries = staged[group] = {}
    for value in values:
        members = entries.get(value)
        if members is None:
            entries[value] = [path]
        else:
            members.append(path)


class PathIndex:
    """(scope, partition-relative path) -> vault path, answered from the nodes.

    A file's vault path is its scope and its partition path joined, so no
    second map (and no second copy of every path) is needed.
    """

    __slots__ = ("_nodes",)

    def __init__(self, nodes: dict[str, RecordNode]) -> None:
        self._nodes = nodes

    def get(self, key: tuple[str, str]) -> str | None:
        scope, rel = key
        path = f"{scope}/{rel}" if scope else rel
        node = self._nodes.get(path)
        if node is None or (node.scope or "") != scope or (not scope and "/" in rel):
            return None  # (the last: a file outside partitions has its whole path as rel)
        return node.path
