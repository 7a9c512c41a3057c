"""Lifecycle guards as the graph applies them: a guarded record's file cannot revive it.

The durable rows live in `state.sqlite` (`store/guards.py`); the reconciler
hands the graph their current map (`VaultGraph.guards`). A node entering
the graph whose file says less than its guard (a restored or stale copy
saying `active`) takes the guard's lifecycle, and derivation reports the file
(`lifecycle-guarded`). The file's own lifecycle is kept in
`Resolver.guarded`, so a lifted guard (a published supersede undo) can
restore it. Spec: corrections-and-merges, Recovery and safeguards.
"""

from __future__ import annotations

from typing import NamedTuple

RANK = {"active": 0, "merged": 1, "superseded": 1, "withdrawn": 2}


class Guard(NamedTuple):
    """The strongest guard on one record."""

    guard: str
    """withdrawn | superseded"""
    by_id: str | None
    """The replacing record of a supersession."""


GuardMap = dict[tuple[str, str], Guard]
"""(scope, record id) -> its guard."""


def outranks(guard: str, lifecycle: str) -> bool:
    """Whether a guard overrides what a file says: a withdrawal anything but a
    withdrawal (it outranks supersession), a supersession only `active`."""
    if guard == "withdrawn":
        return lifecycle != "withdrawn"
    return guard == "superseded" and lifecycle == "active"


def stronger(a: Guard | None, b: Guard) -> Guard:
    """The guard that wins when a record holds both."""
    if a is None or RANK.get(b.guard, 0) > RANK.get(a.guard, 0):
        return b
    return a
