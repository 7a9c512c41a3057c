"""The Python facade of the knowledge API (issue 16 §3): `open_extension` gives an extension's
read tools, and every answer — rows, pages, counts, links — holds only what it may see."""

from __future__ import annotations

import pytest

from knowledge_desktop.api import Extension, open_extension
from knowledge_desktop.api.tools import BY_NAME, TOOLS
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.errors import QueryError, UnknownExtension
from knowledge_desktop.engine.vault_api import open_session
from tests.engine.api.test_visibility import agent_vault
from tests.vaultkit import VaultKit


@pytest.fixture
def ext(kit: VaultKit) -> Extension:
    vault = agent_vault(kit)
    return Extension(vault, open_session(vault, "agent", run_id="run_test"))


def test_grep_pages_and_counts_only_visible_hits(ext: Extension) -> None:
    page = ext.grep("lantern")
    assert {h.record.id for h in page.hits} == {"pg_ada", "pg_me", "cl_soup"}
    assert (page.total, page.total_exact, page.next_offset) == (3, True, None)
    first = ext.grep("lantern", limit=2)
    rest = ext.grep("lantern", limit=2, offset=2)
    assert (first.total, first.next_offset, rest.next_offset) == (3, 2, None)
    assert {h.record.id for h in first.hits + rest.hits} == {"pg_ada", "pg_me", "cl_soup"}
    assert page.snapshot is not None
    assert "work" not in page.snapshot
    shown = str(page.as_json())
    for hidden in ("Acme", "Lantern note", "Lantern city", "lantern pie", "Bob", "lit"):
        assert hidden not in shown


def test_lookup_does_not_find_or_count_what_is_not_visible(ext: Extension) -> None:
    assert ext.lookup("Acme Lantern").status == "missing"
    assert ext.lookup("Bob Lantern").status == "missing"
    found = ext.lookup("ada lantern")
    assert found.status == "found"
    assert found.record is not None
    assert found.record.id == "pg_ada"


def test_record_of_an_invisible_record_reads_as_missing(ext: Extension) -> None:
    with pytest.raises(QueryError) as hidden:
        ext.record("pg_acme")
    with pytest.raises(QueryError) as absent:
        ext.record("pg_nobody")
    assert str(hidden.value).replace("pg_acme", "X") == str(absent.value).replace("pg_nobody", "X")
    me = ext.record("private/people/me.md")
    assert me.record.id == "pg_me"
    assert [b["id"] for b in me.backlinks] == ["cl_soup"]  # not the city, nor the plain claim


def test_timeline_and_chronicle_count_visible_records_only(ext: Extension) -> None:
    recorded = ext.timeline(time_field="recorded_at")
    assert {i.record.id for i in recorded.items} == {"pg_ada", "pg_me", "cl_soup"}
    assert recorded.total == 3
    assert ext.timeline(time_field="recorded_at", limit=1, offset=2).next_offset is None
    assert ext.timeline(entity="pg_acme", time_field="recorded_at").total == 0
    day = ext.chronicle_day("2026-09-20")
    assert [i.record.id for i in day.items] == ["cl_soup"]


def test_a_grant_turned_on_shows_up_in_the_next_read(ext: Extension) -> None:
    Extensions(ext.vault.store, ext.vault.root).grant("agent", "entities.read:org")
    assert ext.lookup("Acme Lantern").status == "found"
    assert ext.grep("lantern").total == 4


def test_open_extension_is_a_context_manager_and_refuses_an_unknown_name(kit: VaultKit) -> None:
    agent_vault(kit)
    kit.close()
    with pytest.raises(UnknownExtension):
        open_extension(kit.root, "nobody")
    with open_extension(kit.root, "agent", run_id="run_x") as ext:
        assert (ext.name, ext.scope, ext.run_id) == ("agent", "private", "run_x")
        assert ext.lookup("Me Lantern").status == "found"


def test_the_tool_table_names_methods_as_the_spec_does(ext: Extension) -> None:
    assert [t.name for t in TOOLS][:5] == [
        "knowledge_grep",
        "knowledge_lookup",
        "knowledge_record",
        "knowledge_timeline",
        "knowledge_chronicle_day",
    ]
    answer = BY_NAME["knowledge_timeline"].call(ext, {"timeField": "recorded_at", "limit": 2})
    assert answer["total"] == 3
    assert len(answer["items"]) == 2
    with pytest.raises(QueryError, match="takes no argument 'time_field'"):
        BY_NAME["knowledge_timeline"].call(ext, {"time_field": "recorded_at"})
    with pytest.raises(QueryError, match="needs the argument 'query'"):
        BY_NAME["knowledge_grep"].call(ext, {})
    with pytest.raises(QueryError, match="limit must be a JSON integer"):
        BY_NAME["knowledge_grep"].call(ext, {"query": "x", "limit": True})
