"""The Python face of the knowledge API: one extension's calls on one vault (issue 16 §3).

    from knowledge_desktop.api import open_extension

    with open_extension("~/Vault", "recipes") as ext:
        page = ext.grep("lentil soup")
        for hit in page.hits:
            print(hit.record.title, hit.snippet)

An `Extension` holds the open `Vault` and the extension's `Session` (its
partition, run id and grants, read afresh on every call), and offers the
spec's methods in snake_case with typed results: the read tools of
retrieval-and-dates (`grep`, `lookup`, `record`, `timeline`, `chronicle_day`),
`search`, and the method groups of facts-entities-collections-api as
attributes (`api/groups.py`):

    with open_extension("~/Vault", "recipes") as ext:
        rated = ext.facts.put("pref.food.rated", "tomato beef stew")
        recipes = ext.collections.create("Recipes")
        ext.documents.upsert(recipes.ref, key="stew", title="Stew", body="…")
        ext.changes.revert(run_id=ext.run_id)

Every method is the one `engine/vault_reads.py` and the engine's API modules
implement, which the MCP server calls too (`api/tools.py`), so the three ways
in give one answer.
"""

from __future__ import annotations

import dataclasses
import os
from types import TracebackType
from typing import Any

from knowledge_desktop.api.groups import Changes, Collections, Documents, Entities, Facts, Profile
from knowledge_desktop.engine import vault_reads
from knowledge_desktop.engine.api import search as search_api
from knowledge_desktop.engine.api.read_results import (
    ChronicleDay,
    LookupResult,
    RecordView,
    SearchPage,
    TimelinePage,
)
from knowledge_desktop.engine.api.search import SearchResult
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.live_vault import WALKED, Freshness, LiveVault
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session


class Extension:
    """One installed extension's view of a vault; see the module docstring. Reads look at the
    files as they are at the call: the vault is reconciled first, from what the watcher saw
    when `live` keeps it live (`engine/live_vault.py`), else by walking its files."""

    def __init__(
        self, vault: Vault, session: Session, *, owns_vault: bool = False, live: LiveVault | None = None
    ) -> None:
        self.vault = vault
        self.session = session
        self._owns_vault = owns_vault
        self.live = live
        self.freshness: Freshness | None = None
        """How the last call was brought up to date with the files (`Freshness`); None
        until a call reads the vault."""
        self._runs: dict[str, Session] = {}
        self.profile = Profile(self.call_session)
        self.facts = Facts(self.call_session)
        self.entities = Entities(self.call_session)
        self.documents = Documents(self.call_session)
        self.collections = Collections(self.call_session)
        self.changes = Changes(self.call_session)

    @property
    def name(self) -> str:
        return self.session.name

    @property
    def scope(self) -> str:
        """The partition the extension is installed in; it sees nothing outside it."""
        return self.session.scope

    @property
    def run_id(self) -> str:
        """The run every write of this object is journaled under."""
        return self.session.run_id

    def close(self) -> None:
        """Stop keeping the vault live, and close it when this object opened it."""
        if self.live is not None:
            self.live.close()
        if self._owns_vault:
            self.vault.close()

    def __enter__(self) -> Extension:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _fresh(self) -> Vault:
        """The vault, reconciled with its folder (a long-lived extension sees later edits)."""
        if self.live is not None:
            self.freshness = self.live.fresh()
        else:
            self.vault.reconcile()
            self.freshness = WALKED
        if self.session.store is not self.vault.store:
            # The vault repaired a damaged state.sqlite (`Vault.repairing`): sessions bound
            # to the file set aside follow to the new one, keeping their runs' ids.
            self.session = self._open_session(self.session.run_id)
            self._runs = {run_id: self._open_session(run_id) for run_id in self._runs}
        return self.vault

    def _open_session(self, run_id: str) -> Session:
        session = open_session(self.vault, self.session.name, run_id)
        if self.live is not None:
            session.collection_cache = self.live.collections
        return session

    def call_session(self, run_id: str | None = None) -> Session:
        """The session one API call runs in, the vault reconciled first: the extension's own,
        or the same extension in run `run_id` when a call names another run (its refs, quotas
        and grants are the extension's either way); a run another writer holds is refused."""
        self._fresh()
        if run_id is None or run_id == self.session.run_id:
            return self.session
        self.session.in_run(run_id)  # another writer's run is refused before anything is read
        if run_id not in self._runs:
            self._runs[run_id] = dataclasses.replace(self.session, run_id=run_id)
        return self._runs[run_id]

    def search(
        self,
        query: str = "",
        *,
        collections: list[str] | None = None,
        time_range: dict[str, Any] | None = None,
        entities: list[str] | None = None,
        limit: int = 10,
    ) -> SearchResult:
        """Keyword search over the documents of the collections the extension may read; an
        empty query lists them newest first (`engine/api/search.py`)."""
        return search_api.search(
            self.call_session(),
            query,
            collections=collections,
            time_range=time_range,
            entities=entities,
            limit=limit,
        )

    # -- the read tools of retrieval-and-dates, under the extension's grants ---------
    def grep(
        self,
        query: str,
        *,
        mode: str = "all",
        kind: str | None = None,
        type: str | None = None,  # the spec's argument name
        tag: str | None = None,
        lifecycle: str = "active",
        time_field: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> SearchPage:
        """Keyword search over the visible records (`vault_reads.grep`)."""
        return vault_reads.grep(
            self._fresh(),
            self.session,
            query,
            mode=mode,
            kind=kind,
            type=type,
            tag=tag,
            lifecycle=lifecycle,
            time_field=time_field,
            since=since,
            until=until,
            limit=limit,
            offset=offset,
        )

    def lookup(
        self,
        query: str,
        *,
        kind: str | None = None,
        type: str | None = None,  # the spec's argument name
        tag: str | None = None,
        lifecycle: str = "active",
    ) -> LookupResult:
        """Exact id, title or alias among the visible records (`vault_reads.lookup`)."""
        return vault_reads.lookup(
            self._fresh(), self.session, query, kind=kind, type=type, tag=tag, lifecycle=lifecycle
        )

    def record(self, target: str) -> RecordView:
        """One visible record by id or vault-relative path (`vault_reads.record`)."""
        return vault_reads.record(self._fresh(), self.session, target)

    def timeline(
        self,
        *,
        entity: str | None = None,
        kind: str | None = None,
        time_field: str = "occurred_at",
        since: str | None = None,
        until: str | None = None,
        order: str = "asc",
        eligibility: str = "current",
        limit: int = 50,
        offset: int = 0,
    ) -> TimelinePage:
        """Visible dated records (`vault_reads.timeline`)."""
        return vault_reads.timeline(
            self._fresh(),
            self.session,
            entity=entity,
            kind=kind,
            time_field=time_field,
            since=since,
            until=until,
            order=order,
            eligibility=eligibility,
            limit=limit,
            offset=offset,
        )

    def chronicle_day(
        self, day: str, *, tz: str = "UTC", week: bool = False, kind: str | None = None
    ) -> ChronicleDay:
        """The visible dated records of one day or week (`vault_reads.chronicle_day`)."""
        return vault_reads.chronicle_day(self._fresh(), self.session, day, tz=tz, week=week, kind=kind)


def open_extension(
    vault_path: str | os.PathLike[str],
    name: str,
    run_id: str | None = None,
    *,
    live: bool = False,
    **watcher_options: Any,
) -> Extension:
    """The installed extension `name` on the vault at `vault_path`, in run `run_id` (a new run
    when None). Use it as a context manager: leaving it closes the vault. `UnknownExtension`
    when no such extension is installed (the vault is closed again).

    With `live`, a watcher keeps the vault live while the object is open, so a call
    reconciles only what changed since the last one instead of walking every file: for a
    long-lived reader (the MCP server does this). `watcher_options` go to `VaultWatcher`."""
    vault = Vault.open(vault_path)
    keeper: LiveVault | None = None
    try:
        session = open_session(vault, name, run_id)
        if live:
            keeper = LiveVault(vault, **watcher_options)
            keeper.start()
            session.collection_cache = keeper.collections
    except BaseException:
        if keeper is not None:
            keeper.close()
        vault.close()
        raise
    return Extension(vault, session, owns_vault=True, live=keeper)
