"""Mentions (issue 27 §4): person and company names found in a document's text, returned by
`documents.get` and used by `search`'s entities filter, only for pages the extension may see."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.search import search
from knowledge_desktop.engine.query.mentions import Names
from knowledge_desktop.engine.vault import Vault
from tests.engine.api.docs_kit import grant, install, revoke, session
from tests.vaultkit import VaultKit


def test_names_match_exact_word_bounded_and_longest() -> None:
    names = Names([("pg_ada", "p/ada.md", ["Ada", "Ada Lovelace"]), ("pg_adam", "p/adam.md", ["Adam"])])
    found = names.find("Ada's notes, with Adam, ada and Ada Lovelace.\nAdamant Ada_x, Ada")
    assert [(m.id, m.name, m.line) for m in found] == [
        ("pg_ada", "Ada", 1),
        ("pg_adam", "Adam", 1),
        ("pg_ada", "Ada Lovelace", 1),
        ("pg_ada", "Ada", 2),
    ]


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["Ada", "email:a@x.org"]
    )
    kit.page("private/people/bob.md", "pg_bob", "Bob Stone", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme Works", type="company")
    vault = kit.scan()
    install(vault)
    grant(vault, "collections.read:diary", "collections.write:diary", "entities.read:person")
    s = session(vault)
    docs.upsert(
        s, "diary", key="2026-09-21", title="Monday", body="Tea with Ada.\n\nThen Acme Works called.\n"
    )
    docs.upsert(s, "diary", key="2026-09-22", title="Tuesday", body="Bob Stone and adam were late.\n")
    docs.upsert(s, "diary", key="2026-09-23", title="Wednesday", body="Quiet day.\n")
    vault.reconcile()
    return vault


def by_key(vault: Vault, key: str) -> dict[str, object]:
    doc = docs.get_by_key(session(vault), "diary", key)
    assert doc is not None
    return doc.as_json()


def test_documents_get_lists_the_people_it_names_that_the_extension_may_see(vault: Vault) -> None:
    s = session(vault)
    ada, bob = s.refs.issue("entity", ["pg_ada", "pg_bob"])
    monday = by_key(vault, "2026-09-21")
    # Acme is a company: this extension may read people only, so Acme reads as no page at all
    assert monday["mentions"] == [{"entity": ada, "names": ["Ada"], "lines": [1]}]
    assert by_key(vault, "2026-09-22")["mentions"] == [{"entity": bob, "names": ["Bob Stone"], "lines": [1]}]
    assert by_key(vault, "2026-09-23")["mentions"] == []
    ref = str(monday["ref"])
    assert docs.get(s, ref, range=(1, 2)).as_json()["mentions"] == monday["mentions"]
    revoke(vault, "entities.read:person")
    assert by_key(vault, "2026-09-21")["mentions"] == []


def test_the_entities_filter_keeps_documents_that_name_them(vault: Vault) -> None:
    ada = session(vault).refs.issue("entity", ["pg_ada"])[0]
    assert [h.title for h in search(session(vault), "day", entities=[ada]).hits] == ["Monday"]
    assert [h.title for h in search(session(vault), "", entities=[ada]).hits] == ["Monday"]
