"""What an extension may see of its partition (issue 16 §3; docs/decisions.md, "The knowledge
API mapped onto the vault"): entity pages of kinds it may read, facts whose subject and
predicate its grants cover, nothing else — and a switch counts from the next call."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from knowledge_desktop.engine import vault_reads
from knowledge_desktop.engine.api import documents
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.api.visibility import Visibility
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from tests.engine.api import docs_kit
from tests.vaultkit import VaultKit

AGENT: dict[str, Any] = {
    "name": "agent",
    "description": "An assistant that reads what it is shown",
    "kind": "tool",
    "knowledge": {
        "permissions": [
            "entities.read:person",
            "entities.read:org",
            "facts.read:self:pref.food.*",
            "facts.read:person:pref.food.*",
        ],
        "reason": "Answer questions about the people you know",
    },
}
GRANTED = ("entities.read:person", "facts.read:self:pref.food.*")
"""What the fixture turns on: people and the user's food preferences, not companies, nor
anything about other people's preferences."""


def agent_vault(kit: VaultKit) -> Vault:
    """Records of each sort the rule tells apart, the word "lantern" in every title, and the
    extension `agent` installed in `private` with `GRANTED` on."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lantern", type="person", body="Ada likes lanterns.\n")
    kit.page("private/people/me.md", "pg_me", "Me Lantern", type="person", aliases=["knowledge:self"])
    kit.page("private/companies/acme.md", "pg_acme", "Acme Lantern", type="company")
    kit.page("private/notes/n.md", "pg_note", "Lantern note", type="note")
    kit.claim(
        "private/claims/soup.md",
        "cl_soup",
        "Likes lantern soup",
        entities=["pg_me"],
        occurred_at="2026-09-20",
        fact={"predicate": "pref.food.rated", "value": "lantern soup"},
    )
    kit.claim(
        "private/claims/city.md",
        "cl_city",
        "Lives in Lantern city",
        entities=["pg_me"],
        occurred_at="2026-09-20",
        fact={"predicate": "location.home.city", "value": "Lantern"},
    )
    kit.claim(
        "private/claims/pie.md",
        "cl_pie",
        "Ada rates lantern pie",
        entities=["pg_ada"],
        fact={"predicate": "pref.food.rated", "value": "pie"},
    )
    kit.claim("private/claims/plain.md", "cl_plain", "A lantern was lit", entities=["pg_me"])
    kit.page("work/people/bob.md", "pg_bob", "Bob Lantern", type="person")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(AGENT), "private")
    for permission in GRANTED:
        extensions.grant("agent", permission)
    return vault


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    return agent_vault(kit)


def visible_paths(vault: Vault) -> set[str]:
    seen = vault_reads.visibility(vault, open_session(vault, "agent"))
    rows = vault.store.reader().execute("SELECT path FROM catalog").fetchall()
    return {p for (p,) in rows if seen.visible(p)}


def test_only_granted_entity_kinds_and_covered_facts_of_the_partition_are_visible(vault: Vault) -> None:
    assert visible_paths(vault) == {
        "private/people/ada.md",
        "private/people/me.md",  # the self page is a person page
        "private/claims/soup.md",  # self + pref.food.rated
    }


def test_a_switch_counts_from_the_next_call(vault: Vault) -> None:
    extensions = Extensions(vault.store, vault.root)
    extensions.grant("agent", "entities.read:org")
    extensions.grant("agent", "facts.read:person:pref.food.*")
    assert {"private/companies/acme.md", "private/claims/pie.md"} <= visible_paths(vault)
    extensions.revoke("agent", "entities.read:person")
    after = visible_paths(vault)
    assert "private/people/ada.md" not in after
    assert "private/claims/pie.md" in after  # a fact about a person needs no entity grant


def test_the_subject_of_a_fact_is_self_only_through_the_self_alias(vault: Vault) -> None:
    session = open_session(vault, "agent")
    conn = vault.store.reader()
    person_only = Visibility(conn, session, frozenset({"person"}))
    assert person_only.visible("private/claims/soup.md")
    assert not person_only.visible("private/claims/pie.md")
    nothing_is_an_entity = Visibility(conn, session, frozenset())
    assert not nothing_is_an_entity.visible("private/claims/soup.md")
    assert not nothing_is_an_entity.visible("private/people/ada.md")
    assert not person_only.visible(None)
    assert not person_only.visible("private/no/such.md")


def test_documents_are_visible_where_a_readable_collection_holds_them_now(kit: VaultKit) -> None:
    """Readable collections join the rule, decided by the folder a file is in at the call."""
    kit.page("private/notes/n.md", "pg_n", "A lantern note")
    vault = kit.scan()
    docs_kit.install(vault)
    docs_kit.grant(vault, "collections.write:diary", "collections.read:keep")
    writer = docs_kit.session(vault)
    documents.upsert(writer, "diary", key="2026-09-29", title="Lantern day", body="Lanterns.\n")
    vault.reconcile()
    entry = "private/diary/2026-09-29.md"

    def visible() -> set[str]:
        seen = vault_reads.visibility(vault, docs_kit.session(vault))
        rows = vault.store.reader().execute("SELECT path FROM catalog").fetchall()
        return {p for (p,) in rows if seen.visible(p)}

    assert visible() == set()  # written to the diary, which it may not read
    docs_kit.grant(vault, "collections.read:diary")
    assert visible() == {entry}
    assert [h.record.id for h in vault_reads.grep(vault, docs_kit.session(vault), "lantern").hits] == [
        vault.store.reader().execute("SELECT id FROM catalog WHERE path=?", (entry,)).fetchone()[0]
    ]
    (vault.root / "private/keep").mkdir(exist_ok=True)
    shutil.move(str(vault.root / entry), str(vault.root / "private/keep/lantern.md"))
    vault.reconcile()
    assert visible() == {"private/keep/lantern.md"}  # keep is readable too
    shutil.move(str(vault.root / "private/keep/lantern.md"), str(vault.root / "private/notes/lantern.md"))
    vault.reconcile()
    assert visible() == set()  # a plain folder is no collection
    hits = vault_reads.grep(vault, docs_kit.session(vault), "lantern")
    assert hits.total == 0
