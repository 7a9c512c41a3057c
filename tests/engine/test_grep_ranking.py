"""The strong-term ranking path gives exactly the pages full bm25() scoring gives
(spec: retrieval-and-dates — BM25 weights, filters before ranking, total,
offset and nextOffset). A few hundred generated records share a small
vocabulary, so most query words are in most records, as in a large vault."""

from __future__ import annotations

import random
from typing import Any

import pytest

from knowledge_desktop.engine.query import grep as grep_module
from knowledge_desktop.engine.query.grep import GrepQuery
from knowledge_desktop.engine.store.projections import keyword
from tests.engine.test_retrieval import CHANGE
from tests.vaultkit import VaultKit

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


def test_strong_path_pages_equal_full_scoring(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page, total and nextOffset equals the one full bm25 scoring gives."""
    vault = crowd.scan()
    vault.index_keywords()
    used = {"strong": 0, "fallback": 0, "pass": 0}
    bounded, strong_pass = grep_module._bounded_top, grep_module._strong_pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = bounded(*args, **kwargs)
        used["strong" if found is not None else "fallback"] += 1
        return found

    def pass_spy(*args: Any, **kwargs: Any) -> Any:
        found = strong_pass(*args, **kwargs)
        used["pass"] += found is not None
        return found

    queries = _queries(random.Random(11), 240)
    monkeypatch.setattr(grep_module, "_ranked_strong", lambda *a, **k: None)
    expected = [_page(vault.grep(q)) for q in queries]
    monkeypatch.undo()
    monkeypatch.setattr(grep_module, "EXACT_BELOW", 0)  # take the strong path even on a small vault
    monkeypatch.setattr(grep_module, "_bounded_top", spy)
    monkeypatch.setattr(grep_module, "_strong_pass", pass_spy)
    for q, want in zip(queries, expected, strict=True):
        assert _page(vault.grep(q)) == want, q
    assert used["strong"] > 60  # the comparison exercised the strong path, not only its fallback


def test_left_out_rows_follow_edits(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unfiltered totals subtract the ineligible and windowed rows that match; the
    partial index they are read from follows edits that expire or restore a record."""
    vault = crowd.scan()
    vault.index_keywords()
    queries = [GrepQuery(w, mode=m) for w in ("review", "design plan", "group") for m in ("all", "any")]

    def pages(strong: bool) -> list[tuple[Any, ...]]:
        with monkeypatch.context() as m:
            if strong:
                m.setattr(grep_module, "EXACT_BELOW", 0)
            else:
                m.setattr(grep_module, "_ranked_strong", lambda *a, **k: None)
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


def test_strong_sets_follow_edits_and_deletions(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited or deleted record changes its strong terms in the indexing transaction."""
    vault = crowd.scan()
    vault.index_keywords()
    strong = keyword.strong_table("private")
    conn = vault.store.reader()

    def terms(record_id: str) -> set[str] | None:
        row = conn.execute(
            f"SELECT s.terms FROM {strong} s JOIN keyword_rows_v1_private r"
            " ON r.rowid = s.rowid WHERE r.id=?",
            (record_id,),
        ).fetchone()
        return set(row[0].split()) if row else None

    crowd.page("private/notes/n001.md", "pg_001", "Glacier", "glacier glacier glacier", type="note")
    crowd.scan()
    vault.index_keywords()
    stored = terms("pg_001")
    assert stored is not None
    assert {t.split("q", 1)[1] for t in stored} == {"glacier"}  # one level token per term
    (crowd.root / "private/notes/n001.md").unlink()
    crowd.scan()
    vault.index_keywords()
    assert terms("pg_001") is None
    rowids = {r for (r,) in conn.execute("SELECT rowid FROM keyword_rows_v1_private")}
    assert {r for (r,) in conn.execute(f"SELECT rowid FROM {strong}")} <= rowids

    monkeypatch.setattr(grep_module, "EXACT_BELOW", 0)
    hits = vault.grep(GrepQuery("glacier"))
    assert "pg_001" not in [h["id"] for h in hits["hits"]]


def test_unsure_text_is_marked() -> None:
    """Text our tokenizer might split unlike FTS5 is always ranked exactly."""
    assert keyword.strong_terms(["Cafe\u0301", "", "body"], 10.0) == keyword.UNSURE
    # "cafe" once in the title: weighted frequency 8 in a one-token record
    share = 8 * 2.2 / (8 + 1.2 * (0.25 + 0.75 * 1 / 10.0))
    level = max(i for i, at in enumerate(keyword.STRONG_LEVELS) if at <= share)
    assert keyword.strong_terms(["Café", "", ""], 10.0) == keyword.level_token(level, "cafe")


def test_record_scores_are_bm25_to_the_bit(crowd: VaultKit) -> None:
    """Scores computed from a record's text equal SQLite's bm25() exactly, for every
    record and mode, repeated words and phrases with a repeated token included."""
    vault = crowd.scan()
    vault.index_keywords()
    conn = vault.store.reader()
    fts, rows = keyword.tables("private")
    records, tokens = keyword.totals(conn, "private") or (0, 0)
    queries = [
        ("review", "all"),
        ("design plan", "all"),
        ("design design plan", "all"),
        ("harbour review glacier", "any"),
        ("the team", "phrase"),
        ("review review", "phrase"),
        ("cafe creme", "phrase"),
        ("naive resume", "any"),
    ]
    compared = 0
    for text, mode in queries:
        words = text.split()
        match = grep_module.match_expression(words, mode)
        phrases = [words] if mode == "phrase" else [[w] for w in words]
        idf = [
            grep_module._idf(
                records,
                conn.execute(
                    f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?",
                    (grep_module.match_expression(p, "phrase"),),
                ).fetchone()[0],
            )
            for p in phrases
        ]
        expected = {
            r: -s
            for r, s in conn.execute(
                f"SELECT rowid, {grep_module.BM25.format(fts=fts)} FROM {fts} WHERE {fts} MATCH ?", (match,)
            )
        }
        assert expected, text
        for rowid, title, aliases, body, size in conn.execute(
            f"SELECT c.id, c.c0, c.c1, c.c2, d.sz FROM {fts}_content c JOIN {fts}_docsize d ON d.id = c.id"
        ):
            got = grep_module._record_score(
                (title, aliases, body), keyword._varints(size), phrases, idf, tokens / records, mode
            )
            assert got is not None
            assert got == expected.get(rowid, 0.0), (text, rowid)
            compared += 1
    assert compared > 2000
    assert conn.execute(f"SELECT count(*) FROM {rows}").fetchone()[0] > 300


def test_phrase_instances_overlap_like_fts5() -> None:
    assert grep_module._instances(["a", "a", "a"], ["a", "a"]) == 2
    assert grep_module._instances(["a", "b", "a", "b"], ["a", "b"]) == 2
    assert grep_module._instances(["a", "b"], ["b", "a"]) == 0
    assert grep_module._instances(["x", "a"], ["a"]) == 1


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
        match = grep_module.match_expression(words, mode)
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
    for strong in (False, True):
        with monkeypatch.context() as m:
            if strong:
                m.setattr(grep_module, "EXACT_BELOW", 0)
            for words, mode in cases:
                got = vault.grep(GrepQuery(" ".join(words), mode=mode, at=at, limit=5))
                assert got["total"] == expected(words, mode), (words, mode, strong)
    assert any(replaced)  # some superseded wording reached a record that does not match


def test_strong_pass_pages_equal_full_scoring(crowd: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unfiltered searches of three or more words ranked among the records where a
    word is strong (one bm25() pass) give the full-scoring page, ties included."""
    vault = crowd.scan()
    vault.index_keywords()
    rng = random.Random(23)
    queries = [
        GrepQuery(
            " ".join(rng.choice(COMMON + FILLER) for _ in range(rng.choice([3, 3, 4]))),
            mode=mode,
            limit=limit,
        )
        for mode in ("all", "any")
        for limit in (1, 2, 5, 20)
        for _ in range(15)
    ]
    monkeypatch.setattr(grep_module, "_ranked_strong", lambda *a, **k: None)
    expected = [_page(vault.grep(q)) for q in queries]
    monkeypatch.undo()
    used = {"pass": 0}
    strong_pass = grep_module._strong_pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = strong_pass(*args, **kwargs)
        used["pass"] += found is not None
        return found

    monkeypatch.setattr(grep_module, "EXACT_BELOW", 0)
    monkeypatch.setattr(grep_module, "_strong_pass", spy)
    for q, want in zip(queries, expected, strict=True):
        assert _page(vault.grep(q)) == want, q
    assert used["pass"] >= 10, used
