"""Which person page is "you": read it, pick another, or make one (issue 24 item 8).

The knowledge API's `self` is the one person page of a partition carrying the
alias `knowledge:self` (docs/decisions.md, "The knowledge API mapped onto the
vault"). A fresh vault has none, so every extension that speaks about `self`
fails until a person says who they are; `knowledge self` and Settings ›
Knowledge › You both come here.

Making a page "you" is one journaled, fenced request through the one publish
path: the alias is added to the chosen page and taken off every other page of
the partition that carried it, in the same plan, so an interrupted move never
leaves a partition with no self page or two (the journal finishes or rolls the
whole request back). Each page is fenced by the revision and hash read when the
request plans. Creating a page files a new person page with the alias the way
`knowledge new` does. Choosing the page that already is "you", alone, writes
nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.identifiers import SELF_ALIAS, page_type_for_kind
from knowledge_desktop.engine.api.session import DEFAULT_ENTITY_TYPES
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import entity_types
from knowledge_desktop.engine.write.context import Current, WriteContext
from knowledge_desktop.engine.write.operations.create import plan_new
from knowledge_desktop.engine.write.operations.lifecycle import revise
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected
from knowledge_desktop.engine.write.requests import make_request

SET, CREATE = "self-set", "self-create"
"""The journal's operation names of the two writes."""
DEFAULT_PARTITION = "private"


@dataclass(frozen=True, slots=True)
class PersonPage:
    """A person page as the catalog lists it."""

    id: str
    title: str
    path: str
    partition: str
    is_self: bool

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "path": self.path, "partition": self.partition}


@dataclass(frozen=True, slots=True)
class SelfChange:
    """What a `set_self` or `create_self` did: the page that is "you" now, the pages the alias
    left, and the receipt (None when nothing was written)."""

    page: PersonPage
    moved_from: tuple[str, ...]
    receipt: dict[str, Any] | None

    def as_json(self) -> dict[str, Any]:
        return {
            "self": self.page.as_json(),
            "changed": self.receipt is not None,
            "movedFrom": list(self.moved_from),
            "receipt": self.receipt,
        }


def default_partition(root: Path) -> str:
    """`private` when the vault has it (or has no partition yet), else its only partition;
    otherwise the person must say which (as `knowledge extensions install` decides)."""
    folders = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if DEFAULT_PARTITION in folders or not folders:
        return DEFAULT_PARTITION
    if len(folders) == 1:
        return folders[0]
    raise QueryError(f"choose the partition with --partition (the vault has: {', '.join(folders)})")


def person_names(vault: Vault, scope: str) -> frozenset[str]:
    """The type names a person page of `scope` may carry (the type and its ontology aliases);
    the shipped ones for a partition that has no ontology yet (a folder not made yet)."""
    types: Mapping[str, frozenset[str]] = entity_types(vault, scope)
    if scope not in vault.reconciler.ontologies():
        types = DEFAULT_ENTITY_TYPES
    page_type = page_type_for_kind("person", types)  # ApiError when the ontology has none
    return types[page_type]


def person_pages(vault: Vault, scope: str) -> list[PersonPage]:
    """The active person pages of `scope`, by title (what the window's picker lists)."""
    names = sorted(person_names(vault, scope))
    rows = vault.store.reader().execute(
        f"SELECT id, title, path, aliases FROM catalog WHERE scope=? AND kind='page'"
        f" AND status='record' AND lifecycle='active' AND id IS NOT NULL"
        f" AND type IN ({','.join('?' * len(names))}) ORDER BY title COLLATE NOCASE, id",
        (scope, *names),
    )
    return [_person(row, scope) for row in rows]


def self_pages(vault: Vault, scope: str) -> list[PersonPage]:
    """Every active person page of `scope` carrying the alias (one, when the vault is sound)."""
    return [p for p in person_pages(vault, scope) if p.is_self]


def current_self(vault: Vault, scope: str) -> PersonPage | None:
    """The page that is "you" in `scope`, None when there is none; several is an error that
    says how to keep one."""
    found = self_pages(vault, scope)
    if len(found) > 1:
        listed = ", ".join(f"{p.id} ({p.title})" for p in found)
        raise QueryError(
            f"partition {scope!r} has several pages marked as you: {listed};"
            " keep one with `knowledge self VAULT --set ID`"
        )
    return found[0] if found else None


def set_self(vault: Vault, scope: str | None, record_id: str, *, actor: str | None = None) -> SelfChange:
    """Make the person page `record_id` "you" in its partition (`scope`, when given, must be
    it). QueryError for an id the vault does not have; WriteRejected `not-a-person` for a page
    that is no active person page of the partition."""
    rows = (
        vault.store.reader()
        .execute(
            "SELECT scope, kind, type, lifecycle, title FROM catalog WHERE id=? AND status='record'",
            (record_id,),
        )
        .fetchall()
    )
    if not rows:
        raise QueryError(f"no record {record_id!r} in this vault")
    page_scope, kind, page_type, lifecycle, title = rows[0]
    if scope is not None and page_scope != scope:
        raise QueryError(f"{record_id} is in partition {page_scope!r}, not {scope!r}")
    names = person_names(vault, page_scope)
    if kind != "page" or page_type not in names:
        raise WriteRejected(
            "not-a-person",
            f"{record_id} ({title}) is a {page_type or kind} {kind}, not a person page;"
            " only a person page can be you",
            {"id": record_id, "kind": kind, "type": page_type},
        )
    if lifecycle != "active":
        raise WriteRejected("not-active", f"{record_id} is {lifecycle}; choose an active person page", {})
    others = [p.id for p in self_pages(vault, page_scope) if p.id != record_id]
    target = next(p for p in person_pages(vault, page_scope) if p.id == record_id)
    if target.is_self and not others:
        return SelfChange(target, (), None)  # already you: nothing to write

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(record_id)
        ctx.record(current.fence())
        writes = [_with_alias(ctx, current, names)] if SELF_ALIAS not in _aliases(current) else []
        writes += _taken_off(ctx, others)
        return Plan(SET, record_id, None, writes, extra={"movedFrom": others})

    request = make_request(SET, {"id": record_id, "scope": page_scope, "movedFrom": others}, actor=actor)
    receipt = vault.write(request, planner)
    page = next(p for p in person_pages(vault, page_scope) if p.id == record_id)
    return SelfChange(page, tuple(others), receipt)


def create_self(vault: Vault, scope: str, name: str, *, actor: str | None = None) -> SelfChange:
    """A new person page titled `name` in `scope`, carrying the alias, made "you" (the alias
    leaves any other page that had it, in the same request)."""
    title = name.strip()
    if not title or any(c in title for c in "\r\n"):
        raise QueryError("a name is one line of text")
    if scope != DEFAULT_PARTITION and not _is_partition(vault.root, scope):
        # a new partition is a folder the person makes, not a side effect of naming one here
        raise QueryError(f"no partition named {scope!r} in {vault.root}")
    names = person_names(vault, scope)
    page_type = "person" if "person" in names else sorted(names)[0]
    others = [p.id for p in self_pages(vault, scope)]
    text = update_frontmatter(
        "---\nkind: page\n---\n",
        {"title": title, "scope": scope, "type": page_type, "aliases": [SELF_ALIAS]},
    )

    def planner(ctx: WriteContext) -> Plan:
        plan = plan_new(ctx, text)
        plan.operation = CREATE
        plan.writes += _taken_off(ctx, others)
        plan.extra["movedFrom"] = others
        return plan

    request = make_request(CREATE, {"name": title, "scope": scope, "movedFrom": others}, actor=actor)
    receipt = vault.write(request, planner)
    record_id = str(receipt["targetId"])
    page = next(p for p in person_pages(vault, scope) if p.id == record_id)
    return SelfChange(page, tuple(others), receipt)


def _is_partition(root: Path, scope: str) -> bool:
    """Whether `scope` names an existing top-level, non-hidden folder of the vault."""
    if not scope or scope.startswith(".") or "/" in scope or "\\" in scope or "\0" in scope:
        return False
    try:
        return (root / scope).is_dir()
    except (OSError, ValueError):  # a name the file system cannot hold
        return False


# -- the plans' pieces -----------------------------------------------------------------
def _person(row: tuple[Any, ...], scope: str) -> PersonPage:
    aliases = json.loads(row[3] or "[]")
    is_self = isinstance(aliases, list) and SELF_ALIAS in aliases
    return PersonPage(str(row[0]), str(row[1] or ""), str(row[2]), scope, is_self)


def _aliases(current: Current) -> list[str]:
    raw = current.frontmatter.get("aliases")
    return [a for a in raw if isinstance(a, str)] if isinstance(raw, list) else []


def _with_alias(ctx: WriteContext, current: Current, names: frozenset[str]) -> FileWrite:
    if current.frontmatter.get("type") not in names or current.lifecycle != "active":
        raise WriteRejected(
            "not-a-person", f"{current.record_id} is no longer an active person page; read it again", {}
        )
    write = revise(ctx, current, {"aliases": [*_aliases(current), SELF_ALIAS]})
    ctx.validate(write.path, current.scope, write.content, old=current.frontmatter)
    return write


def _taken_off(ctx: WriteContext, record_ids: list[str]) -> list[FileWrite]:
    """The writes that take the alias off these pages, each fenced as read now."""
    writes = []
    for record_id in record_ids:
        current = ctx.lookup(record_id)
        ctx.record(current.fence())
        kept = [a for a in _aliases(current) if a != SELF_ALIAS]
        write = revise(ctx, current, {"aliases": kept or DELETE})
        ctx.validate(write.path, current.scope, write.content, old=current.frontmatter)
        writes.append(write)
    return writes
