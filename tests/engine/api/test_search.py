"""`search` for extensions: hybrid (`mode: "hybrid"`), over readable collections, with
the collections, time range and entities filters (docs/decisions.md; spec:
facts-entities-collections-api, Search and documents)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.search import in_range, search
from knowledge_desktop.engine.vault import Vault
from tests.engine.api.docs_kit import grant, install, session
from tests.vaultkit import VaultKit


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/notes/secret.md", "pg_secret", "Stew secret", body="Tomato stew.\n")
    vault = kit.scan()
    install(vault)
    grant(vault, "collections.read:diary", "collections.write:diary", "collections.create")
    s = session(vault)
    docs.upsert(s, "diary", key="2026-09-21", title="Monday", body="Tomato soup.\n")
    docs.upsert(
        s, "diary", key="2026-09-22", title="Tuesday", body="Tomato beef stew with [[Ada Lovelace]].\n"
    )
    docs.upsert(s, "diary", key="2026-09-23", title="Wednesday", body="Rice.\n")
    recipes = cols.create_collection(s, "Recipes")
    docs.upsert(s, recipes.ref, title="Stew", body="Tomato stew recipe.\n", meta={"date": "2026-09-22"})
    vault.reconcile()
    return vault


def titles(vault: Vault, query: str = "", **kw: object) -> list[str]:
    result = search(session(vault), query, **kw)  # type: ignore[arg-type]
    assert result.as_json()["mode"] == "hybrid"
    return sorted(h.title for h in result.hits)


def ordered(vault: Vault, query: str, **kw: object) -> list[str]:
    return [h.title for h in search(session(vault), query, **kw).hits]  # type: ignore[arg-type]


def test_only_readable_collections_are_searched(vault: Vault) -> None:
    # every readable page is near by meaning; the note outside never shows
    assert titles(vault, "tomato") == ["Monday", "Stew", "Tuesday", "Wednesday"]
    grant(vault, "collections.read:keep")
    assert "Stew secret" not in titles(vault, "stew")


def test_the_collections_filter_and_time_range(vault: Vault) -> None:
    assert titles(vault, "tomato", collections=["diary"]) == ["Monday", "Tuesday", "Wednesday"]
    assert titles(vault, "tomato", time_range={"from": "2026-09-22", "to": "2026-09-22"}) == [
        "Stew",
        "Tuesday",
    ]
    ms = 1_790_035_200_000  # 2026-09-22T00:00:00Z
    assert titles(vault, "tomato", time_range={"from": ms}) == ["Stew", "Tuesday", "Wednesday"]
    assert in_range("2026-09-22", {"to": "2026-09-22T00:00:00Z"})
    assert not in_range(None, {"from": "2026-09-01"})


def test_an_empty_query_lists_newest_first(vault: Vault) -> None:
    hits = search(session(vault), "", collections=["diary"]).hits
    assert [h.title for h in hits] == ["Wednesday", "Tuesday", "Monday"]
    assert hits[0].meta == {"date": "2026-09-23"}


def test_the_entities_filter_keeps_passages_that_mention_them(vault: Vault) -> None:
    ada = session(vault).refs.issue("entity", ["pg_ada"])[0]
    assert titles(vault, "tomato", entities=[ada]) == ["Tuesday"]
    assert titles(vault, "", entities=[ada]) == ["Tuesday"]


def test_pages_that_say_the_words_lead_and_pages_near_by_meaning_follow(vault: Vault) -> None:
    found = ordered(vault, "tomato")
    assert sorted(found[:3]) == ["Monday", "Stew", "Tuesday"]
    assert found[3:] == ["Wednesday"]


def test_a_page_the_extension_cannot_read_never_moves_the_others(kit: VaultKit, vault: Vault) -> None:
    before = ordered(vault, "tomato")
    kit.page("private/notes/more.md", "pg_more", "Tomato", body="Tomato tomato, a tomato soup.\n")
    vault.reconcile()
    assert ordered(vault, "tomato") == before
