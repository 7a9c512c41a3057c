"""Ranking from the stored term weights gives exactly the pages bm25() over every match gives
(spec: retrieval-and-dates — BM25 weights, filters before ranking, total,
offset and nextOffset). A few hundred generated records share a small
vocabulary, so most query words are in most records, as in a large vault."""

from __future__ import annotations

import json
import random
import sqlite3
from array import array
from typing import Any

import numpy as np
import pytest

from knowledge_desktop.engine.query import grep_ranking, kept, ranking
from knowledge_desktop.engine.query.grep_query import GrepQuery, match_expression
from knowledge_desktop.engine.store.projections import keyword, terms, weights
from tests.vaultkit import CHANGE, VaultKit

COMMON = ["review", "group", "design", "pilot", "launch", "vendor", "policy", "draft", "board", "plan"]
RARE = ["harbour", "glacier", "quartz", "lantern", "meadow"]
FILLER = ["the", "a", "of", "we", "team", "after", "with", "and", "for", "still"]
TAGS = ["alpha", "beta", "gamma"]
MONTHS = ["2025-01", "2025-02", "2025-03"]
MODES = ("all", "any", "phrase")


def _words(rng: random.Random, n: int) -> str:
    pool = COMMON * 3 + FILLER * 4 + RARE
    return " ".join(rng.choice(pool) for _ in range(n))


@pytest.fixture
def crowd(kit: VaultKit) -> VaultKit:
    rng = random.Random(7)
    for i in range(320):
        title = " ".join(rng.sample(COMMON + FILLER, rng.randint(1, 4))).capitalize()
        body = "\n\n".join(_words(rng, rng.randint(5, 120)) for _ in range(rng.randint(1, 3)))
        if i % 37 == 0:
            body += "\nCafé crème at the harbour, naïve résumé.\n"
        if i % 41 == 0:  # a combining accent: text only FTS5 itself can score
            body += "\nCafe\u0301 review of the design plan.\n"
        extra: dict[str, Any] = {"tags": rng.sample(TAGS, rng.randint(0, 2))}
        if rng.random() < 0.3:
            extra["aliases"] = [" ".join(rng.sample(COMMON, 2))]
        if i % 3 == 0:
            month = rng.choice(MONTHS)
            if i % 33 == 0:
                extra["expires_at"] = "2020-01-01T00:00:00Z"  # outside its window: left out
            if i % 39 == 0:
                extra["valid_from"] = "2099-01-01T00:00:00Z"
            if i < 60:
                extra["supersedes"] = f"cl_old{i:03}"
            kit.claim(
                f"private/claims/c{i:03}.md", f"cl_{i:03}", title, body, **extra, occurred_at=f"{month}-15"
            )
        else:
            kit.page(f"private/notes/n{i:03}.md", f"pg_{i:03}", title, body, type="note", **extra)
    earlier = random.Random(5)
    for i in range(0, 60, 3):  # superseded wording: earlier versions of current claims
        kit.claim(
            f"private/claims/old{i:03}.md",
            f"cl_old{i:03}",
            _words(earlier, 3).capitalize(),
            _words(earlier, earlier.randint(5, 80)),
            lifecycle="superseded",
            superseded_by=f"cl_{i:03}",
            lifecycle_change=CHANGE,
        )
    return kit


def _queries(rng: random.Random, count: int) -> list[GrepQuery]:
    out = []
    for _ in range(count):
        mode = rng.choice(["all", "any", "phrase"])
        n = rng.choice([1, 1, 2, 3])
        pool = COMMON if rng.random() < 0.8 else COMMON + RARE + FILLER
        words = [rng.choice(pool) for _ in range(n)]
        options: dict[str, Any] = {}
        choice = rng.choice(["none", "none", "kind", "tag", "month", "kind+tag"])
        if "kind" in choice:
            options["kind"] = rng.choice(["page", "claim"])
        if "tag" in choice:
            options["tag"] = rng.choice(TAGS)
        if choice == "month":
            month = rng.choice(MONTHS)
            options.update(time_field="occurred_at", since=f"{month}-01", until=f"{month}-28")
        out.append(
            GrepQuery(
                " ".join(words),
                mode=mode,
                limit=rng.choice([1, 5, 20, 50]),
                offset=rng.choice([0, 0, 3, 20, 60]),
                **options,
            )
        )
    return out


def _page(result: dict[str, Any]) -> tuple[Any, ...]:
    return (
        result["total"],
        result["nextOffset"],
        [(h["id"], h["score"], h["matches"]) for h in result["hits"]],
    )


def _exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_ranking, "_ranked_weights", lambda *a, **k: None)


def _weights_path(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Take the term-weights path even on a small vault; count how often it answered."""
    used = {"weights": 0, "declined": 0}
    ranked = grep_ranking._ranked_weights

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = ranked(*args, **kwargs)
        used["weights" if found is not None else "declined"] += 1
        return found

    monkeypatch.setattr(grep_ranking, "EXACT_BELOW", 0)
    monkeypatch.setattr(grep_ranking, "_ranked_weights", spy)
    return used


def test_weights_path_pages_equal_full_scoring(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page, score, total and nextOffset equals the one bm25() over every match gives."""
    vault = crowd.scan()
    vault.index_keywords()
    queries = _queries(random.Random(11), 240)
    with monkeypatch.context() as m:
        _exact(m)
        expected = [_page(vault.grep(q)) for q in queries]
    used = _weights_path(monkeypatch)
    for q, want in zip(queries, expected, strict=True):
        assert _page(vault.grep(q)) == want, q
    assert used["weights"] > 150, used  # the comparison exercised the weights path
    # with more ineligible or windowed rows than the exceptions index is read for,
    # eligibility and window are listed from the rows table instead
    monkeypatch.setattr(grep_ranking, "MAX_EXCEPTIONS", 0)
    monkeypatch.setattr(grep_ranking, "EXCEPTIONS_SHARE", 1 << 40)
    for q, want in zip(queries[:60], expected, strict=False):
        assert _page(vault.grep(q)) == want, q


def test_exceptions_few_beside_the_records_are_left_out_one_by_one(
    crowd: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `MAX_EXCEPTIONS`, ineligible and windowed rows are still left out one by one
    while they are a small share of the partition's slots (a million records hold ~830):
    the rows table is not listed whole, and the pages are those bm25() gives."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    index = keyword.exceptions_index("private")
    (exceptions,) = conn.execute(
        f"SELECT count(*) FROM keyword_rows_v1_private INDEXED BY {index} WHERE {keyword.EXCEPTIONS}"
    ).fetchone()
    slots = len(ranking.layout(conn, "private").sizes)
    assert 1 < exceptions <= slots // getattr(grep_ranking, "EXCEPTIONS_SHARE", 16), (exceptions, slots)
    queries = [GrepQuery(w, mode=m) for w in ("review", "design plan", "group") for m in ("all", "any")]
    with monkeypatch.context() as m:
        _exact(m)
        expected = [_page(vault.grep(q)) for q in queries]
    used = _weights_path(monkeypatch)
    monkeypatch.setattr(grep_ranking, "MAX_EXCEPTIONS", 1)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        got = [_page(vault.grep(q)) for q in queries]
    finally:
        conn.set_trace_callback(None)
    assert got == expected
    assert used["weights"] == len(queries), used
    assert any(f"INDEXED BY {index}" in s for s in statements)
    assert not [s for s in statements if "FROM keyword_rows_v1_private r WHERE r.eligible=1" in s]


def test_left_out_rows_follow_edits(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unfiltered totals subtract the ineligible and windowed rows that match; the
    partial index they are read from follows edits that expire or restore a record."""
    vault = crowd.scan()
    vault.index_keywords()
    queries = [GrepQuery(w, mode=m) for w in ("review", "design plan", "group") for m in ("all", "any")]

    def pages(arrays: bool) -> list[tuple[Any, ...]]:
        with monkeypatch.context() as m:
            if arrays:
                m.setattr(grep_ranking, "EXACT_BELOW", 0)
            else:
                _exact(m)
            return [_page(vault.grep(q)) for q in queries]

    assert pages(True) == pages(False)
    text = (crowd.root / "private/claims/c003.md").read_text("utf-8")
    crowd.write(
        "private/claims/c003.md", text.replace("---\n", "---\nexpires_at: '2020-01-01T00:00:00Z'\n", 1)
    )
    crowd.write("private/claims/c033.md", (crowd.root / "private/claims/c036.md").read_text("utf-8"))
    crowd.scan()
    vault.index_keywords()
    assert pages(True) == pages(False)
    conn = vault.store.reader()
    index = keyword.exceptions_index("private")
    listed = {
        r
        for (r,) in conn.execute(
            f"SELECT rowid FROM keyword_rows_v1_private INDEXED BY {index} WHERE {keyword.EXCEPTIONS}"
        )
    }
    assert listed == {
        r
        for (r,) in conn.execute(
            "SELECT rowid FROM keyword_rows_v1_private WHERE eligible=0 OR active_from IS NOT NULL"
            " OR active_until IS NOT NULL"
        )
    }
    assert listed  # the crowd has expired, future and duplicate records


Postings = dict[tuple[str, int], tuple[int, list[int]]]


def _weights_from_fts5(conn: Any, fts: str) -> tuple[Postings, dict[int, list[int]]]:
    """Each (term, rowid)'s weighted frequency and positions, and each record's column
    lengths, as FTS5 itself holds them (positions run on from column to column)."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, {fts}, 'instance')")
    sizes = {int(r): terms.varints(sz) for r, sz in conn.execute(f"SELECT id, sz FROM {fts}_docsize")}
    weight = {"title": 8, "aliases": 6, "body": 1}
    postings: Postings = {}
    for term, doc, column, offset in conn.execute("SELECT term, doc, col, offset FROM temp.vocab"):
        title, aliases, _ = sizes[doc]
        start = {"title": 0, "aliases": title, "body": title + aliases}[column]
        f, where = postings.get((term, doc), (0, []))
        postings[(term, doc)] = (f + weight[column], sorted([*where, start + offset]))
    return postings, sizes


def _stored_weights(conn: Any, scope: str) -> tuple[Postings, dict[int, list[int]]]:
    table, lengths_table = weights.tables(scope)
    postings: Postings = {}
    for term, block, data, positions in conn.execute(f"SELECT term, block, postings, positions FROM {table}"):
        for offset, posting in weights.decode(data, positions).items():
            postings[(term, block * weights.BLOCK + offset)] = posting
    lengths = {}
    size = weights.BLOCK
    for block, sizes in conn.execute(f"SELECT block, sizes FROM {lengths_table}"):
        values = array("i", sizes)
        for offset in range(size):
            if values[offset]:
                total, title, aliases = values[offset], values[size + offset], values[2 * size + offset]
                lengths[block * size + offset] = [total, title, aliases]
    return postings, lengths


def test_weights_equal_fts5s_own_counts_after_edits(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stored weights of every record are FTS5's own instance counts, weighted —
    after the first index, edits, deletions and additions; unsure records hold none."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = sqlite3.connect(vault.store.path)  # the reader cannot create fts5vocab tables
    fts, _ = keyword.tables("private")

    def check() -> int:
        want_postings, want_sizes = _weights_from_fts5(conn, fts)
        got_postings, got_lengths = _stored_weights(conn, "private")
        unsure = {r for r, n in got_lengths.items() if n[0] == weights.UNSURE}
        assert got_lengths == {
            r: [weights.UNSURE, 0, 0] if r in unsure else [sum(n), n[0], n[1]] for r, n in want_sizes.items()
        }
        assert got_postings == {k: f for k, f in want_postings.items() if k[1] not in unsure}
        return len(unsure)

    assert check() > 0  # the crowd has records with a combining accent
    crowd.page("private/notes/n001.md", "pg_001", "Glacier", "glacier glacier glacier", type="note")
    (crowd.root / "private/notes/n002.md").unlink()
    for i in range(10, 40, 2):  # more records gone from one block than an edit drops
        (crowd.root / f"private/notes/n{i + 1:03}.md").unlink(missing_ok=True)
    crowd.page("private/notes/extra.md", "pg_extra", "Quartz review", "quartz lantern review", type="note")
    crowd.write(
        "private/notes/n004.md", (crowd.root / "private/notes/n004.md").read_text("utf-8") + "\nmeadow\n"
    )
    crowd.scan()
    vault.index_keywords()
    check()
    monkeypatch.setattr(grep_ranking, "EXACT_BELOW", 0)
    hits = vault.grep(GrepQuery("glacier", limit=50))
    assert "pg_001" in [h["id"] for h in hits["hits"]]
    assert "pg_002" not in [h["id"] for h in vault.grep(GrepQuery("review", limit=50, offset=0))["hits"]]


def test_unsure_text_is_marked() -> None:
    """Text our tokenizer might split unlike FTS5 holds no weights: bm25() scores it."""
    assert weights.record_terms(("Cafe\u0301", "", "body"), [1, 0, 1]) is None
    found = weights.record_terms(("Café", "", "review, café review"), [1, 0, 3])
    assert found is not None
    assert found.terms == ["cafe", "review", "cafe", "review"]
    assert found.postings() == {"cafe": (9, [0, 2]), "review": (2, [1, 3])}
    assert weights.record_terms(("Café", "", ""), [2, 0, 0]) is None  # FTS5 counted otherwise
    assert weights.record_terms(("", "", "a " * 70000), [0, 0, 70000]) is None  # past uint16


def test_array_scores_are_bm25_to_the_bit(crowd: VaultKit) -> None:
    """Scores computed in arrays from the stored weights and positions equal SQLite's
    bm25() exactly, for every matching record: repeated words, phrases that repeat a
    word or overlap themselves, and phrases that would run across two columns."""
    crowd.page("private/notes/z1.md", "pg_z1", "Review", "review review review design", type="note")
    crowd.page("private/notes/z2.md", "pg_z2", "Plan design", "review design plan", type="note")
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    fts, _ = keyword.tables("private")
    records, tokens = terms.totals(conn, "private") or (0, 0)
    layout = ranking.layout(conn, "private")
    compared = 0
    queries = [
        ("review", "all"),
        ("design plan", "all"),
        ("design design plan", "all"),
        ("harbour review glacier", "any"),
        ("the team", "phrase"),
        ("review review", "phrase"),
        ("design plan", "phrase"),
        ("review design plan", "phrase"),
        ("plan design review", "phrase"),
    ]
    for text, mode in queries:
        words = text.split()
        match = match_expression(words, mode)
        phrases = [match] if mode == "phrase" else [f'"{w}"' for w in words]
        idf = [
            grep_ranking._idf(
                records, conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (p,)).fetchone()[0]
            )
            for p in phrases
        ]
        if mode == "phrase":
            found = {w: ranking.term(conn, "private", layout, w, True).occurrences() for w in words}
            freqs = [ranking.phrase_frequencies(layout, [found[w] for w in words])]
        else:
            freqs = [ranking.term(conn, "private", layout, w, False).frequencies(layout) for w in words]
        slots = np.flatnonzero(layout.sizes > 0)
        lengths = layout.sizes[slots].astype(np.float64)
        scores = ranking.bm25([f[slots] for f in freqs], idf, lengths, tokens / records)
        held = [f[slots] > 0 for f in freqs]
        matched = np.logical_or.reduce(held) if mode == "any" else np.logical_and.reduce(held)
        got = dict(zip(layout.rowids(slots[matched]).tolist(), scores[matched].tolist(), strict=True))
        expected = {
            r: s
            for r, s in conn.execute(
                f"SELECT rowid, -{grep_ranking.bm25_sql(fts)} FROM {fts} WHERE {fts} MATCH ?", (match,)
            )
            if layout.sizes[layout.slots(np.array([r]))[0]] != weights.UNSURE
        }
        assert got == expected, text
        compared += len(expected)
    assert compared > 800


def test_totals_count_each_reached_current_record_once(
    crowd: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search's total is its direct matches plus the current records that matching
    superseded records lead to (one step here) and that do not match themselves —
    counted from the tables, on both ranking paths."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    fts, rows = keyword.tables("private")
    hfts, hrows = keyword.tables("private", True)
    at = "2026-01-01T00:00:00Z"
    live = (
        "r.eligible=1 AND (r.active_from IS NULL OR r.active_from <= ?)"
        " AND (r.active_until IS NULL OR r.active_until > ?)"
    )

    replaced: list[int] = []

    def expected(words: list[str], mode: str) -> int:
        match = match_expression(words, mode)
        direct = {
            r
            for (r,) in conn.execute(
                f"SELECT r.rowid FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
                f" WHERE {fts} MATCH ? AND {live}",
                (match, at, at),
            )
        }
        reached = {
            r
            for (r,) in conn.execute(
                f"SELECT r.rowid FROM {hfts} JOIN {hrows} h ON h.rowid = {hfts}.rowid"
                f" JOIN {rows} r ON r.id = h.superseded_by WHERE {hfts} MATCH ? AND h.eligible=1 AND {live}",
                (match, at, at),
            )
        }
        replaced.append(len(reached - direct))
        return len(direct) + len(reached - direct)

    cases = [
        (w.split(), m) for w in ("review", "design plan", "the", "glacier", "board draft") for m in MODES
    ]
    for arrays in (False, True):
        with monkeypatch.context() as m:
            if arrays:
                m.setattr(grep_ranking, "EXACT_BELOW", 0)
            else:
                _exact(m)
            for words, mode in cases:
                got = vault.grep(GrepQuery(" ".join(words), mode=mode, at=at, limit=5))
                assert got["total"] == expected(words, mode), (words, mode, arrays)
    assert any(replaced)  # some superseded wording reached a record that does not match


def test_an_edit_merges_postings_in_offset_order() -> None:
    """Rewriting one (term, block) row drops the records gone and slots new ones in
    by offset, each record's positions moving with it."""
    stored = weights._merged(None, np.zeros(0, np.uint16), {2: (1, [7]), 9: (9, [0, 3])})
    assert stored is not None
    assert weights.decode(*stored) == {2: (1, [7]), 9: (9, [0, 3])}
    merged = weights._merged(stored, np.array([2], np.uint16), {5: (2, [1, 4]), 0: (8, [0])})
    assert merged is not None
    assert weights.decode(*merged) == {0: (8, [0]), 5: (2, [1, 4]), 9: (9, [0, 3])}
    assert list(weights.decode(*merged)) == [0, 5, 9]
    assert weights._merged(merged, np.array([0, 5, 9], np.uint16), {}) is None


def test_tag_table_follows_edits(crowd: VaultKit) -> None:
    """The current rows listed under each tag are exactly those whose tags hold it,
    after edits that change, add and remove tags and a deletion."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    _, rows = keyword.tables("private")
    tags = keyword.tags_table("private")

    def check() -> None:
        listed = set(conn.execute(f"SELECT tag, rowid FROM {tags}").fetchall())
        expected = {
            (tag, rowid)
            for rowid, held in conn.execute(f"SELECT rowid, tags FROM {rows}")
            for tag in json.loads(held)
        }
        assert listed == expected
        assert listed

    check()
    crowd.page("private/notes/n001.md", "pg_001", "Glacier", "glacier", type="note", tags=["delta", "alpha"])
    crowd.page("private/notes/n002.md", "pg_002", "Glacier", "glacier", type="note")
    (crowd.root / "private/notes/n004.md").unlink()
    crowd.scan()
    vault.index_keywords()
    check()
    assert vault.grep(GrepQuery("glacier", tag="delta"))["total"] == 1


def test_a_kept_layout_is_read_again_after_a_commit(crowd: VaultKit) -> None:
    """Searches keep a partition's layout between queries only while nothing was
    committed: after an edit the next search sees the new record's slot."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    first = ranking.layout(conn, "private")
    assert ranking.layout(conn, "private") is first
    crowd.page("private/notes/late.md", "pg_late", "Late", "a late note", type="note")
    crowd.scan()
    vault.index_keywords()
    again = ranking.layout(conn, "private")
    assert again is not first
    assert len(again.unsure()) == len(first.unsure())
    assert int((again.sizes > 0).sum()) == int((first.sizes > 0).sum()) + 1


def test_search_keeps_freed_blocks_for_reuse() -> None:
    """Opening a vault asks glibc to keep large freed blocks (search arrays) in the heap."""
    from knowledge_desktop.engine import heap

    if heap._malloc_trim() is None:
        pytest.skip("mallopt and malloc_trim are glibc's: elsewhere there is nothing to set")
    assert heap.keep_freed_blocks() is True
    assert heap.return_free_heap() is True  # the idle trim still hands them back


def test_kept_reads_give_the_pages_fresh_reads_give(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches keep postings, filter listings and superseded chains between calls
    (`query/kept.py`); every page, score, total and nextOffset, replacements included,
    equals what the same search gives with nothing kept, before and after edits that
    change the words' postings, a filter's rows and a superseded chain."""
    vault = crowd.scan()
    vault.index_keywords()
    used = _weights_path(monkeypatch)
    queries = _queries(random.Random(23), 120) + [
        GrepQuery("review", limit=50, offset=ofs) for ofs in (0, 50, 250)
    ]

    def fresh() -> list[tuple[Any, ...]]:
        out = []
        for q in queries:
            kept.forget()
            out.append(_page(vault.grep(q)))
        return out

    def compare() -> None:
        # first with whatever is kept (after an edit: what was read before it), then
        # with everything kept, in reverse order
        before = [_page(vault.grep(q)) for q in queries]
        want = fresh()
        for q in queries:
            vault.grep(q)
        again = [_page(vault.grep(q)) for q in queries[::-1]][::-1]
        for q, first, second, expected in zip(queries, before, again, want, strict=True):
            assert first == expected, q
            assert second == expected, q

    compare()
    assert used["weights"] > 100, used
    # more of the common words, a record moved between kinds, a chain that now ends elsewhere
    crowd.page("private/notes/n001.md", "pg_001", "Review review", "review group design " * 30, type="note")
    crowd.claim("private/notes/n002.md", "pg_002", "Board", "review plan board draft", tags=["beta"])
    crowd.claim(
        "private/claims/old003.md",
        "cl_old003",
        "Quartz lantern",
        "harbour glacier review",
        lifecycle="superseded",
        superseded_by="cl_006",
        lifecycle_change=CHANGE,
    )
    crowd.scan()
    vault.index_keywords()
    compare()


def test_a_repeated_common_word_reads_nothing_again(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """The work a search of a common word repeats (its postings, a filter's rows, the
    superseded records it matches and their chains) is read once while nothing is
    committed, and read again after a commit."""
    vault = crowd.scan()
    vault.index_keywords()
    monkeypatch.setattr(grep_ranking, "EXACT_BELOW", 0)
    conn = vault.store.reader()
    statements: list[str] = []
    q = GrepQuery("review", kind="claim")

    def traced() -> list[str]:
        statements.clear()
        conn.set_trace_callback(statements.append)
        try:
            vault.grep(q)
        finally:
            conn.set_trace_callback(None)
        weights_table, _ = weights.tables("private")
        _, rows = keyword.tables("private")
        _, hrows = keyword.tables("private", True)
        return [
            s
            for s in statements
            if f"FROM {weights_table} WHERE term=" in s  # the postings
            or f"(SELECT rowid FROM {rows} r WHERE r.kind=" in s  # the kind filter's rows
            or "h.superseded_by FROM" in s  # the superseded records it matches
            or f"superseded_by FROM {hrows}" in s  # their chains
        ]

    kept.forget()
    first = traced()
    assert len(first) == 4, first
    assert traced() == []
    crowd.page("private/notes/late.md", "pg_late", "Late", "a late review", type="note")
    crowd.scan()
    vault.index_keywords()
    assert len(traced()) == 4
    assert traced() == []
