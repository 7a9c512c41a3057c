"""Notes in search, lookup, the switcher's suggestions and the timeline (issue 25 §3)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit

HIT_KEYS = {"kind", "path", "title", "snippet", "hash", "score", "matches"}


@pytest.fixture
def notes(kit: VaultKit) -> VaultKit:
    """A partition with records beside Obsidian-style notes at the root and in folders."""
    kit.page(
        "private/notes/harbour.md",
        "pg_harbour",
        "Harbour lights",
        type="note",
        body="The harbour lights were repaired in spring.\n",
    )
    kit.write("Harbour walk.md", "Evening walk along the harbour wall.\n\nSaw the #boats/sail again.\n")
    kit.write(
        "ideas/Lamp ideas.md",
        "---\naliases: [Lantern plans]\ntags: [projects]\n---\n# Lamps\n\nA brass lantern for the shed.\n",
    )
    kit.write("journal/2026-03-14.md", "Pi day: baked a pie.\n")
    kit.write("journals/2026_03_15.md", "- met:: Bob\n- planted beans\n")
    kit.write("meetings/standup.md", "---\ndate: 2026-03-16\n---\nStand-up about the marina.\n")
    return kit


def grep(vault: Vault, query: str, **options: object) -> dict[str, object]:
    return vault.grep(GrepQuery(query, **options))  # type: ignore[arg-type]


def paths(result: dict[str, object]) -> list[str]:
    return [h["path"] for h in result["hits"]]  # type: ignore[attr-defined, index]


def test_grep_kind_note_finds_notes_by_title_alias_tag_and_body(notes: VaultKit) -> None:
    vault = notes.scan()
    walk = grep(vault, "walk", kind="note")
    assert paths(walk) == ["Harbour walk.md"]
    (hit,) = walk["hits"]  # type: ignore[misc]
    assert set(hit) >= HIT_KEYS
    assert hit["kind"] == "note"
    assert hit["id"] is None
    assert hit["title"] == "Harbour walk"
    assert paths(grep(vault, "lantern plans", kind="note", mode="phrase")) == ["ideas/Lamp ideas.md"]
    assert paths(grep(vault, "projects", kind="note")) == ["ideas/Lamp ideas.md"]
    assert grep(vault, "projects", kind="note")["hits"][0]["matches"] == ["tags"]  # type: ignore[index]
    shed = grep(vault, "shed", kind="note")["hits"][0]  # type: ignore[index]
    assert shed["snippet"]["matchLocated"] is True
    assert shed["snippet"]["lineStart"] == 5  # lines of the file: the frontmatter counts
    # an inline tag is searchable, and narrows like a record's tag
    assert paths(grep(vault, "harbour", kind="note", tag="boats/sail")) == ["Harbour walk.md"]
    # without a kind, grep keeps to records (spec: retrieval-and-dates)
    assert paths(grep(vault, "harbour")) == ["private/notes/harbour.md"]


def test_notes_refuse_filters_only_records_have(notes: VaultKit) -> None:
    vault = notes.scan()
    for options in ({"types": frozenset(["person"])}, {"lifecycle": "all"}, {"time_field": "occurred_at"}):
        with pytest.raises(QueryError, match="notes have no"):
            grep(vault, "harbour", kind="note", **options)
    with pytest.raises(QueryError, match="no partition named"):
        vault.grep(GrepQuery("harbour", kind="note"), "nowhere")
    assert paths(vault.grep(GrepQuery("lantern", kind="note"), "ideas")) == ["ideas/Lamp ideas.md"]


def test_note_text_follows_edits_renames_and_adoption(notes: VaultKit) -> None:
    vault = notes.scan()
    assert paths(grep(vault, "wall", kind="note")) == ["Harbour walk.md"]
    notes.write("Harbour walk.md", "Morning swim instead.\n")
    vault.reconcile()
    assert grep(vault, "wall", kind="note")["total"] == 0
    assert paths(grep(vault, "swim", kind="note")) == ["Harbour walk.md"]
    (notes.root / "Harbour walk.md").rename(notes.root / "Swims.md")
    vault.reconcile()
    assert paths(grep(vault, "swim", kind="note")) == ["Swims.md"]
    # a note that becomes a record leaves the notes' index for the records'
    notes.page("private/notes/swims.md", "pg_swims", "Swims", type="note", body="Morning swim.\n")
    (notes.root / "Swims.md").unlink()
    vault.reconcile()
    assert grep(vault, "swim", kind="note")["total"] == 0
    assert paths(grep(vault, "swim")) == ["private/notes/swims.md"]


def test_search_lists_records_before_notes_and_pages_across_them(notes: VaultKit) -> None:
    vault = notes.scan()
    # "harbour" is in a note's title (weight 8) and only in a record's body: records still come first
    both = vault.search_text(GrepQuery("harbour"))
    assert paths(both) == ["private/notes/harbour.md", "Harbour walk.md"]
    assert both["total"] == 2
    first = vault.search_text(GrepQuery("harbour", limit=1))
    assert paths(first) == ["private/notes/harbour.md"]
    assert first["nextOffset"] == 1
    second = vault.search_text(GrepQuery("harbour", limit=1, offset=1))
    assert paths(second) == ["Harbour walk.md"]
    assert second["nextOffset"] is None
    # a filter only records have leaves notes out; kind note leaves records out
    assert paths(vault.search_text(GrepQuery("harbour", kind="page"))) == ["private/notes/harbour.md"]
    assert paths(vault.search_text(GrepQuery("harbour", kind="note"))) == ["Harbour walk.md"]


def test_lookup_falls_back_to_notes_by_file_name_and_alias(notes: VaultKit) -> None:
    vault = notes.scan()
    by_alias = vault.lookup("lantern PLANS", notes=True)
    assert by_alias["status"] == "found"
    assert by_alias["kind"] == "note"
    assert by_alias["record"]["path"] == "ideas/Lamp ideas.md"
    assert vault.lookup("Lamp ideas", notes=True)["record"]["path"] == "ideas/Lamp ideas.md"
    assert vault.lookup("2026-03-14.md", notes=True)["record"]["path"] == "journal/2026-03-14.md"
    # the spec's lookup (extensions, MCP) stays records only
    assert vault.lookup("lantern plans")["status"] == "missing"
    # a record named like a note wins: records first
    notes.page("private/people/lamp.md", "pg_lamp", "Lamp ideas", type="person")
    vault.reconcile()
    found = vault.lookup("Lamp ideas", notes=True)
    assert found["status"] == "found"
    assert found["record"]["id"] == "pg_lamp"
    assert "kind" not in found


def test_lookup_of_a_name_two_notes_share_is_ambiguous(notes: VaultKit) -> None:
    notes.write("other/Lamp ideas.md", "More lamps.\n")
    vault = notes.scan()
    result = vault.lookup("lamp ideas", notes=True)
    assert result["status"] == "ambiguous"
    assert [c["path"] for c in result["candidates"]] == ["ideas/Lamp ideas.md", "other/Lamp ideas.md"]


def test_switcher_suggests_notes_after_current_records(notes: VaultKit) -> None:
    vault = notes.scan()
    items = vault.suggest("harbour")["items"]
    assert [(i["path"], i["kind"]) for i in items] == [
        ("private/notes/harbour.md", "page"),
        ("Harbour walk.md", "note"),
    ]
    lantern = vault.suggest("lantern")["items"]
    assert [(i["path"], i["matched"], i["alias"]) for i in lantern] == [
        ("ideas/Lamp ideas.md", "alias", "Lantern plans")
    ]


def test_dated_notes_are_timeline_entries_of_kind_note(notes: VaultKit) -> None:
    vault = notes.scan()
    items = vault.timeline(notes=True)["items"]
    dated = [(i["kind"], i["path"], i["value"]) for i in items if i["kind"] == "note"]
    assert dated == [
        ("note", "journal/2026-03-14.md", "2026-03-14"),
        ("note", "journals/2026_03_15.md", "2026-03-15"),
        ("note", "meetings/standup.md", "2026-03-16"),
    ]
    day = vault.chronicle_day("2026-03-15", notes=True)["items"]
    assert [i["path"] for i in day] == ["journals/2026_03_15.md"]
    # the spec's timeline (extensions, MCP) lists records only; a record kind leaves notes out
    assert all(i["kind"] != "note" for i in vault.timeline()["items"])
    assert vault.timeline(notes=True, kind="meeting")["items"] == []
