"""The method groups of the knowledge API on an `Extension`: `profile`, `facts`, `entities`,
`documents`, `collections`, `changes` (spec: facts-entities-collections-api, API reference).

Each group is a thin, typed front over the engine's own functions in
`engine/api/` — it renames nothing but the spec's camelCase into snake_case
and adds no rule of its own, so the Python facade, the MCP tools built on it
(`api/tools.py`) and the engine tests all exercise one implementation. Every
call first asks its `Calls` for the session to use: that reconciles the vault
with its folder, so a long-lived extension sees a person's later edits, and
picks the run a write is journaled under — the extension's own run, or the
`run_id` a call names, so a batch of writes can be reverted as one
(spec: Changes and undo).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import Any

from knowledge_desktop.engine.api import changes as changes_api
from knowledge_desktop.engine.api import collections as collections_api
from knowledge_desktop.engine.api import documents as documents_api
from knowledge_desktop.engine.api import entities as entities_api
from knowledge_desktop.engine.api import facts as facts_api
from knowledge_desktop.engine.api import profile as profile_api
from knowledge_desktop.engine.api.changes import Change, RevertResult
from knowledge_desktop.engine.api.collections import CollectionInfo
from knowledge_desktop.engine.api.documents import Document, Upserted
from knowledge_desktop.engine.api.entities import Entity, IdentifierAdded, Resolved
from knowledge_desktop.engine.api.facts import Fact, PutResult, RetractResult
from knowledge_desktop.engine.api.profile import ProfileEntry
from knowledge_desktop.engine.api.search import in_range
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.errors import ApiError

Calls = Callable[[str | None], Session]
"""The session for one call in run `run_id` (the extension's own run when None), with the
vault reconciled first."""


class _Group:
    def __init__(self, calls: Calls) -> None:
        self._calls = calls

    def _session(self, run_id: str | None = None) -> Session:
        return self._calls(run_id)


class Profile(_Group):
    """`profile.get`: the pinned facts about the user that the grants cover."""

    def get(self, prefix: str | None = None) -> list[ProfileEntry]:
        return profile_api.get(self._session(), prefix)


class Facts(_Group):
    """`facts.lookup`, `facts.put`, `facts.retract`."""

    def lookup(self, subject: str = "self", prefix: str | None = None) -> list[Fact]:
        """The current facts about `subject` (`self` or an entity ref) under `prefix`."""
        return facts_api.lookup(self._session(), subject, prefix)

    def put(
        self,
        predicate_hint: str,
        value: Any,
        *,
        subject: str = "self",
        object: str | None = None,  # the spec's argument name
        source_ref: str | None = None,
        valid_from: str | None = None,
        origin: str | None = None,
        source: str | None = None,
        run_id: str | None = None,
        description: str | None = None,
    ) -> PutResult:
        """Say `subject · predicate · value`; `run_id` groups this write with others for one
        revert (the extension's run when None); `description` says what a new predicate means."""
        return facts_api.put(
            self._session(run_id),
            predicate_hint=predicate_hint,
            value=value,
            subject=subject,
            object=object,
            source_ref=source_ref,
            valid_from=valid_from,
            origin=origin,
            source=source,
            description=description,
        )

    def retract(self, ref: str, *, run_id: str | None = None) -> RetractResult:
        """Let the fact behind `ref` expire (nothing is deleted)."""
        return facts_api.retract(self._session(run_id), ref)


class Entities(_Group):
    """`entities.resolve`, `get`, `list`, `add_identifier`."""

    def resolve(
        self,
        identifiers: Mapping[str, str],
        *,
        kind: str = "person",
        create: bool = False,
        run_id: str | None = None,
    ) -> Resolved | None:
        """The entity one of `identifiers` (or its `name`) names; None when there is none,
        unless `create` makes it."""
        return entities_api.resolve(self._session(run_id), identifiers, kind=kind, create=create)

    def get(self, ref: str) -> Entity:
        return entities_api.get(self._session(), ref)

    def list(self, kind: str = "person", query: str | None = None) -> builtins.list[Entity]:
        return entities_api.list_entities(self._session(), kind, query)

    def add_identifier(
        self, ref: str, kind: str, value: str, *, run_id: str | None = None
    ) -> IdentifierAdded:
        return entities_api.add_identifier(self._session(run_id), ref, kind, value)


class Documents(_Group):
    """`documents.upsert`, `get`, `get_by_key`, `list`, `delete`."""

    def upsert(
        self,
        collection: str,
        *,
        title: str,
        body: str,
        meta: dict[str, Any] | None = None,
        key: str | None = None,
        ref: str | None = None,
        run_id: str | None = None,
    ) -> Upserted:
        """Write a document by `key` (created, or updated wherever it was moved), by `ref`, or
        new; `unchanged` writes nothing."""
        return documents_api.upsert(
            self._session(run_id), collection, title=title, body=body, meta=meta, key=key, ref=ref
        )

    def get(self, ref: str, *, range: Mapping[str, int] | None = None) -> Document:
        """The document in full, or with `range` (`{"from": 0, "to": 3}`: chunks 0 to 2) a part."""
        span = (int(range.get("from", 0)), int(range["to"])) if range is not None and "to" in range else None
        if range is not None and span is None:
            raise ApiError("a range names `to` (and `from`, 0 when left out)")
        return documents_api.get(self._session(), ref, span)

    def get_by_key(self, collection: str, key: str) -> Document | None:
        return documents_api.get_by_key(self._session(), collection, key)

    def list(self, collection: str, *, time_range: dict[str, Any] | None = None) -> builtins.list[Document]:
        """The documents placed directly in `collection`, newest first; `time_range` (`from`,
        `to`: milliseconds or ISO dates) keeps those whose `meta.date` falls in it, as search
        does."""
        found = documents_api.list_documents(self._session(), collection)
        return [d for d in found if in_range(d.meta.get("date"), time_range)]

    def delete(self, ref: str, *, run_id: str | None = None) -> None:
        documents_api.delete(self._session(run_id), ref)


class Collections(_Group):
    """`collections.list`, `collections.create`."""

    def list(self) -> builtins.list[CollectionInfo]:
        """The collections the extension can read or write."""
        return collections_api.list_collections(self._session())

    def create(self, name: str, *, parent: str | None = None, run_id: str | None = None) -> CollectionInfo:
        return collections_api.create_collection(self._session(run_id), name, parent)


class Changes(_Group):
    """`changes.list`, `changes.revert`: the extension's own changes, or all of them with
    `changes.manage`."""

    def list(
        self, *, run_id: str | None = None, status: str | None = None, since: str | None = None
    ) -> builtins.list[Change]:
        return changes_api.list_changes(
            changes_api.Changer.of(self._session()), run_id=run_id, status=status, since=since
        )

    def revert(self, *, run_id: str | None = None, change_ref: str | None = None) -> RevertResult:
        """Undo run `run_id` (newest change first) or the one change `change_ref`; the undo is
        itself journaled in the extension's own run."""
        return changes_api.revert(
            changes_api.Changer.of(self._session()), run_id=run_id, change_ref=change_ref
        )
