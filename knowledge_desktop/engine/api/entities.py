"""Entities for extensions: resolve, get, list, add an identifier (spec:
facts-entities-collections-api, Entities; docs/decisions.md, "The knowledge API mapped onto
the vault").

An entity is a page of an entity type in the session's partition; what the
extension sees is its ref, kind, display name (the title) and identifiers
(the namespaced aliases). Lookups read the catalog (`catalog_names` holds
every title and alias normalised), so resolving an email is one index probe.
Refs go through the session's `RefBook`; an absorbed page's ref lands on the
page that was kept, and a page that is gone (deleted, withdrawn) is `no entity`.
Creating a page and adding an identifier are writes through the one publish
path, journaled as `entity-create` and `entity-add-identifier` so that
`changes.revert` can undo them.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.identifiers import (
    SELF_ALIAS,
    kind_for_page_type,
    normalise_identifier,
    page_type_for_kind,
)
from knowledge_desktop.engine.api.quotas import check_single_write
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.errors import ApiError, NoEntity
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.operations.create import plan_new
from knowledge_desktop.engine.write.operations.lifecycle import revise
from knowledge_desktop.engine.write.plan import Plan

CREATE = "entity-create"
ADD_IDENTIFIER = "entity-add-identifier"
LIST_LIMIT = 500


@dataclass(frozen=True, slots=True)
class Page:
    """An entity page as the catalog lists it."""

    record_id: str
    path: str
    type: str
    title: str
    aliases: tuple[str, ...]
    lifecycle: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """What `resolve` answers: the entity found (or made) for the identifiers given."""

    ref: str
    kind: str
    display_name: str
    created: bool

    def as_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "kind": self.kind, "displayName": self.display_name, "created": self.created}


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity with its identifiers (`email:…`, `phone:…`, `github:…`)."""

    ref: str
    kind: str
    display_name: str
    identifiers: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "kind": self.kind,
            "displayName": self.display_name,
            "identifiers": list(self.identifiers),
        }


@dataclass(frozen=True, slots=True)
class IdentifierAdded:
    status: str
    """`added`, or `exists` when the entity already had it (nothing written)."""

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status}


# -- reading the catalog -------------------------------------------------------------
_PAGE = "SELECT id, path, type, title, aliases, lifecycle FROM catalog"


def _page(row: tuple[Any, ...]) -> Page:
    aliases = tuple(a for a in json.loads(row[4] or "[]") if isinstance(a, str))
    return Page(str(row[0]), str(row[1]), str(row[2] or ""), str(row[3] or ""), aliases, str(row[5] or ""))


def page_of(session: Session, record_id: str) -> Page | None:
    """The page with this id in the session's partition, whatever its lifecycle."""
    row = (
        session.store.reader()
        .execute(
            f"{_PAGE} WHERE scope=? AND id=? AND +kind='page' AND status='record' ORDER BY path LIMIT 1",
            (session.scope, record_id),
        )
        .fetchone()
    )
    return _page(row) if row is not None else None


def _all_type_names(session: Session) -> set[str]:
    return {n for names in session.entity_types.values() for n in names}


def pages_named(session: Session, names: list[str], type_names: frozenset[str] | set[str]) -> list[Page]:
    """Active pages of `type_names` with a title or alias equal to one of `names` (compared
    normalised), in the order of `names`, then by id."""
    if not names or not type_names:
        return []
    conn = session.store.reader()
    found: list[Page] = []
    seen: set[str] = set()
    types = sorted(type_names)
    for name in names:
        rows = conn.execute(
            f"SELECT c.id, c.path, c.type, c.title, c.aliases, c.lifecycle FROM catalog_names n"
            f" JOIN catalog c ON c.path=n.path WHERE n.name=? AND c.scope=? AND c.kind='page'"
            f" AND c.status='record' AND c.lifecycle='active'"
            f" AND c.type IN ({','.join('?' * len(types))}) ORDER BY c.id",
            (normalise_name(name), session.scope, *types),
        )
        for row in rows:
            page = _page(row)
            if page.record_id not in seen:
                seen.add(page.record_id)
                found.append(page)
    return found


def kind_of(session: Session, page: Page) -> str:
    """The spec's kind of an entity page; `NoEntity` when its type is no entity type now."""
    for type_name, names in session.entity_types.items():
        if page.type in names:
            return kind_for_page_type(type_name)
    raise NoEntity(f"no entity: {page.record_id} is a {page.type or 'untyped'} page, not an entity")


def types_of_kind(session: Session, kind: str) -> tuple[str, frozenset[str]]:
    """The page type a kind names in the partition, and the names a page may give it."""
    types = session.entity_types
    page_type = page_type_for_kind(kind, types)
    return page_type, types[page_type]


def self_page(session: Session) -> Page:
    """The partition's one person page carrying the alias `knowledge:self`."""
    _, names = types_of_kind(session, "person")
    found = pages_named(session, [SELF_ALIAS], names)
    if len(found) != 1:
        raise ApiError(no_self_message(session.root, session.scope, [p.record_id for p in found]))
    return found[0]


def no_self_message(root: Path, scope: str, found: list[str]) -> str:
    """Why a partition has no `self` and the command that gives it one (issue 24 item 8): the
    person reading an extension's error can act on it without knowing the alias."""
    vault = shlex.quote(str(root))
    where = "" if scope == "private" else f" --partition {shlex.quote(scope)}"
    if not found:
        return (
            f"partition {scope!r} has no page marked as you (a person page carrying the alias"
            f" {SELF_ALIAS}); run `knowledge self {vault} --create NAME{where}` or pick one in"
            " Settings › Knowledge › You"
        )
    return (
        f"partition {scope!r} has several pages marked as you ({', '.join(found)}); keep one with"
        f" `knowledge self {vault} --set ID` or in Settings › Knowledge › You"
    )


def survivor(session: Session, record_id: str) -> str | None:
    """The current page standing for `record_id`: itself when active, the page it was merged
    into (followed through merges) when merged, None when it is gone or withdrawn."""
    conn = session.store.reader()
    current = record_id
    for _ in range(20):
        page = page_of(session, current)
        if page is None or page.lifecycle == "withdrawn":
            return None
        if page.lifecycle != "merged":
            return current
        row = conn.execute(
            "SELECT resolved_id, target_id FROM refs WHERE src_path=? AND field='merged_into'", (page.path,)
        ).fetchone()
        if row is None:
            return None
        current = str(row[0] or row[1])
    return None


def entity_id(session: Session, ref: str) -> str:
    """The id of the page an entity ref stands for now (`NoEntity` otherwise)."""

    def candidates() -> list[str]:
        rows = session.store.reader().execute(
            "SELECT DISTINCT id FROM catalog WHERE scope=? AND kind='page' AND id IS NOT NULL",
            (session.scope,),
        )
        return [str(r[0]) for r in rows]

    return session.refs.entity(ref, candidates, lambda i: survivor(session, i))


def entity_page(session: Session, ref: str) -> tuple[Page, str]:
    """The current page of an entity ref and its kind."""
    page = page_of(session, entity_id(session, ref))
    if page is None:
        raise NoEntity(f"no entity for ref {ref}: it was deleted; resolve it again")
    return page, kind_of(session, page)


def identifiers_of(page: Page) -> tuple[str, ...]:
    """A page's identifiers: its namespaced aliases, the `knowledge:` ones left out."""
    return tuple(a for a in page.aliases if ":" in a and not a.startswith("knowledge:"))


def _entity(session: Session, page: Page, kind: str) -> Entity:
    [ref] = session.refs.issue("entity", [page.record_id])
    return Entity(ref, kind, page.title, identifiers_of(page))


# -- the methods ---------------------------------------------------------------------------
def resolve(
    session: Session, identifiers: Mapping[str, str], *, kind: str = "person", create: bool = False
) -> Resolved | None:
    """The entity of `kind` with one of `identifiers` (`email`, `phone`, `domain`, `url`,
    `handle`), else one named `name`; None when there is none, unless `create` makes one
    (which needs `entities.write:<kind>`; a lookup needs `entities.resolve:<kind>`)."""
    session.check(f"entities.{'write' if create else 'resolve'}:{kind}")
    page_type, names = types_of_kind(session, kind)
    aliases = [normalise_identifier(k, v) for k, v in identifiers.items() if k != "name"]
    name = identifiers.get("name")
    if not aliases and not (isinstance(name, str) and name.strip()):
        raise ApiError("resolve needs at least one identifier or a name")
    found = pages_named(session, aliases, names)
    if not found and isinstance(name, str) and name.strip():
        found = pages_named(session, [name], names)
    if found:
        [ref] = session.refs.issue("entity", [found[0].record_id])
        return Resolved(ref, kind, found[0].title, False)
    if not create:
        return None
    title = name.strip() if isinstance(name, str) and name.strip() else next(iter(identifiers.values()))
    check_single_write(name=title)
    if any(not c.isprintable() and c != " " for c in title):
        raise ApiError("an entity's name is one line of text, without line breaks or control characters")
    session.charge(len(title) + sum(len(a) for a in aliases))
    text = update_frontmatter(
        "---\nkind: page\n---\n",
        {
            "title": title,
            "scope": session.scope,
            "type": page_type,
            **({"aliases": aliases} if aliases else {}),
        },
    )

    def planner(ctx: WriteContext) -> Plan:
        plan = plan_new(ctx, text)
        plan.operation = CREATE
        return plan

    receipt = session.write(session.request(CREATE, {"kind": kind, "text": text}), planner)
    record_id = str(receipt["targetId"])
    [ref] = session.refs.issue("entity", [record_id])
    return Resolved(ref, kind, title, True)


def get(session: Session, ref: str) -> Entity:
    """One entity by ref (`entities.read:<kind>`; some `entities.read` grant before the ref is
    looked up)."""
    session.gate("entities.read:<kind>", ("entities.read",))
    page, kind = entity_page(session, ref)
    session.check(f"entities.read:{kind}")
    return _entity(session, page, kind)


def list_entities(
    session: Session, kind: str = "person", query: str | None = None, *, limit: int = LIST_LIMIT
) -> list[Entity]:
    """The current entities of `kind` (`entities.read:<kind>`), by display name; `query` keeps
    those whose name or an identifier contains it (compared normalised)."""
    session.check(f"entities.read:{kind}")
    _, names = types_of_kind(session, kind)
    types = sorted(names)
    rows = session.store.reader().execute(
        f"{_PAGE} WHERE scope=? AND kind='page' AND status='record' AND lifecycle='active'"
        f" AND type IN ({','.join('?' * len(types))}) ORDER BY title, id",
        (session.scope, *types),
    )
    wanted = normalise_name(query) if query else ""
    out: list[Entity] = []
    for row in rows:
        page = _page(row)
        if SELF_ALIAS in page.aliases:
            continue  # the user is `self`, not one of their contacts
        if wanted and not any(wanted in normalise_name(n) for n in (page.title, *page.aliases)):
            continue
        out.append(_entity(session, page, kind))
        if len(out) >= limit:
            break
    return out


def add_identifier(session: Session, ref: str, kind: str, value: str) -> IdentifierAdded:
    """Add an identifier to an entity (`entities.write:<kind of the entity>`): `added`, or
    `exists` when the page already carries it (some `entities.write` grant before the ref is
    looked up)."""
    session.gate("entities.write:<kind>", ("entities.write",))
    page, entity_kind = entity_page(session, ref)
    session.check(f"entities.write:{entity_kind}")
    check_single_write(name=value if isinstance(value, str) else None)
    alias = normalise_identifier(kind, value)
    if normalise_name(alias) in {normalise_name(a) for a in page.aliases}:
        return IdentifierAdded("exists")
    session.charge(len(alias))

    def planner(ctx: WriteContext) -> Plan:
        current = ctx.lookup(page.record_id)
        ctx.record(current.fence())
        raw = current.frontmatter.get("aliases")
        aliases = [a for a in raw if isinstance(a, str)] if isinstance(raw, list) else []
        write = revise(ctx, current, {"aliases": [*aliases, alias]})
        ctx.validate(write.path, current.scope, write.content, old=current.frontmatter)
        return Plan(ADD_IDENTIFIER, current.record_id, None, [write], extra={"alias": alias})

    session.write(session.request(ADD_IDENTIFIER, {"id": page.record_id, "alias": alias}), planner)
    return IdentifierAdded("added")
