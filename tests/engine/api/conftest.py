"""A vault for the knowledge API's method tests: a self page, two people and a company in
`private`, and the extension `agent` installed there with every switch off."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit

AGENT: dict[str, Any] = {
    "name": "agent",
    "description": "An assistant that keeps what it learns",
    "knowledge": {
        "permissions": [
            "facts.read:self:pref.food.*",
            "facts.write:self:pref.food.*",
            "facts.read:self:location.home.*",
            "facts.write:self:location.home.*",
            "facts.read:self:x.mood",
            "facts.write:self:x.mood",
            "facts.read:person:relation.friend",
            "facts.write:person:relation.friend",
            "facts.read:person:work.company",
            "facts.write:person:work.company",
            "entities.resolve:person",
            "entities.read:person",
            "entities.write:person",
            "entities.read:org",
            "changes.manage",
            "origin.override",
        ],
        "predicates": [
            {"predicate": "pref.food.rated", "cardinality": "many", "description": "Rated dishes"}
        ],
    },
}
OTHER: dict[str, Any] = {
    "name": "other",
    "description": "A second extension",
    "knowledge": {"permissions": ["facts.read:self:pref.food.*", "facts.write:self:pref.food.*"]},
}


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["email:ada@example.org"]
    )
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company", aliases=["domain:acme.nl"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(AGENT), "private")
    extensions.install(validate_manifest(OTHER), "private")
    return vault


@pytest.fixture
def grant(vault: Vault) -> Callable[..., None]:
    """Turn on switches of an installed extension (`agent` unless `name` says otherwise)."""

    def turn_on(*permissions: str, name: str = "agent") -> None:
        extensions = Extensions(vault.store, vault.root)
        for permission in permissions:
            extensions.grant(name, permission)

    return turn_on
