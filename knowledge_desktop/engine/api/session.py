"""One extension's calls on one vault: who calls, in which partition, under which run.

Every method of the knowledge API (facts, entities, documents, collections,
changes) takes a `Session` rather than a vault, so that the rules every call
shares live in one place (docs/decisions.md, "The knowledge API mapped onto the
vault"):

- the actor of every write is `extension:<name>`, and every write carries the
  session's run id, given by the caller or made fresh when the session opens,
  so that `changes.list` groups a run's writes and `changes.revert` undoes them;
- permissions are read from the durable grants on every check, so a switch a
  person turns counts from the next call (`grants.Extensions`);
- each write is charged to the extension's daily quota before it is planned
  (`quotas.Quotas`; `collections.bulk` raises the character limit);
- refs are issued and resolved through the extension's own `RefBook`.

It writes only through the one publish path (`write`), handed in by the layer
that owns the vault (`engine/vault_api.py`), since this package sits below it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.api.grants import Extensions, Installed
from knowledge_desktop.engine.api.permissions import Permission
from knowledge_desktop.engine.api.quotas import Quotas, Usage
from knowledge_desktop.engine.api.refs import RefBook
from knowledge_desktop.engine.errors import ApiError, PermissionRefused
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.plan import Plan, Request
from knowledge_desktop.engine.write.requests import make_request

if TYPE_CHECKING:
    from knowledge_desktop.engine.api.collections import CollectionCache

Planner = Callable[[WriteContext], Plan]
Write = Callable[[Request, Planner], dict[str, Any]]
"""The publish path: `Vault.write(request, planner)` → the receipt."""
EntityTypes = Callable[[str], Mapping[str, frozenset[str]]]
"""A partition's entity page types: each type's name → the names a page may give it (the
type and its ontology aliases). Handed in by the vault layer, which owns the ontologies."""
DEFAULT_ENTITY_TYPES: Mapping[str, frozenset[str]] = {
    "person": frozenset({"person"}),
    "company": frozenset({"company", "organization"}),
}


def default_entity_types(scope: str) -> Mapping[str, frozenset[str]]:
    """The shipped ontology's entity types, for a session opened without a vault's ontologies."""
    return DEFAULT_ENTITY_TYPES


BULK = "collections.bulk"
MAX_RUN_ID = 200


def actor_of(name: str) -> str:
    """The journal's actor for writes of extension `name`."""
    return f"extension:{name}"


def new_run_id() -> str:
    """A fresh run id (`run_…`, sortable by time like record ids)."""
    return new_id("run")


@dataclass(slots=True)
class Session:
    """The context of one extension's calls; see the module docstring."""

    extensions: Extensions
    installed: Installed
    store: Store
    root: Path
    write: Write
    run_id: str
    refs: RefBook
    quotas: Quotas
    entity_types_of: EntityTypes = field(default=default_entity_types)
    prepare_search: Callable[[list[str]], object] | None = None
    """Indexes the queued text of these partitions before a search and embeds a bounded
    part of their queued passages (`vault_api.prepare_search`), answering how many files
    still wait for their vectors; None: search what is indexed."""
    collection_cache: CollectionCache | None = None
    """The partition's collections kept between calls by a live reader, whose watcher
    forgets them when a marker or folder changes (`collections.current_index`); None: the
    markers are read on every call."""

    @classmethod
    def open(
        cls,
        store: Store,
        root: Path,
        write: Write,
        name: str,
        run_id: str | None = None,
        entity_types: EntityTypes = default_entity_types,
    ) -> Session:
        """A session of the installed extension `name` (`UnknownExtension` otherwise)."""
        extensions = Extensions(store, root)
        installed = extensions.get(name)
        return cls(
            extensions,
            installed,
            store,
            root,
            write,
            run_id or new_run_id(),
            RefBook(store, name, extensions.key(name)),
            Quotas(store),
            entity_types,
        )

    @property
    def name(self) -> str:
        return self.installed.name

    @property
    def scope(self) -> str:
        """The partition the extension is installed in: all it reads and writes is here."""
        return self.installed.scope

    @property
    def folder(self) -> Path:
        return self.root / self.scope

    @property
    def actor(self) -> str:
        return actor_of(self.name)

    @property
    def entity_types(self) -> Mapping[str, frozenset[str]]:
        """The entity page types of the session's partition (see `EntityTypes`)."""
        return self.entity_types_of(self.scope)

    def check(self, needed: str | Permission) -> None:
        """`PermissionRefused` unless a grant covers `needed` (single-object methods)."""
        self.extensions.check(self.name, needed)

    def allowed(self, needed: str | Permission) -> bool:
        """Whether a grant covers `needed` (query methods leave out what is not)."""
        return self.extensions.allowed(self.name, needed)

    def holds(
        self, names: tuple[str, ...], scope: str | None = None, *, other_than: str | None = None
    ) -> bool:
        """Whether some grant is one of the permissions `names` (`data.action`), of scope `scope`
        when given and not of scope `other_than` when given: a method's first check, made
        before anything the call names is looked up (docs/mcp.md, "The order of a call's
        checks")."""
        return any(
            g.name in names
            and (scope is None or g.scope == scope)
            and (other_than is None or g.scope != other_than)
            for g in self.extensions.granted(self.name)
        )

    def gate(
        self, shown: str, names: tuple[str, ...], scope: str | None = None, *, other_than: str | None = None
    ) -> None:
        """`PermissionRefused` naming `shown` unless `holds(names, scope, other_than=…)`: an
        extension with no grant of the kind a method needs learns that, and nothing about
        the vault (no self page, no collection, no ref), whatever else its call names."""
        if not self.holds(names, scope, other_than=other_than):
            raise PermissionRefused(f"extension {self.name} lacks knowledge permission {shown}")

    def in_run(self, run_id: str) -> None:
        """`ApiError` unless run `run_id` is this extension's: a run holds the writes of the one
        writer that started it, so reverting it never undoes another's (issue 32 §4). A run
        id no journal entry names yet becomes this extension's with its first write."""
        if not isinstance(run_id, str) or not run_id or len(run_id) > MAX_RUN_ID or not run_id.isprintable():
            raise ApiError(f"a run id is 1-{MAX_RUN_ID} printable characters")
        row = (
            self.store.reader()
            .execute("SELECT actor FROM journal WHERE run_id=? AND actor<>? LIMIT 1", (run_id, self.actor))
            .fetchone()
        )
        if row is not None:
            raise ApiError(
                f"run {run_id} belongs to another writer; leave runId out, or name a run of your own"
            )

    def charge(self, chars: int) -> Usage:
        """Count one write of `chars` characters today, or `QuotaExceeded` (nothing counted)."""
        return self.quotas.charge(self.name, chars, bulk=self.allowed(BULK))

    def request(self, operation: str, payload: dict[str, Any], request_id: str | None = None) -> Request:
        """A request of this extension, in this session's run (`in_run` checked again here, so
        no write joins a run another writer holds, whichever way the run id came in)."""
        self.in_run(self.run_id)
        return make_request(operation, payload, request_id=request_id, actor=self.actor, run_id=self.run_id)
