"""Notes in search by meaning (issue 27 §2 "records, notes and documents"; notes: issue 25):
embedded from the notes' text index, queued by reconcile, searched beside records without
moving them, and listed as Related."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.store.projections.semantic_queue import NOTES
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit

LEAVE = "Tomas is on parental leave until September, looking after his baby daughter.\n"
BREAD = "Grocery list: flour, yeast and salt.\n\nBake the sourdough loaf on Sunday morning.\n"


@pytest.fixture
def kit(tmp_path: Path) -> VaultKit:
    kit = VaultKit(tmp_path / "v")
    kit.page(
        "private/people/tomas.md",
        "pg_tomas",
        "Tomas Lindqvist",
        "Tomas builds the mobile app.\n",
        type="person",
    )
    kit.page(
        "private/notes/maps.md", "pg_maps", "Maps", "Vector tiles cached for offline hiking.\n", type="note"
    )
    kit.write("private/journal/leave.md", "---\naliases: [Time off]\n---\n" + LEAVE)
    kit.write("Baking.md", BREAD)
    return kit


@pytest.fixture
def vault(kit: VaultKit) -> Iterator[Vault]:
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        yield vault


def note_chunks(vault: Vault) -> dict[str, str]:
    rows = vault.store.reader().execute("SELECT path, sha256 FROM semantic_chunks_v1 WHERE scope=?", (NOTES,))
    return dict(rows.fetchall())


def found(result: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    return [(r["kind"], r["id"], r["path"]) for r in result["results"]]


def test_notes_are_embedded_from_their_text_under_their_own_scope(vault: Vault) -> None:
    vault.search(GrepQuery("bread", limit=5), "semantic", notes=True)
    assert set(note_chunks(vault)) == {"private/journal/leave.md", "Baking.md"}
    partition = (
        vault.store.reader()
        .execute("SELECT DISTINCT path FROM semantic_chunks_v1 WHERE scope='private'")
        .fetchall()
    )
    assert {p for (p,) in partition} == {"private/people/tomas.md", "private/notes/maps.md"}
    assert vault.meaning_pending(["private", NOTES]) == 0


def test_kind_note_finds_a_note_by_meaning_alone(vault: Vault) -> None:
    result = vault.search(GrepQuery("caring for a newborn", kind="note", limit=5), "semantic", notes=True)
    assert found(result)[0] == ("note", None, "private/journal/leave.md")
    assert {r["kind"] for r in result["results"]} == {"note"}
    top = result["results"][0]
    assert top["title"] == "leave"
    assert top["type"] is None
    assert top["semanticRank"] == 1
    assert "parental leave" in top["snippet"]["text"]


def test_by_default_notes_come_with_records_and_leave_their_order_alone(vault: Vault) -> None:
    q = GrepQuery("sourdough baking tiles Tomas", limit=20)
    alone = vault.search(q, "hybrid")
    both = vault.search(q, "hybrid", notes=True)
    assert {r["kind"] for r in alone["results"]} == {"page"}
    assert ("note", None, "Baking.md") in found(both)
    records = [r for r in both["results"] if r["kind"] != "note"]
    assert records == alone["results"]
    scores = [r["score"] for r in both["results"]]
    assert scores == sorted(scores, reverse=True)


def test_keyword_mode_lists_notes_after_every_record(vault: Vault) -> None:
    result = vault.search(GrepQuery("Tomas", limit=10), "keyword", notes=True)
    assert found(result) == [
        ("page", "pg_tomas", "private/people/tomas.md"),
        ("note", None, "private/journal/leave.md"),
    ]


def test_a_record_filter_leaves_notes_out_and_kind_note_needs_notes(vault: Vault) -> None:
    typed = vault.search(GrepQuery("Tomas baby", types=frozenset(["person"]), limit=10), "hybrid", notes=True)
    assert {r["kind"] for r in typed["results"]} == {"page"}
    with pytest.raises(QueryError):
        vault.search(GrepQuery("baby", kind="note", limit=5), "hybrid")


def test_an_edited_note_is_embedded_again_and_a_removed_one_loses_its_vectors(
    kit: VaultKit, vault: Vault
) -> None:
    vault.search(GrepQuery("bread", limit=5), "semantic", notes=True)
    before = note_chunks(vault)
    kit.write("Baking.md", "Rye crackers with seeds.\n")
    (kit.root / "private/journal/leave.md").unlink()
    vault.reconcile()
    assert vault.meaning_pending(["private", NOTES]) == 2
    result = vault.search(GrepQuery("crackers", kind="note", limit=5), "semantic", notes=True)
    after = note_chunks(vault)
    assert set(after) == {"Baking.md"}
    assert after["Baking.md"] != before["Baking.md"]
    assert found(result) == [("note", None, "Baking.md")]


def test_related_lists_notes_for_a_record_and_records_for_a_note(vault: Vault) -> None:
    of_record = vault.related("private/people/tomas.md", 5)
    assert ("note", "private/journal/leave.md") in {(r["kind"], r["path"]) for r in of_record}
    of_note = vault.related("Baking.md", 5)
    paths = [r["path"] for r in of_note]
    assert "Baking.md" not in paths
    assert "private/people/tomas.md" in paths
    assert "private/journal/leave.md" in paths


def test_scan_embed_embeds_everything_so_no_first_search_waits(
    kit: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    from knowledge_desktop import cli

    assert cli.main(["scan", str(kit.root), "--index-text", "--json"]) == 0
    capsys.readouterr()
    with Vault.open(kit.root) as vault:  # the words only: embedding is asked for apart
        assert vault.meaning_pending(["private", NOTES]) > 0
    assert cli.main(["scan", str(kit.root), "--embed", "--json"]) == 0
    capsys.readouterr()
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        assert vault.meaning_pending(["private", NOTES]) == 0
        assert set(note_chunks(vault)) == {"private/journal/leave.md", "Baking.md"}
        embedded = vault.store.reader().execute("SELECT count(DISTINCT path) FROM semantic_chunks_v1")
        assert embedded.fetchone()[0] == 4
        assert vault.index_meaning() == 0


def test_a_note_is_ranked_where_it_stands_among_the_records(vault: Vault) -> None:
    """A note alone in its kind is not first in both lists: by keyword it stands after every
    record hit, by meaning after the records nearer the query."""
    result = vault.search(GrepQuery("Tomas builds the mobile app", limit=10), "hybrid", notes=True)
    assert result["results"][0]["id"] == "pg_tomas"
    records = [r for r in result["results"] if r["kind"] != "note"]
    notes = [r for r in result["results"] if r["kind"] == "note"]
    assert min(r["keywordRank"] for r in notes if r["keywordRank"]) == 1 + sum(
        1 for r in records if r["keywordRank"]
    )
    assert min(r["semanticRank"] for r in notes) > 1
