"""Eligibility: a record is shown by default only when everything it depends on is too.

A record's own verdict (valid, unique, active) comes from its derivation.
Whether its dependencies are available, and the window in which it counts
as current, depend on other records' verdicts, so they are settled over the
whole region a change reaches, after the records in it were derived.
"""

from __future__ import annotations

from collections.abc import Mapping

from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.indexes import Index
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.windows import Window, intersect

Eligibility = tuple[bool, bool, Window]
"""(own verdict, dependencies available, window): what a dependent's rows show."""


def propagate(
    seeds: set[str],
    nodes: Mapping[str, RecordNode],
    derived: Mapping[str, Derived],
    ids: Index[str],
    dependents: Index[str],
) -> set[str]:
    """Recompute deps_ok and the window for seeds and their transitive dependents.

    Greatest fixpoint: assume every record in the region is ok, then knock
    out records with an unavailable dependency until nothing changes (so
    a dependency cycle among available records stays available).
    Returns the dependents outside `seeds` whose eligibility flipped.
    """
    region: set[str] = set()
    frontier = [p for p in seeds if p in derived]
    while frontier:
        path = frontier.pop()
        if path in region:
            continue
        region.add(path)
        node = nodes[path]
        if node.id:
            frontier.extend(dependents.get(node.scope or "", node.id))
    before = {p: _eligibility(p, nodes, derived) for p in region if p not in seeds}
    for path in region:
        derived[path].deps_ok = True
        derived[path].window = derived[path].own_window
    changed_any = True
    while changed_any:
        changed_any = False
        for path in region:
            state = derived[path]
            scope = nodes[path].scope or ""
            if state.deps_ok and not _deps_available(scope, state, nodes, derived, ids):
                state.deps_ok = False
                changed_any = True
            window = _dependency_window(scope, state, derived, ids)
            if window != state.window:
                state.window = window
                changed_any = True
    return {p for p, was in before.items() if was != _eligibility(p, nodes, derived)}


def _eligibility(path: str, nodes: Mapping[str, RecordNode], derived: Mapping[str, Derived]) -> Eligibility:
    state = derived[path]
    return (state.base_ok(nodes[path].lifecycle), state.deps_ok, state.window)


def _dependency_window(scope: str, state: Derived, derived: Mapping[str, Derived], ids: Index[str]) -> Window:
    start, end = state.own_window
    for target in state.depends_on:
        paths = ids.get(scope, target)
        if len(paths) == 1:
            other = derived.get(next(iter(paths)))
            if other is not None:
                start, end = intersect((start, end), other.window)
    return start, end


def _deps_available(
    scope: str,
    state: Derived,
    nodes: Mapping[str, RecordNode],
    derived: Mapping[str, Derived],
    ids: Index[str],
) -> bool:
    for target in state.depends_on:
        paths = ids.get(scope, target)
        if len(paths) != 1:
            return False
        target_path = next(iter(paths))
        target_derived = derived.get(target_path)
        if target_derived is None:
            return False
        if not (target_derived.base_ok(nodes[target_path].lifecycle) and target_derived.deps_ok):
            return False
    return True
