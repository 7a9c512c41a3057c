"""The knowledge API's sessions opened on a `Vault` (issue 16).

`engine/api/` sits below `vault` and never reads it; this bridge above both
hands a session the vault's store, folder and one publish path, so the
Python facade, the CLI and the MCP server open extensions the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from knowledge_desktop.engine.api.changes import Changer
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.vault import Vault


def entity_types(vault: Vault, scope: str) -> Mapping[str, frozenset[str]]:
    """The page types of `scope`'s active ontology with the `entity` primitive, each with the
    names (its aliases) a page may give it."""
    activation = vault.reconciler.ontologies().get(scope)
    ontology = activation.ontology if activation is not None else None
    if ontology is None:
        return {}
    return {
        name: ontology.expand(name)
        for name, d in ontology.definitions.items()
        if d.kind == "page" and d.primitive == "entity"
    }


def open_session(vault: Vault, name: str, run_id: str | None = None) -> Session:
    """A session of the installed extension `name` on `vault`, in run `run_id` (a new run when
    None). `UnknownExtension` when no such extension is installed."""
    session = Session.open(
        vault.store, vault.root, vault.write, name, run_id, lambda scope: entity_types(vault, scope)
    )
    session.prepare_search = lambda scopes: prepare_search(vault, scopes)
    return session


EMBED_PER_CALL = 200
"""Files embedded by one API search at most: a few passages each, well under a second on
one core, where the whole queue of a new 10k vault takes minutes (bench/RESULTS.md)."""


def prepare_search(vault: Vault, scopes: list[str]) -> int:
    """Index the partitions' queued text, embed at most EMBED_PER_CALL of their queued
    files, and answer how many are still queued (the search says its index is partial)."""
    vault.index_keywords(scopes)
    vault.index_meaning(scopes, limit=EMBED_PER_CALL)
    return vault.meaning_pending(scopes)


def person_changes(vault: Vault, run_id: str | None = None) -> Changer:
    """The person as the one who lists and reverts changes (View Changes, `knowledge changes`):
    every actor's changes, and undo writes by `user` in run `run_id` (a new run when None)."""
    return Changer.person(vault.store, vault.write, run_id, root=vault.root)
