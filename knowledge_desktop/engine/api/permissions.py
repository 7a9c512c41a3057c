"""Permission strings: `data type.action:scope` (spec: facts-entities-collections-api,
"Permission strings").

Parsing is strict and total: a string is either a `Permission` in its one
canonical spelling or a `PermissionSyntaxError` that says which rule it broke,
because a manifest lists every mistake at install and a person's switch must
mean exactly one thing. The forms, as docs/decisions.md ("The knowledge API
mapped onto the vault") fixes them:

- `facts.read|write:<subject>:<prefix>`: the subject is `self` or an entity
  kind; the prefix is a full predicate (`a.b` or deeper) or `a.b.*` — at
  least two levels before the star, whose first level is one of the spec's
  fixed ten.
- `entities.resolve|read|write:<kind>`: an entity kind (never `self`).
- `collections.read|write:<target>`: `diary`, `keep` or `user-selected`.
- `collections.create`, `collections.bulk`, `changes.manage`,
  `origin.override`: no scope.

`covers(granted, needed)` is the one matching rule every check uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_desktop.engine.errors import ApiError

FIRST_LEVELS = (
    "identity",
    "contact",
    "location",
    "relation",
    "pref",
    "schedule",
    "work",
    "health",
    "finance",
    "x",
)
"""A predicate's first level is fixed to these (spec: Concepts, Predicate)."""

COLLECTION_TARGETS = ("diary", "keep", "user-selected")
"""What `collections.read|write` may name (spec: Permission strings)."""

ACTIONS: dict[str, tuple[str, ...]] = {
    "facts": ("read", "write"),
    "entities": ("resolve", "read", "write"),
    "collections": ("read", "write", "create", "bulk"),
    "changes": ("manage",),
    "origin": ("override",),
}
"""Every data type and its actions. `collections.bulk` comes from the spec's Write rules
(the larger daily character quota), the others from its permission table."""

UNSCOPED = frozenset({"collections.create", "collections.bulk", "changes.manage", "origin.override"})
"""Permissions that take no `:scope`."""

MAX_PERMISSION_LENGTH = 300
MAX_PREDICATE_LENGTH = 200

_SEGMENT = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


class PermissionSyntaxError(ApiError, ValueError):
    """A permission string that is not one of the forms the spec allows."""


@dataclass(frozen=True, slots=True, order=True)
class Permission:
    """One parsed permission. `scope` is the subject / kind / target (None when unscoped);
    `prefix` is the facts predicate scope (`a.b.*` or `a.b.c`), None for other data types."""

    data: str
    action: str
    scope: str | None = None
    prefix: str | None = None

    @property
    def name(self) -> str:
        """`data.action`, without the scope."""
        return f"{self.data}.{self.action}"

    def __str__(self) -> str:
        parts = [self.name]
        if self.scope is not None:
            parts.append(self.scope)
        if self.prefix is not None:
            parts.append(self.prefix)
        return ":".join(parts)


def predicate_problem(name: str) -> str | None:
    """Why `name` is not a full predicate (dot-separated, two levels or more, a fixed first
    level, segments of lowercase letters, digits and `_`), or None when it is one."""
    if not isinstance(name, str) or not name:
        return "a predicate is a non-empty string"
    if len(name) > MAX_PREDICATE_LENGTH:
        return f"a predicate is at most {MAX_PREDICATE_LENGTH} characters"
    parts = name.split(".")
    if len(parts) < 2:
        return "a predicate has at least two levels, such as location.home"
    if parts[0] not in FIRST_LEVELS:
        return f"a predicate's first level is one of {', '.join(FIRST_LEVELS)}"
    for part in parts:
        if not _SEGMENT.match(part):
            return (
                f"predicate level {part!r} must be lowercase letters, digits and '_'"
                if part
                else "a predicate has no empty level"
            )
    return None


def kind_problem(kind: str) -> str | None:
    """Why `kind` is not an entity kind name, or None."""
    if kind == "self":
        return "'self' is a subject of facts, not an entity kind"
    if not _KIND.match(kind):
        return "an entity kind is lowercase letters, digits, '-' and '_', starting with a letter"
    return None


def _prefix_problem(prefix: str) -> str | None:
    if prefix == "*":
        return "the predicate prefix must have at least two levels ('*' alone is refused)"
    if prefix.endswith(".*"):
        stem = prefix[:-2]
        if "." not in stem:
            return f"the predicate prefix must have at least two levels ({prefix!r} has one)"
        return predicate_problem(stem)
    if "*" in prefix:
        return "'*' may only end a predicate prefix, as in a.b.*"
    return predicate_problem(prefix)


def parse_permission(text: str) -> Permission:
    """The permission `text` spells, or `PermissionSyntaxError` naming the broken rule."""
    if not isinstance(text, str):
        raise PermissionSyntaxError(f"a permission is a string, not {type(text).__name__}")
    shown = text if len(text) <= 80 else text[:77] + "..."
    if (
        not text
        or len(text) > MAX_PERMISSION_LENGTH
        or text != text.strip()
        or any(c.isspace() for c in text)
    ):
        raise PermissionSyntaxError(
            f"{shown!r}: a permission is 1-{MAX_PERMISSION_LENGTH} characters without spaces"
        )
    head, _, rest = text.partition(":")
    data, dot, action = head.partition(".")
    if not dot or data not in ACTIONS:
        raise PermissionSyntaxError(
            f"{shown!r}: unknown data type {data!r} (one of {', '.join(ACTIONS)}, written data.action:scope)"
        )
    if action not in ACTIONS[data]:
        raise PermissionSyntaxError(
            f"{shown!r}: unknown action {action!r} for {data} (one of {', '.join(ACTIONS[data])})"
        )
    name = f"{data}.{action}"
    if name in UNSCOPED:
        if ":" in text:
            raise PermissionSyntaxError(f"{shown!r}: {name} takes no scope")
        return Permission(data, action)
    if not rest:
        raise PermissionSyntaxError(f"{shown!r}: {name} needs a scope ({_scope_hint(data)})")
    if data == "facts":
        subject, colon, prefix = rest.partition(":")
        if not colon or not prefix:
            raise PermissionSyntaxError(f"{shown!r}: {name} is written {name}:<subject>:<prefix>")
        if subject != "self":
            problem = kind_problem(subject)
            if problem:
                raise PermissionSyntaxError(f"{shown!r}: the subject is 'self' or an entity kind ({problem})")
        problem = _prefix_problem(prefix)
        if problem:
            raise PermissionSyntaxError(f"{shown!r}: {problem}")
        return Permission(data, action, subject, prefix)
    if ":" in rest:
        raise PermissionSyntaxError(f"{shown!r}: {name} takes one scope ({_scope_hint(data)})")
    if data == "entities":
        problem = kind_problem(rest)
        if problem:
            raise PermissionSyntaxError(f"{shown!r}: {problem}")
        return Permission(data, action, rest)
    if rest not in COLLECTION_TARGETS:
        raise PermissionSyntaxError(
            f"{shown!r}: a collection target is one of {', '.join(COLLECTION_TARGETS)}"
        )
    return Permission(data, action, rest)


def _scope_hint(data: str) -> str:
    return {
        "facts": "self or an entity kind, then a predicate prefix such as location.home.*",
        "entities": "an entity kind such as person",
        "collections": "diary, keep or user-selected",
    }.get(data, "none")


def as_permission(value: str | Permission) -> Permission:
    """A `Permission` from either spelling."""
    return value if isinstance(value, Permission) else parse_permission(value)


def prefix_covers(granted: str, needed: str) -> bool:
    """Whether the facts scope `granted` includes `needed`. `a.b.*` holds `a.b` itself and every
    predicate and prefix below it; a full predicate holds only itself."""
    if granted.endswith(".*"):
        stem = granted[:-2]
        target = needed[:-2] if needed.endswith(".*") else needed
        return target == stem or target.startswith(stem + ".")
    return granted == needed


def covers(granted: str | Permission, needed: str | Permission) -> bool:
    """Whether holding `granted` allows what `needed` names: same data type and action (except
    that `entities.write:<kind>` includes `entities.resolve:<kind>`), the same subject, kind or
    target, and for facts a predicate scope inside the granted one."""
    g, n = as_permission(granted), as_permission(needed)
    if g.data != n.data:
        return False
    if g.action != n.action and not (g.data == "entities" and g.action == "write" and n.action == "resolve"):
        return False
    if g.scope != n.scope:
        return False
    if g.prefix is None or n.prefix is None:
        return g.prefix == n.prefix
    return prefix_covers(g.prefix, n.prefix)


def needed_for_fact(action: str, subject: str, predicate: str) -> Permission:
    """The permission a read or write of one fact needs: its subject (`self` or the subject's
    entity kind) and its resolved predicate."""
    return Permission("facts", action, subject, predicate)
