"""Keyword search and exact lookup (spec: retrieval-and-dates — Query contract,
Superseded wording, Results and citations, Index behavior)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.query.inventory import RecordFilter
from tests.vaultkit import CHANGE, VaultKit


def grep(kit: VaultKit, query: str, **options: Any) -> dict[str, Any]:
    scope = options.pop("scope", None)
    return kit.scan().grep(GrepQuery(query, **options), scope)


def ids(result: dict[str, Any]) -> list[str]:
    return [hit["id"] for hit in result["hits"]]


@pytest.fixture
def notes(kit: VaultKit) -> VaultKit:
    kit.page(
        "private/notes/a.md",
        "pg_a",
        "Harbour lights",
        type="note",
        aliases=["Beacon"],
        tags=["coast"],
        body="The harbour lights were repaired in spring.\n",
    )
    kit.page(
        "private/notes/b.md",
        "pg_b",
        "Mountain huts",
        type="note",
        body="Lights in the mountain huts run on solar power.\nThe harbour is far.\n",
    )
    kit.page(
        "private/notes/c.md",
        "pg_c",
        "Café culture",
        type="note",
        tags=["Coast"],
        body="Crème brûlée at the café by the harbour.\n",
    )
    return kit


def test_all_words_must_match_by_default(notes: VaultKit) -> None:
    """Query contract: every word token must match unless mode says otherwise."""
    assert set(ids(grep(notes, "harbour lights"))) == {"pg_a", "pg_b"}
    assert ids(grep(notes, "harbour solar")) == ["pg_b"]


def test_any_mode_needs_one_word(notes: VaultKit) -> None:
    """Query contract: mode any matches records with any of the tokens."""
    assert set(ids(grep(notes, "solar brûlée", mode="any"))) == {"pg_b", "pg_c"}


def test_phrase_mode_needs_adjacent_words_in_one_field(notes: VaultKit) -> None:
    """Query contract: phrase needs the tokens in order and adjacent, within one field."""
    assert ids(grep(notes, "harbour lights", mode="phrase")) == ["pg_a"]
    assert ids(grep(notes, "lights harbour", mode="phrase")) == []


def test_matching_folds_case_and_diacritics(notes: VaultKit) -> None:
    """Query contract: case- and diacritic-insensitive matching."""
    assert ids(grep(notes, "CAFE creme brulee")) == ["pg_c"]


def test_no_stemming_or_prefixes(notes: VaultKit) -> None:
    """Query contract: no stemming and no prefix search."""
    assert ids(grep(notes, "light")) == []
    assert ids(grep(notes, "harb")) == []


@pytest.mark.parametrize(
    "hostile",
    [
        '"',
        "harbour*",
        "NEAR(harbour lights)",
        "^harbour",
        "title:harbour",
        "harbour OR solar",
        "NOT harbour",
        "harbour AND",
        "(lights",
    ],
)
def test_query_syntax_is_never_executed(notes: VaultKit, hostile: str) -> None:
    """Query contract: OR, NOT, column syntax and quotes are plain words, never FTS syntax."""
    if hostile == '"':
        with pytest.raises(QueryError):
            grep(notes, hostile)
        return
    result = grep(notes, hostile)
    assert result["index"]["state"] == "ready"
    if hostile == "harbour OR solar":
        assert ids(result) == []  # "or" is a word every record would need


def test_query_size_limits(notes: VaultKit) -> None:
    """Query contract: 1-64 word tokens within 500 characters."""
    with pytest.raises(QueryError):
        grep(notes, "... ---")
    with pytest.raises(QueryError):
        grep(notes, " ".join(["w"] * 65))
    with pytest.raises(QueryError):
        grep(notes, "x" * 501)
    assert grep(notes, " ".join(["lights"] * 64))["total"] == 2


def test_limit_and_offset_ranges(notes: VaultKit) -> None:
    """Query contract: limit 1-50 (default 20) and offset 0-500, with nextOffset."""
    for bad in ({"limit": 0}, {"limit": 51}, {"offset": -1}, {"offset": 501}):
        with pytest.raises(QueryError):
            grep(notes, "harbour", **bad)
    first = grep(notes, "harbour", limit=2)
    assert (len(first["hits"]), first["total"], first["nextOffset"]) == (2, 3, 2)
    second = grep(notes, "harbour", limit=2, offset=2)
    assert (len(second["hits"]), second["nextOffset"]) == (1, None)
    assert set(ids(first) + ids(second)) == {"pg_a", "pg_b", "pg_c"}


def test_title_outranks_aliases_outranks_body(kit: VaultKit) -> None:
    """Results: BM25 weights title 8, aliases 6, body 1; scores are positive."""
    kit.page("private/notes/t.md", "pg_t", "Lantern", type="note", body="Other words here.\n")
    kit.page(
        "private/notes/a.md",
        "pg_al",
        "Something",
        type="note",
        aliases=["Lantern"],
        body="Other words here.\n",
    )
    kit.page("private/notes/b.md", "pg_bo", "Else", type="note", body="A lantern here.\n")
    result = grep(kit, "lantern")
    assert ids(result) == ["pg_t", "pg_al", "pg_bo"]
    assert all(hit["score"] > 0 for hit in result["hits"])
    assert result["hits"][0]["matches"] == ["title"]


def test_filters_kind_type_tag(notes: VaultKit) -> None:
    """Query contract: kind, type with aliases, and exact case-sensitive tags filter first."""
    notes.page("private/companies/h.md", "pg_h", "Harbour Co", type="company")
    assert ids(grep(notes, "harbour", types=frozenset({"organization"}))) == ["pg_h"]
    assert ids(grep(notes, "harbour", tag="coast")) == ["pg_a"]
    assert ids(grep(notes, "harbour", tag="Coast")) == ["pg_c"]
    assert ids(grep(notes, "harbour", kind="claim")) == []


def test_date_filters_apply_before_ranking(kit: VaultKit) -> None:
    """Dates: bounds are inclusive and a date-only upper bound covers the whole day."""
    kit.claim("private/claims/a.md", "cl_a", "Kiln fired", occurred_at="2026-03-31")
    kit.claim("private/claims/b.md", "cl_b", "Kiln cooled", occurred_at="2026-04-01T23:59:59Z")
    kit.claim("private/claims/c.md", "cl_c", "Kiln bought")
    march = grep(kit, "kiln", time_field="occurred_at", since="2026-03-01", until="2026-03-31")
    assert ids(march) == ["cl_a"]
    april = grep(kit, "kiln", time_field="occurred_at", since="2026-04-01", until="2026-04-01")
    assert ids(april) == ["cl_b"]
    with pytest.raises(QueryError):
        grep(kit, "kiln", time_field="occurred_at", since="April")


def test_ineligible_records_are_never_found(kit: VaultKit) -> None:
    """Query contract: invalid, duplicate, withdrawn and hidden records are excluded."""
    kit.page("private/notes/ok.md", "pg_ok", "Quartz ok", type="note")
    kit.page("private/notes/bad.md", "pg_bad", "Quartz bad", type="spaceship")
    kit.page("private/notes/d1.md", "pg_d", "Quartz dup one", type="note")
    kit.page("private/notes/d2.md", "pg_d", "Quartz dup two", type="note")
    kit.claim(
        "private/claims/w.md", "cl_w", "Quartz withdrawn", lifecycle="withdrawn", lifecycle_change=CHANGE
    )
    kit.claim("private/claims/h.md", "cl_h", "Quartz hidden", entities=["pg_bad"])
    kit.claim("private/claims/e.md", "cl_e", "Quartz expired", expires_at="2020-01-01T00:00:00Z")
    assert ids(grep(kit, "quartz")) == ["pg_ok"]
    assert ids(grep(kit, "quartz", lifecycle="all")) == ["pg_ok"]


def superseded_chain(kit: VaultKit) -> None:
    kit.claim(
        "private/claims/v1.md",
        "cl_v1",
        "Ferry leaves at nine",
        lifecycle="superseded",
        superseded_by="cl_v2",
        lifecycle_change=CHANGE,
        body="The ferry leaves at nine.",
    )
    kit.claim(
        "private/claims/v2.md",
        "cl_v2",
        "Ferry leaves at ten",
        lifecycle="superseded",
        superseded_by="cl_v3",
        supersedes="cl_v1",
        lifecycle_change=CHANGE,
        body="The boat leaves at ten.",
    )
    kit.claim(
        "private/claims/v3.md",
        "cl_v3",
        "Departure at eleven",
        supersedes="cl_v2",
        claim_kind="event",
        body="Departure is at eleven sharp.",
    )


def test_superseded_wording_finds_the_current_record(kit: VaultKit) -> None:
    """Superseded wording: a query worded like an old version returns the current one,
    with via, matches superseded, a null score and an opening excerpt."""
    superseded_chain(kit)
    result = grep(kit, "ferry nine")
    (hit,) = result["hits"]
    assert hit["id"] == "cl_v3"
    assert hit["matches"] == ["superseded"]
    assert hit["score"] is None
    assert hit["snippet"]["matchLocated"] is False
    assert hit["snippet"]["start"] == 0
    assert hit["via"]["id"] == "cl_v1"
    assert set(hit["via"]) == {"id", "revision", "title", "path", "hash"}
    assert hit["citation"]["id"] == "cl_v3"
    assert result["total"] == 1


def test_replacements_follow_direct_matches_and_appear_once(kit: VaultKit) -> None:
    """Superseded wording: replacements rank after every direct hit; a record that is a
    direct match, or already reached, is listed once."""
    superseded_chain(kit)
    kit.claim("private/claims/other.md", "cl_o", "Ferry timetable", body="Ferry times.")
    result = grep(kit, "ferry", mode="any")
    assert ids(result) == ["cl_o", "cl_v3"]
    assert result["total"] == 2
    both = grep(kit, "departure ferry", mode="any")
    assert sorted(ids(both)) == ["cl_o", "cl_v3"]
    assert both["total"] == 2


def test_filters_apply_to_the_current_record(kit: VaultKit) -> None:
    """Superseded wording: kind/type/tag/date filters judge the returned current record."""
    superseded_chain(kit)
    assert ids(grep(kit, "ferry nine", types=frozenset({"event"}))) == ["cl_v3"]
    assert ids(grep(kit, "ferry nine", types=frozenset({"fact"}))) == []


def test_a_broken_chain_returns_nothing(kit: VaultKit) -> None:
    """Superseded wording: a chain reaching a withdrawn or missing record gives no hit."""
    kit.claim(
        "private/claims/v1.md",
        "cl_v1",
        "Ferry leaves at nine",
        lifecycle="superseded",
        superseded_by="cl_gone",
        lifecycle_change=CHANGE,
    )
    kit.claim(
        "private/claims/v2.md",
        "cl_v2",
        "Ferry at noon",
        lifecycle="superseded",
        superseded_by="cl_w",
        lifecycle_change=CHANGE,
    )
    kit.claim("private/claims/w.md", "cl_w", "Withdrawn one", lifecycle="withdrawn", lifecycle_change=CHANGE)
    assert grep(kit, "ferry")["total"] == 0


def test_historical_lifecycles_return_superseded_records_directly(kit: VaultKit) -> None:
    """Superseded wording: lifecycle superseded/all return earlier records, no replacements."""
    superseded_chain(kit)
    assert set(ids(grep(kit, "ferry", lifecycle="superseded"))) == {"cl_v1", "cl_v2"}
    assert set(ids(grep(kit, "ferry", lifecycle="all"))) == {"cl_v1", "cl_v2"}
    assert ids(grep(kit, "departure", lifecycle="all")) == ["cl_v3"]


def test_snippets_locate_the_match_with_lines(kit: VaultKit) -> None:
    """Results: at most 480 UTF-16 units, zero-based offsets, one-based file lines."""
    body = "Intro line.\n\n" + ("filler words " * 80) + "\nThe walrus appears here.\n"
    kit.page("private/notes/w.md", "pg_w", "Zoo", type="note", body=body)
    (hit,) = grep(kit, "walrus")["hits"]
    snippet = hit["snippet"]
    assert "walrus" in snippet["text"]
    assert snippet["matchLocated"] is True
    assert snippet["end"] - snippet["start"] <= 480
    assert body[snippet["start"] : snippet["end"]] == snippet["text"]
    assert snippet["lineEnd"] == 16  # ---, 10 keys, ---, intro, blank, filler, match line
    assert hit["hash"] == hit["citation"]["sha256"]


def test_snippets_count_utf16_units(kit: VaultKit) -> None:
    """Results: offsets and length are UTF-16 code units (astral characters count two)."""
    kit.page("private/notes/e.md", "pg_e", "Emoji", type="note", body="😀" * 300 + " kelp")
    (hit,) = grep(kit, "emoji")["hits"]
    snippet = hit["snippet"]
    assert snippet["end"] - snippet["start"] == 480
    assert len(snippet["text"]) == 240


def test_huge_bodies_get_an_opening_excerpt(kit: VaultKit) -> None:
    """Results: for bodies over 64 KiB the snippet is the opening, matchLocated false."""
    kit.page("private/notes/big.md", "pg_big", "Big", type="note", body="start " + "x " * 40000 + "needle\n")
    (hit,) = grep(kit, "needle")["hits"]
    assert hit["snippet"]["matchLocated"] is False
    assert hit["snippet"]["text"].startswith("start")


def test_at_most_three_verified_evidence_locators(kit: VaultKit) -> None:
    """Results: up to three verified locators and evidenceTruncated for more."""
    for i in range(5):
        kit.page(f"private/sources/s{i}.md", f"pg_s{i}", f"Source {i}", type="source")
    kit.claim(
        "private/claims/c.md",
        "cl_c",
        "Otters",
        body="Otters hold hands.",
        evidence=[{"source": f"pg_s{i}"} for i in range(5)] + [{"path": "nope.md"}],
    )
    (hit,) = grep(kit, "otters")["hits"]
    assert len(hit["evidence"]) == 3
    assert hit["evidenceTruncated"] is True
    assert hit["attribution"] == "Ada in the stand-up"
    assert hit["assertionOrigin"] == "source"


def test_index_reports_state_snapshot_coverage_and_freshness(notes: VaultKit) -> None:
    """Index behavior: ready, no lag, a snapshot that moves with edits, coverage, freshness."""
    first = grep(notes, "harbour")
    assert first["index"] == {"state": "ready", "lag": False}
    assert first["coverage"] == {"complete": True}
    assert set(first["freshness"]) == {"queriedAt", "scannedAt", "indexedAt"}
    notes.page("private/notes/d.md", "pg_d", "Harbour master", type="note")
    second = grep(notes, "harbour")
    assert second["snapshot"] != first["snapshot"]
    assert second["total"] == 4
    notes.write("private/notes/broken.md", "---\nformat: knowledge-record-v1\ntitle: [\n---\n")
    assert grep(notes, "harbour")["coverage"] == {"complete": False}


def test_only_changed_records_are_reindexed(notes: VaultKit) -> None:
    """Index behavior: a search indexes pending text first, and only records whose content
    hash changed are re-indexed; a scan alone leaves the text index as it was."""
    vault = notes.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    before = dict(conn.execute("SELECT path, rowid FROM keyword_rows_v1_private"))
    hashes = dict(conn.execute("SELECT path, sha256 FROM keyword_rows_v1_private"))
    notes.page("private/notes/b.md", "pg_b", "Mountain huts", type="note", body="Now snowy.\n")
    vault.reconcile()
    assert dict(conn.execute("SELECT path, rowid FROM keyword_rows_v1_private")) == before
    assert ids(vault.grep(GrepQuery("snowy"))) == ["pg_b"]
    after = dict(conn.execute("SELECT path, rowid FROM keyword_rows_v1_private"))
    assert {p: r for p, r in after.items() if p != "private/notes/b.md"} == {
        p: r for p, r in before.items() if p != "private/notes/b.md"
    }
    # b's row was replaced (its rowid may be reused: it can be the highest one)
    changed = dict(conn.execute("SELECT path, sha256 FROM keyword_rows_v1_private"))
    assert changed["private/notes/b.md"] != hashes["private/notes/b.md"]


def test_a_missing_keyword_table_is_rebuilt(notes: VaultKit) -> None:
    """What is rebuildable: a dropped FTS table comes back on the next open."""
    vault = notes.scan()
    with vault.store.write() as tx:
        tx.execute("DROP TABLE keyword_fts_v1_private")
    notes.close()
    assert ids(grep(notes, "solar")) == ["pg_b"]


def test_scopes_have_separate_statistics(kit: VaultKit) -> None:
    """Results: other partitions cannot affect rank or counts of a partition's search."""
    kit.page("private/notes/a.md", "pg_a", "Reef", type="note", body="reef reef coral")
    kit.page("private/notes/b.md", "pg_b", "Other", type="note", body="coral only")
    alone = grep(kit, "coral", scope="private")
    for i in range(20):
        kit.page(f"work/notes/n{i}.md", f"pg_w{i}", f"Coral {i}", type="note", body="coral")
    again = grep(kit, "coral", scope="private")
    assert [h["score"] for h in again["hits"]] == [h["score"] for h in alone["hits"]]
    assert again["total"] == 2


# -- exact lookup -------------------------------------------------------------------------------


def test_lookup_by_id_title_and_alias(notes: VaultKit) -> None:
    """Lookup: exact id (case-sensitive), or normalised full title or alias."""
    vault = notes.scan()
    assert vault.lookup("pg_a")["record"]["id"] == "pg_a"
    assert vault.lookup("PG_A")["status"] == "missing"
    assert vault.lookup("  harbour   LIGHTS ")["record"]["id"] == "pg_a"
    assert vault.lookup("beacon")["record"]["id"] == "pg_a"
    assert vault.lookup("harbour")["status"] == "missing"  # never fuzzy


def test_lookup_normalises_with_nfkc(kit: VaultKit) -> None:
    """Lookup: names compare after NFKC (full-width letters equal ASCII)."""
    kit.page("private/notes/a.md", "pg_a", "Kiosk", type="note")
    assert kit.scan().lookup("ＫＩＯＳＫ")["record"]["id"] == "pg_a"


def test_lookup_ambiguity_covers_all_matches(kit: VaultKit) -> None:
    """Lookup: ambiguity is judged over every match (title of one, alias of another)."""
    kit.page("private/notes/a.md", "pg_a", "Anchor", type="note")
    kit.page("private/notes/b.md", "pg_b", "Boat", type="note", aliases=["anchor"])
    result = kit.scan().lookup("Anchor")
    assert result["status"] == "ambiguous"
    assert [c["id"] for c in result["candidates"]] == ["pg_a", "pg_b"]


def test_lookup_ignores_duplicates_and_ineligible_records(kit: VaultKit) -> None:
    """Lookup: duplicate ids return no record; withdrawn ones are not candidates."""
    kit.page("private/notes/a.md", "pg_d", "Twin", type="note")
    kit.page("private/notes/b.md", "pg_d", "Twin", type="note")
    kit.page(
        "private/notes/c.md", "pg_w", "Gone", type="note", lifecycle="withdrawn", lifecycle_change=CHANGE
    )
    vault = kit.scan()
    assert vault.lookup("pg_d")["status"] == "missing"
    assert vault.lookup("Twin")["status"] == "missing"
    assert vault.lookup("Gone")["status"] == "missing"
    assert vault.lookup("Gone", RecordFilter(include_ineligible=True, lifecycle="all"))["status"] == "found"


def test_lookup_limits(kit: VaultKit) -> None:
    """Lookup: up to 200 characters."""
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    with pytest.raises(QueryError):
        kit.scan().lookup("x" * 201)


def test_a_keyword_table_lost_while_open_is_rebuilt_on_the_next_query(notes: VaultKit) -> None:
    """Index behavior: a failed retrieval rebuilds the projection and answers."""
    vault = notes.scan()
    with vault.store.write() as tx:
        tx.execute("DROP TABLE keyword_rows_v1_private")
    result = vault.grep(GrepQuery("solar"))
    assert ids(result) == ["pg_b"]
    assert result["index"]["state"] == "ready"


def test_a_search_indexes_only_queued_files_and_reports_lag(notes: VaultKit) -> None:
    """Index behavior: text waits in a queue until a search; a file that changed again after
    the scan is skipped and reported as lag, then caught up by the next reconcile."""
    vault = notes.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    assert conn.execute("SELECT count(*) FROM keyword_pending_v1").fetchone()[0] == 0
    notes.page("private/notes/b.md", "pg_b", "Mountain huts", type="note", body="Foggy.\n")
    vault.reconcile()
    assert [p for (p,) in conn.execute("SELECT path FROM keyword_pending_v1")] == ["private/notes/b.md"]
    notes.page("private/notes/b.md", "pg_b", "Mountain huts", type="note", body="Sunny.\n")
    lagging = vault.grep(GrepQuery("foggy"))
    assert lagging["index"]["lag"] is True
    vault.reconcile()
    fresh = vault.grep(GrepQuery("sunny"))
    assert (ids(fresh), fresh["index"]["lag"]) == (["pg_b"], False)


@pytest.mark.parametrize("filler", [10, 20_000])  # a short body, and one past LOCATE_LIMIT
def test_a_hits_body_searched_once_gives_the_snippet_a_search_for_it_gives(filler: int) -> None:
    """A hit's fields and snippet come from one search of its folded body (`grep_hits`):
    the snippet is the one `snippet` places, by the match or, in a long body, from the start."""
    body = "Intro line.\n" + "word " * filler + "the Résumé review café\n" + "tail " * 50
    for words in (["resume"], ["cafe", "review"], ["absent"]):
        found = textmod.first_match(body, words)
        assert (found is not None) == ("body" in textmod.field_matches(words, body=body))
        assert textmod.snippet_in_body(body, found) == textmod.snippet(body, words)
