"""Where a call's permission is decided, in the order the spec fixes
(spec: facts-entities-collections-api, Writing facts: "The predicate is resolved
first, then the permission is checked").

Every write of a fact goes through `authorize_fact_write`: the hint becomes a
predicate of the partition's vocabulary (`predicates.resolve_hint`), and only
then is `facts.write:<subject>:<predicate>` checked — so `"City of residence"`
is refused to an extension granted only `pref.food.*`, exactly as
`location.home.city` would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from knowledge_desktop.engine.api.permissions import Permission, kind_problem, needed_for_fact
from knowledge_desktop.engine.api.predicates import PredicateDef, resolve_hint
from knowledge_desktop.engine.errors import ApiError


class Checker(Protocol):
    """What `grants.Extensions` offers the access rules (a fake in tests)."""

    def check(self, name: str, needed: str | Permission) -> None: ...

    def allowed(self, name: str, needed: str | Permission) -> bool: ...


def subject_scope(subject_kind: str) -> str:
    """The permission subject of a fact about `self` or about an entity of kind `subject_kind`
    (`person`, `org`, …). `self` is its own subject: `facts.read:person:…` does not reach the
    user's own facts."""
    if subject_kind == "self":
        return "self"
    problem = kind_problem(subject_kind)
    if problem:
        raise ApiError(f"{subject_kind!r}: {problem}")
    return subject_kind


def authorize_fact_write(
    checker: Checker,
    extension: str,
    subject_kind: str,
    hint: str,
    vocabulary: Mapping[str, PredicateDef],
) -> str:
    """The predicate `hint` resolves to, once `facts.write` on it is granted to `extension`;
    `PermissionRefused` (naming the resolved predicate) otherwise."""
    predicate = resolve_hint(hint, vocabulary)
    checker.check(extension, needed_for_fact("write", subject_scope(subject_kind), predicate))
    return predicate


def readable_predicates(
    checker: Checker, extension: str, subject_kind: str, predicates: list[str]
) -> list[str]:
    """The predicates among `predicates` the extension may read about a subject of this kind:
    query methods leave the others out without a word."""
    scope = subject_scope(subject_kind)
    return [p for p in predicates if checker.allowed(extension, needed_for_fact("read", scope, p))]
