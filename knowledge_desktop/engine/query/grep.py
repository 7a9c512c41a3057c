"""Keyword search (spec: retrieval-and-dates — Query contract, Superseded wording,
Results and citations, Index behavior).

FTS5/BM25 over title (weight 8), aliases (6) and body (1) of the records a
partition currently holds. Every word token must match by default; `any`
needs one; `phrase` needs the tokens in order and adjacent within one field.
Query text is never FTS syntax: tokens are taken from it and quoted, so
`OR`, `NOT`, `NEAR(`, `*`, `:` or quotes are plain words.

Eligibility, validity windows and the filters are applied in the same SQL
statement that ranks, so they are applied before a page is cut. Ranking
statistics are those of the partition's current records (each partition has
its own tables); searching several partitions merges their hits by score.

Scoring every match with bm25() costs about 3 µs a match, which a word found
in most of 100,000 records turns into hundreds of milliseconds. So current
records are first ranked from the strong sets (keyword.strong_terms): levels
are read top down until the page's last score provably beats every record
left out, and only the records that could still beat it are scored — here,
from their text with bm25()'s own arithmetic, or by SQLite (`_bounded_top`).
When that cannot be proved cheaply every match is scored. Both ways give the
same page, scores and totals.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.query.inventory import QueryError, now_text
from knowledge_desktop.engine.store.projections import keyword
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS, tables

MODES = ("all", "any", "phrase")
LIFECYCLES = ("active", "superseded", "all")
MAX_TOKENS = 64
MAX_QUERY = 500
MAX_OFFSET = 500
BM25 = "bm25({fts}, 8.0, 6.0, 1.0)"
MAX_CHAIN = 32
EXACT_BELOW = 3000
"""Queries matching at most this many records are scored outright (a few ms)."""
SAMPLE = 2000
MAX_EXCEPTIONS = 200
"""An unfiltered total tests at most this many ineligible or windowed rows
against the match (`_left_out`); with more it joins every match to the rows table."""
EVIDENCE_SHOWN = 3


@dataclass(frozen=True, slots=True)
class GrepQuery:
    query: str
    mode: str = "all"
    kind: str | None = None
    types: frozenset[str] | None = None
    tag: str | None = None
    lifecycle: str = "active"
    time_field: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 20
    offset: int = 0
    at: str | None = None


@dataclass(slots=True)
class _Hit:
    scope: str
    rowid: int
    score: float | None
    history: bool
    record_id: str
    via: dict[str, Any] | None = None
    matches: list[str] = field(default_factory=list)


def validate(q: GrepQuery) -> list[str]:
    if q.mode not in MODES:
        raise QueryError(f"mode must be one of {', '.join(MODES)}")
    if q.lifecycle not in LIFECYCLES:
        raise QueryError(f"lifecycle must be one of {', '.join(LIFECYCLES)}")
    if len(q.query) > MAX_QUERY:
        raise QueryError(f"a query is at most {MAX_QUERY} characters")
    words = textmod.tokens(q.query)
    if not 1 <= len(words) <= MAX_TOKENS:
        raise QueryError(f"a query needs 1 to {MAX_TOKENS} word tokens; found {len(words)}")
    if not 1 <= q.limit <= 50:
        raise QueryError("limit must be between 1 and 50")
    if not 0 <= q.offset <= MAX_OFFSET:
        raise QueryError(f"offset must be between 0 and {MAX_OFFSET}")
    if q.kind is not None and q.kind not in ("page", "claim", "relationship"):
        raise QueryError("kind is page, claim or relationship (use type for record types)")
    if (q.since or q.until) and q.time_field is None:
        raise QueryError("since/until need a timeField")
    if q.time_field is not None and q.time_field not in TIME_FIELDS:
        raise QueryError(f"timeField must be one of {', '.join(TIME_FIELDS)}")
    return words


def match_expression(words: list[str], mode: str) -> str:
    quoted = [f'"{w}"' for w in words]  # tokens are letters and digits only
    if mode == "phrase":
        return '"' + " ".join(words) + '"'
    return (" OR " if mode == "any" else " AND ").join(quoted)


def bounds(since: str | None, until: str | None) -> tuple[str | None, str | None]:
    """Inclusive bounds as a half-open span; a date-only upper bound covers its whole day."""
    low = high = None
    if since is not None:
        low, _ = _bound(since, "since")
    if until is not None:
        _, high = _bound(until, "until")
    return low, high


def _bound(value: str, name: str) -> tuple[str, str]:
    start, end = keyword.span(value)
    if start is None or end is None:
        raise QueryError(f"{name} must be a YYYY-MM-DD date or a timestamp with seconds and a zone")
    return start, end


def filter_sql(q: GrepQuery, alias: str, now: str, current: bool) -> tuple[str, list[object]]:
    parts = [f"{alias}.eligible=1"]
    params: list[object] = []
    if current:
        parts.append(
            f"({alias}.active_from IS NULL OR {alias}.active_from <= ?) AND "
            f"({alias}.active_until IS NULL OR {alias}.active_until > ?)"
        )
        params += [now, now]
    if q.kind:
        parts.append(f"{alias}.kind=?")
        params.append(q.kind)
    if q.types is not None:
        parts.append(f"{alias}.type IN ({','.join('?' * len(q.types))})")
        params.extend(sorted(q.types))
    if q.tag:
        # instr() on the stored JSON (the tag as json.dumps writes it) is a cheap
        # necessary test; json_each() then confirms it is a whole list element.
        parts.append(
            f"instr({alias}.tags, ?) AND EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value=?)"
        )
        params += [json.dumps(q.tag), q.tag]
    if q.time_field:
        column = q.time_field.removesuffix("_at")
        low, high = bounds(q.since, q.until)
        parts.append(f"{alias}.{column}_start IS NOT NULL")
        if low is not None:
            parts.append(f"{alias}.{column}_end > ?")
            params.append(low)
        if high is not None:
            parts.append(f"{alias}.{column}_start < ?")
            params.append(high)
    return " AND ".join(parts), params


def _ranked(
    conn: sqlite3.Connection,
    scope: str,
    history: bool,
    words: list[str],
    q: GrepQuery,
    where: str,
    params: list[object],
    limit: int,
    probe: list[int] | None = None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None]:
    """The best `limit` filtered matches, best first, and how many match in all.

    Third, when it came for free: which rowids of `probe` (current rows that
    matching superseded records lead to) match — at least every one that also
    passes the filters; None when the caller must ask.
    """
    match = match_expression(words, q.mode)
    if not history:
        plain = not (q.kind or q.types is not None or q.tag or q.time_field)
        try:
            found = _ranked_strong(conn, scope, words, q.mode, match, where, params, limit, plain, probe)
        except sqlite3.OperationalError:
            # e.g. a word FTS5 splits in two: a phrase the strong table (detail=none)
            # cannot search. Full scoring answers the same question.
            found = None
        if found is not None:
            return found
    return _ranked_exact(conn, scope, history, match, where, params, limit, probe=probe)


def _ranked_exact(
    conn: sqlite3.Connection,
    scope: str,
    history: bool,
    match: str,
    where: str,
    params: list[object],
    limit: int,
    total: int | None = None,
    left_out: list[int] | None = None,
    probe: list[int] | None = None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None]:
    """Score every filtered match with bm25(): right for any query, slow for common words.

    A known `total` spares the count; known `left_out` rows (an unfiltered
    search, `_left_out`) spare the join to the rows table for every match.
    Third: which `probe` rows are filtered matches, when the count tells
    (None otherwise, or without a probe).
    """
    fts, rows = tables(scope, history)
    bm25 = BM25.format(fts=fts)
    if total is not None and left_out is not None:
        page = _ranked_unjoined(conn, scope, match, limit, left_out)
        if page is not None:
            return total, page, None
    if total is not None:
        found = conn.execute(
            f"SELECT rowid, id, -score FROM (SELECT r.rowid AS rowid, r.id AS id, {bm25} AS score"
            f" FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid WHERE {fts} MATCH ? AND {where})"
            f" ORDER BY score, id LIMIT {int(limit)}",
            [match, *params],
        ).fetchall()
        return total, [(int(a), str(b), float(c)) for a, b, c in found], None
    # bm25() cannot sit beside a window function, so it is scored in a subquery.
    # The same window tells which `probe` rows are filtered matches.
    extra, args = "", []
    if probe:
        extra = ", json_group_array(rowid) FILTER (WHERE rowid IN (SELECT value FROM json_each(?))) OVER ()"
        args = [json.dumps(probe)]
    sql = (
        f"SELECT rowid, id, -score, count(*) OVER (){extra} FROM (SELECT r.rowid AS rowid,"
        f" r.id AS id, {bm25} AS score FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
        f" WHERE {fts} MATCH ? AND {where}) ORDER BY score, id LIMIT {int(limit)}"
    )
    found = conn.execute(sql, [*args, match, *params]).fetchall()
    counted = int(found[0][3]) if found else 0
    matched = {int(r) for r in json.loads(found[0][4])} if probe and found else (set() if probe else None)
    return counted, [(int(a), str(b), float(c)) for a, b, c, *_ in found], matched


TIE_SLACK = 16


def _ranked_unjoined(
    conn: sqlite3.Connection,
    scope: str,
    match: str,
    limit: int,
    left_out: list[int],
    candidates: str | None = None,
) -> list[tuple[int, str, float]] | None:
    """Full scoring of an unfiltered search without joining every match to the rows
    table: the best scores first, then ids for those that can make the page.
    None when records tied with the page's last score may lie past what was read.
    `candidates` (an expression for the strong table) keeps only the records it finds."""
    fts, rows = tables(scope)
    bm25 = BM25.format(fts=fts)
    strong = keyword.strong_table(scope)
    only, args = "", []
    if candidates is not None:
        only, args = f" AND +rowid IN (SELECT rowid FROM {strong} WHERE {strong} MATCH ?)", [candidates]
    best = conn.execute(
        f"SELECT rowid, {bm25} AS score FROM {fts} WHERE {fts} MATCH ?{only}"
        f" AND +rowid NOT IN (SELECT value FROM json_each(?)) ORDER BY score LIMIT {int(limit) + TIE_SLACK}",
        [match, *args, json.dumps(left_out)],
    ).fetchall()
    if len(best) == limit + TIE_SLACK and best[limit - 1][1] == best[-1][1]:
        return None  # ties with the page's last score may go on past the rows read
    last = best[limit - 1][1] if len(best) >= limit else math.inf
    wanted = {int(r): float(sc) for r, sc in best if sc <= last}
    ids = dict(
        conn.execute(
            f"SELECT rowid, id FROM {rows} WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(wanted)),),
        ).fetchall()
    )
    ranked = sorted((sc, str(ids[r]), r) for r, sc in wanted.items())[:limit]
    return [(r, i, -sc) for sc, i, r in ranked]


def _idf(records: int, hits: int) -> float:
    """FTS5's IDF: log((N − n + ½) / (n + ½)), raised to 1e-6 when not positive."""
    value = math.log((records - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def _count(
    conn: sqlite3.Connection,
    scope: str,
    match: str,
    where: str,
    params: list[object],
    left_out: list[int] | None,
    probe: list[int] | None,
) -> tuple[int, int, set[int] | None]:
    """(matches, filtered matches, which `probe` rowids match) from one pass over the matches.

    With `left_out` (an unfiltered search: see `_left_out`) the filtered count is
    the match count less the left-out rows that match, told by the same pass;
    otherwise every match is joined to the rows table. The probe set is None
    when there is no probe.
    """
    fts, rows = tables(scope)
    listed = sorted({*(probe or ()), *(left_out or ())})
    extra, args = "", []
    if listed:
        extra = (
            f", json_group_array({fts}.rowid) FILTER (WHERE {fts}.rowid IN (SELECT value FROM json_each(?)))"
        )
        args = [json.dumps(listed)]
    if left_out is None:
        row = conn.execute(
            f"SELECT count(*), total({where}){extra} FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
            f" WHERE {fts} MATCH ?",
            [*params, *args, match],
        ).fetchone()
        hits, total = int(row[0]), int(row[1])
    else:
        row = conn.execute(
            f"SELECT count(*){extra} FROM {fts} WHERE {fts} MATCH ?", [*args, match]
        ).fetchone()
        hits = int(row[0])
    found = {int(r) for r in json.loads(row[-1])} if listed else set()
    if left_out is not None:
        total = hits - len(found.intersection(left_out))
    return hits, total, found.intersection(probe) if probe else None


def _ranked_strong(
    conn: sqlite3.Connection,
    scope: str,
    words: list[str],
    mode: str,
    match: str,
    where: str,
    params: list[object],
    limit: int,
    plain: bool = False,
    probe: list[int] | None = None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None] | None:
    """The same answer as `_ranked_exact`, without scoring every match when it can.

    Counts first (exactly), then `_bounded_top` ranks the records the strong
    sets cannot rule out; when it cannot prove its page, every filtered match
    is scored. None — the caller scores every match — when the strong sets
    are stale or the filters keep so few records that full scoring is cheaper.
    `plain` (no kind, type, tag or date filter) lets the total skip the join
    to the rows table (`_left_out`). Third in the answer: which `probe` rows
    match, read off the counting pass.
    """
    _, rows = tables(scope)
    stats = keyword.totals(conn, scope)
    cut = keyword.strong_avgdl(conn, scope)
    if stats is None or cut is None or stats[0] == 0 or stats[1] / stats[0] > cut:
        return None
    records = stats[0]
    if not plain:
        # Filters that keep few records make full scoring cheap, and cheaper than the
        # count this path needs first: judge them on a slice of the rows table.
        sample, kept = conn.execute(
            f"SELECT count(*), total({where}) FROM (SELECT * FROM {rows} ORDER BY rowid LIMIT {SAMPLE}) r",
            params,
        ).fetchone()
        if sample and records * kept / sample <= 2 * EXACT_BELOW:
            return None
    left_out = _left_out(conn, scope, where, params) if plain else None
    hits, total, matched = _count(conn, scope, match, where, params, left_out, probe)
    if total > EXACT_BELOW:
        found = _bounded_top(conn, scope, words, mode, match, where, params, limit, stats, hits, total)
        if found is None and left_out is not None and mode != "phrase" and len(set(words)) >= SUM_WORDS_MOST:
            found = _strong_pass(conn, scope, words, mode, match, limit, stats, hits, left_out)
        if found is not None:
            return total, found, matched
    return (*_ranked_exact(conn, scope, False, match, where, params, limit, total, left_out)[:2], matched)


def _word_idf(
    conn: sqlite3.Connection, scope: str, words: list[str], mode: str, records: int, hits: int
) -> list[float]:
    """Each query word's IDF as bm25() computes it (one per word, in query order)."""
    fts, _ = tables(scope)
    if len(set(words)) == 1 or (mode == "all" and 2 * hits >= records):
        # every word is in at least `hits` rows; from half the table on, IDF is its floor
        return [_idf(records, hits)] * len(words)
    counts = {
        w: int(conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (f'"{w}"',)).fetchone()[0])
        for w in set(words)
    }
    return [_idf(records, counts[w]) for w in words]


def _strong_pass(
    conn: sqlite3.Connection,
    scope: str,
    words: list[str],
    mode: str,
    match: str,
    limit: int,
    stats: tuple[int, int],
    hits: int,
    left_out: list[int],
) -> list[tuple[int, str, float]] | None:
    """An unfiltered search of several words ranked among the records where one of
    them is strong at any level: one bm25() pass, about half the cost of scoring
    every match. A record no level holds scores below Σ IDF × the lowest level, so
    the page stands when its last score beats that; None when it does not."""
    levels = keyword.STRONG_LEVELS
    bound = sum(_word_idf(conn, scope, words, mode, stats[0], hits)) * levels[0]
    expression = " OR ".join(
        [f'"{keyword.level_token(i, w)}"' for w in dict.fromkeys(words) for i in range(len(levels))]
        + [f'"{keyword.UNSURE}"']
    )
    page = _ranked_unjoined(conn, scope, match, limit, left_out, expression)
    if page is None or len(page) < limit or page[-1][2] < bound * (1 + MARGIN):
        return None
    return page


CEILING = keyword.K1 + 1.0
"""No record's share for a term reaches K1 + 1."""
MARGIN = 1e-9
"""Relative slack between our bounds and SQLite's arithmetic."""
BATCH = 256
FINAL_BATCH = 64
PYTHON_MOST = 400
SUM_WORDS_MOST = 3
STEP = keyword.STRONG_LEVELS[1] - keyword.STRONG_LEVELS[0]
"""Distance between strong levels."""
GUESS = 1.5
HOPE = 0.01
"""How far below the lowest level's bound a phrase's provisional page may be before giving up."""
"""A typical share of a common word in a record where it is not strong (guesses only)."""
"""Records `_bounded_top` scores itself; past that one bm25() pass over the matches is cheaper."""


def _bounded_top(
    conn: sqlite3.Connection,
    scope: str,
    words: list[str],
    mode: str,
    match: str,
    where: str,
    params: list[object],
    limit: int,
    stats: tuple[int, int],
    hits: int,
    total: int,
) -> list[tuple[int, str, float]] | None:
    """The best `limit` filtered matches, scored like bm25() but only where the
    strong sets cannot rule a record out; None when that cannot be proved cheaply.

    A record stored at level i for word w has w's share below the next level
    (below K1 + 1 at the top); one not found in the levels read so far has it
    below the lowest level read. Levels are read top down, a word at a time,
    until the page's last score beats what any unread record could reach; then
    the records read are scored in order of their bound until the bound falls
    below that score. Scores are computed here from the record's text and
    FTS5's own length and statistics, with bm25()'s arithmetic in its order
    (`_record_score`); records whose text our tokenizer may split unlike FTS5
    are scored by SQLite instead.
    """
    if not all(keyword.one_term(w) for w in words):
        return None
    if mode != "phrase" and len(set(words)) >= SUM_WORDS_MOST:
        # Shares of common words crowd between the lowest level and the ceiling, so with
        # three or more words a record no level holds can still come close to the page:
        # nearly every level would be read (see `_strong_pass`).
        return None
    fts, rows = tables(scope)
    strong = keyword.strong_table(scope)
    records, tokens = stats
    avgdl = tokens / records
    distinct = list(dict.fromkeys(words))
    slot = {w: k for k, w in enumerate(distinct)}
    phrases = [tuple(words)] if mode == "phrase" else [(w,) for w in words]
    counts: dict[str, int] = {}
    if mode == "phrase" or len(distinct) == 1 or (mode == "all" and 2 * hits >= records):
        # every word is in at least `hits` rows; from half the table on, IDF is its floor
        idf = [_idf(records, hits)] * len(phrases)
    else:
        counts = {
            w: int(conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (f'"{w}"',)).fetchone()[0])
            for w in distinct
        }
        idf = [_idf(records, counts[p[0]]) for p in phrases]
    levels = keyword.STRONG_LEVELS
    uppers = [*levels[1:], CEILING]
    m = len(distinct)
    phrase = mode == "phrase"
    depth = [len(levels)] * m  # levels at or above depth[k] are read for word k
    whole = [False] * m  # word k's every match is read: a record not seen lacks it
    weight = [0.0] * m
    for i, p in enumerate(phrases):
        weight[slot[p[0]]] += idf[i]
    # Records read so far, grouped by their caps (one per word, 0.0 while not read for
    # it): every record of a group has the same bound, so bounds are computed per group.
    # A record moves to a new group when another word is read for it; `caps` says
    # which group is its own (older lists may still name it).
    caps: dict[int, tuple[float, ...]] = {}
    groups: dict[tuple[float, ...], list[int]] = {}
    settled: set[int] = set()  # scored, filtered out, not a match, or beaten
    found: list[tuple[float, str, int]] = []  # (-score, id, rowid): the best `limit` so far
    by_sql: list[int] = []  # text our tokenizer may split unlike FTS5: SQLite scores it

    def rowids(fts_table: str, expression: str) -> list[int]:
        (listed,) = conn.execute(
            f"SELECT json_group_array(rowid) FROM {fts_table} WHERE {fts_table} MATCH ?", (expression,)
        ).fetchone()
        return list(json.loads(listed))

    def bound(k: int) -> float:
        """What word k's share can be in a record not read for it."""
        if depth[k] == len(levels):
            return CEILING
        return 0.0 if whole[k] else levels[depth[k]]

    def reach(key: tuple[float, ...]) -> float:
        """The most a record with these caps can score."""
        full = [c or bound(k) for k, c in enumerate(key)]
        if phrase:
            return idf[0] * min(full)  # a phrase is no more frequent than any of its words
        return sum(w * c for w, c in zip(weight, full, strict=True))

    unread = (0.0,) * m

    def theta() -> float:
        return -found[limit - 1][0] if len(found) >= limit else 0.0

    def reaches(most: int | None = None) -> list[tuple[float, int]]:
        """(bound, rowid) of unsettled records read that may beat the page, best first
        (at most `most` of them)."""
        floor = theta()
        ranked = sorted(((reach(key), key) for key in groups), reverse=True)
        out: list[tuple[float, int]] = []
        for value, key in ranked:
            if floor >= value * (1 + MARGIN) or (most is not None and len(out) >= most):
                break
            out += [(value, r) for r in groups[key] if caps.get(r) == key and r not in settled]
        return out if most is None else out[:most]

    def likely(key: tuple[float, ...]) -> float:
        """A guess at the score of a record with these caps, to pick whom to score first:
        a word read counts a step below its cap, one not read a typical weak share."""
        full = [c - STEP / 2 if c else GUESS for c in key]
        if phrase:
            return min(full)
        return sum(w * c for w, c in zip(weight, full, strict=True))

    def promising(most: int) -> list[int]:
        """Up to `most` unsettled records read that may beat the page, likeliest first."""
        floor = theta()
        out: list[int] = []
        for _, key in sorted(((likely(key), key) for key in groups), reverse=True):
            if len(out) >= most:
                break
            if floor < reach(key) * (1 + MARGIN):
                out += [r for r in groups[key] if caps.get(r) == key and r not in settled][: most - len(out)]
        return out

    def read(k: int, found_rows: list[int], cap: float) -> None:
        """Note word k's cap on the records found; a record not read before is kept only
        when, with this cap, it could still beat the page."""
        fresh = reach(tuple(cap if j == k else 0.0 for j in range(m))) * (1 + MARGIN) > theta()
        listed = set(found_rows)
        if not fresh:
            # a record not read before cannot beat the page even with this cap: nor
            # later, as caps only fall and the page's last score only rises
            settled.update(listed.difference(caps))
            listed.intersection_update(caps)
        listed.difference_update(settled)
        moved: dict[tuple[float, ...], tuple[float, ...]] = {}
        for r in listed:
            key = caps.get(r, unread)
            new = moved.get(key)
            if new is None:
                moved[key] = new = (*key[:k], cap, *key[k + 1 :])
            caps[r] = new
            groups.setdefault(new, []).append(r)

    if mode == "any":  # a word in few records is read whole instead of by levels
        for k, w in enumerate(distinct):
            if counts.get(w, hits) <= EXACT_BELOW:
                depth[k], whole[k] = 0, True
                read(k, rowids(fts, f'"{w}"'), CEILING)

    unsure = rowids(strong, f'"{keyword.UNSURE}"')
    by_sql += unsure
    settled.update(unsure)
    phrase_terms = [list(p) for p in phrases]
    spent = 0

    def score(batch: list[int]) -> None:
        nonlocal found, spent
        spent += len(batch)
        settled.update(batch)
        for rowid, rid, title, aliases, body, size in conn.execute(
            f"SELECT r.rowid, r.id, c.c0, c.c1, c.c2, d.sz FROM json_each(?) j"
            f" CROSS JOIN {rows} r ON r.rowid = j.value CROSS JOIN {fts}_content c ON c.id = r.rowid"
            f" CROSS JOIN {fts}_docsize d ON d.id = r.rowid WHERE {where}",
            [json.dumps(batch), *params],
        ):
            sizes = keyword._varints(size)
            value = _record_score((title, aliases, body), sizes, phrase_terms, idf, avgdl, mode)
            if value is None:
                by_sql.append(int(rowid))
            elif value > 0.0:
                found.append((-value, str(rid), int(rowid)))
        found = sorted(found)[:limit]

    # Read levels top down, the word whose unread records could add most first; after
    # each round score the records with the best bounds, which sets the page's last
    # score early and so keeps later reads, and the final scoring, small.
    need = min(BATCH, 2 * limit * max(1, hits // max(total, 1)))  # filters pass about total/hits
    steps = 0
    while True:
        open_ = [k for k in range(m) if depth[k] > 0]
        if spent < PYTHON_MOST // 2 and (not open_ or steps % m == 0):
            best = promising(need)
            if best:
                score(best)
        if len(found) < limit and spent >= PYTHON_MOST // 2:
            return None  # the likeliest records do not even fill a page
        if (
            phrase
            and len(found) >= limit
            and max(depth) <= len(levels) // 2
            and theta() * (1 + HOPE) < idf[0] * levels[0]
        ):
            # A phrase's best records hold every word high, so with the top half of the
            # levels read its page is nearly settled: if it would not beat the records
            # no level holds even with every level read, give up now.
            return None
        # Once records not read are beaten, reading on only tightens the bounds of
        # the records read: worth it while too many of them are left to score.
        if theta() >= reach(unread) * (1 + MARGIN) and len(reaches(PYTHON_MOST + 1)) <= PYTHON_MOST:
            break
        if not open_:
            break
        k = max(open_, key=lambda k: (1.0 if phrase else weight[k]) * bound(k))
        depth[k] -= 1
        steps += 1
        read(k, rowids(strong, f'"{keyword.level_token(depth[k], distinct[k])}"'), uppers[depth[k]])
    while theta() < reach(unread) * (1 + MARGIN):
        # a record no level holds might still beat the page: unless scoring more of
        # those read lifts the page's last score above that, score every match
        best = promising(need)
        if not best or spent >= PYTHON_MOST:
            return None
        score(best)
    # score the records seen whose bound may still beat the page, best bound first;
    # past PYTHON_MOST, one bm25() pass over the matches scores the rest
    pending = reaches()
    at = 0
    while at < len(pending) and theta() < pending[at][0] * (1 + MARGIN):
        batch = [r for _, r in pending[at : at + FINAL_BATCH] if r not in settled]
        at += FINAL_BATCH
        if spent >= PYTHON_MOST:
            floor = theta()
            by_sql += [
                r for u, r in pending[at - FINAL_BATCH :] if floor < u * (1 + MARGIN) and r not in settled
            ]
            break
        score(batch)
    if len(by_sql) > hits // 10:
        return None  # scoring every match costs about as much, and reads fewer rowids
    if by_sql:
        bm25 = BM25.format(fts=fts)
        found += [
            (float(s_), str(i), int(r))
            for r, i, s_ in conn.execute(
                f"SELECT r.rowid, r.id, {bm25} FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
                f" WHERE {fts} MATCH ? AND +{fts}.rowid IN (SELECT value FROM json_each(?)) AND {where}",
                [match, json.dumps(by_sql), *params],
            )
        ]
        found = sorted(found)[:limit]
    return [(r, i, -s_) for s_, i, r in found]


def _record_score(
    texts: tuple[str | None, str | None, str | None],
    sizes: list[int],
    phrases: list[list[str]],
    idf: list[float],
    avgdl: float,
    mode: str,
) -> float | None:
    """bm25() of one record as FTS5 computes it (the same operations in the same
    order, so the same double), 0.0 when the record does not match, None when
    our tokenizer may not read its text as FTS5 did (its token counts differ
    from FTS5's stored sizes, or `keyword.column_terms` cannot tell)."""
    if len(sizes) != len(keyword.WEIGHTS):
        return None
    freq = [0.0] * len(phrases)
    for column, text in enumerate(texts):
        terms = keyword.column_terms(text) if text else []
        if terms is None or len(terms) != sizes[column]:
            return None
        if not terms:
            continue
        for i, phrase in enumerate(phrases):
            n = _instances(terms, phrase)
            if n:
                freq[i] += n * keyword.WEIGHTS[column]  # whole numbers: exact in any order
    present = [f > 0.0 for f in freq]
    if not (any(present) if mode == "any" else all(present)):
        return 0.0
    length = float(sum(sizes))
    k1, b = keyword.K1, keyword.B
    score = 0.0
    for i, f in enumerate(freq):
        score += idf[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * length / avgdl)))
    return score


def _instances(terms: list[str], phrase: list[str]) -> int:
    """How many times the phrase starts in the column (overlapping starts count, as in FTS5)."""
    if len(phrase) == 1:
        return terms.count(phrase[0])
    n = 0
    size = len(phrase)
    at = -1
    first = phrase[0]
    while True:
        try:
            at = terms.index(first, at + 1)
        except ValueError:
            return n
        if terms[at : at + size] == phrase:
            n += 1


def _left_out(conn: sqlite3.Connection, scope: str, where: str, params: list[object]) -> list[int] | None:
    """The current rows an unfiltered search leaves out, or None when there are too many.

    Only rows in the exceptions index (ineligible or windowed) can fail the
    eligibility and window tests, so the total is the match count minus those
    of them that match (`_count` tells which) instead of a join of every match
    to the rows table.
    """
    _, rows = tables(scope)
    index = keyword.exceptions_index(scope)
    exceptions = keyword.EXCEPTIONS.replace("eligible", "r.eligible").replace("active_", "r.active_")
    failing = [
        int(r)
        for (r,) in conn.execute(
            f"SELECT r.rowid FROM {rows} r INDEXED BY {index}"
            f" WHERE ({exceptions}) AND NOT coalesce(({where}), 0) LIMIT {MAX_EXCEPTIONS + 1}",
            params,
        )
    ]
    return failing if len(failing) <= MAX_EXCEPTIONS else None


def grep(
    conn: sqlite3.Connection, q: GrepQuery, scopes: list[str], state: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    words = validate(q)
    match = match_expression(words, q.mode)
    now = q.at or now_text()
    want = q.offset + q.limit
    direct: list[_Hit] = []
    total = 0
    history_modes = {"active": (False,), "superseded": (True,), "all": (False, True)}
    try:
        replacements: list[_Hit] = []
        reached: list[tuple[_Earlier, set[str]]] = []
        for scope in scopes:
            earlier = _Earlier(conn, scope, q, match, now) if q.lifecycle == "active" else None
            for history in history_modes[q.lifecycle]:
                where, params = filter_sql(q, "r", now, current=not history)
                probe = (earlier.rowids or None) if earlier is not None and not history else None
                count, ranked, matched = _ranked(conn, scope, history, words, q, where, params, want, probe)
                total += count
                direct += [_Hit(scope, rowid, score, history, rid) for rowid, rid, score in ranked]
                if earlier is not None and not history:
                    reached.append((earlier, earlier.finals(matched)))
        direct.sort(key=lambda h: (-(h.score or 0.0), h.record_id))
        # one replacement per (scope, current record); they follow every direct hit,
        # so they are only looked at when the direct hits do not fill the page
        replaced = sum(len(finals) for _, finals in reached)
        if total < want and replaced:
            replacements = [hit for earlier, finals in reached for hit in earlier.hits(finals)]
            replacements.sort(key=lambda h: (-(h.via or {}).get("_score", 0.0), (h.via or {}).get("id", "")))
            seen: set[tuple[str, str]] = set()
            unique = []
            for hit in replacements:
                if (hit.scope, hit.record_id) not in seen:
                    seen.add((hit.scope, hit.record_id))
                    unique.append(hit)
            replacements = unique
        total_all = total + replaced
        page = (direct[: min(want, total)] + replacements)[q.offset : want]
        hits = [_complete(conn, hit, words, q) for hit in page]
    except sqlite3.DatabaseError as exc:
        return {
            "hits": [],
            "total": None,
            "offset": q.offset,
            "nextOffset": None,
            "index": {"state": "unavailable", "lag": False, "error": str(exc)},
            "snapshot": None,
            "coverage": {"complete": False},
        }
    next_offset = want if want < total_all and want <= MAX_OFFSET else None
    states = {s: state(s) for s in scopes}
    return {
        "hits": hits,
        "total": total_all,
        "offset": q.offset,
        "nextOffset": next_offset,
        "snapshot": ";".join(f"{s}:{states[s]['generation']}" for s in scopes),
        "index": {"state": "ready", "lag": False},
        "coverage": {"complete": all(states[s]["complete"] for s in scopes)},
        "freshness": {
            "queriedAt": now_text()[:23] + "Z",
            "scannedAt": max((states[s]["scannedAt"] or "" for s in scopes), default="") or None,
            "indexedAt": max((states[s]["indexedAt"] or "" for s in scopes), default="") or None,
        },
    }


class _Earlier:
    """Current records reached from superseded records that match (spec: Superseded wording).

    Built before the direct ranking: `rowids` are the current rows the matching
    superseded records lead to, and the ranking's count of the matches tells
    which of them match directly (`finals`). Only when replacements can reach
    the page are the superseded records scored (`hits`).
    """

    def __init__(self, conn: sqlite3.Connection, scope: str, q: GrepQuery, match: str, now: str) -> None:
        self.conn, self.scope, self.q, self.match, self.now = conn, scope, q, match, now
        hfts, hrows = tables(scope, True)
        _, rows = tables(scope, False)
        sources = {
            str(s)
            for (s,) in conn.execute(
                f"SELECT h.superseded_by FROM {hfts} JOIN {hrows} h ON h.rowid = {hfts}.rowid"
                f" WHERE {hfts} MATCH ? AND h.eligible=1 AND h.superseded_by IS NOT NULL",
                (match,),
            )
        }
        self.ends = _chain_ends(conn, hrows, sources) if sources else {}
        wanted = sorted({t for t in self.ends.values() if t})
        self.ids: dict[int, str] = {}  # current rowid -> id, filters not applied yet
        if wanted:
            self.ids = {
                int(r): str(i)
                for r, i in conn.execute(
                    f"SELECT rowid, id FROM {rows} INDEXED BY {rows}_id"
                    " WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(wanted),),
                )
            }
        self.rowids = sorted(self.ids)
        self.current: dict[str, int] = {}

    def finals(self, matched: set[int] | None) -> set[str]:
        """Ids of the current records that replacements lead to: reached, passing the
        filters, and not direct matches (`matched`: which `rowids` match, if known)."""
        if not self.rowids:
            return set()
        _, rows = tables(self.scope, False)
        where, params = filter_sql(self.q, "r", self.now, current=True)
        if matched is None:
            check = self.rowids
        else:  # a direct match never shows as a replacement; only an id on two rows needs both
            twice = {i for i, n in Counter(self.ids.values()).items() if n > 1}
            check = [r for r in self.rowids if r not in matched or self.ids[r] in twice]
        if check:
            self.current = {
                str(i): int(r)
                for r, i in self.conn.execute(
                    f"SELECT r.rowid, r.id FROM {rows} r WHERE r.rowid IN (SELECT value FROM json_each(?))"
                    f" AND {where} ORDER BY r.rowid",
                    [json.dumps(check), *params],
                )
            }
        if matched is None and self.current:
            fts, _ = tables(self.scope, False)
            # + keeps the rowids off FTS5's index: one pass over the matches instead of
            # re-running the query for every rowid (slow for common words).
            matched = {
                int(r)
                for (r,) in self.conn.execute(
                    f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?"
                    " AND +rowid IN (SELECT value FROM json_each(?))",
                    (self.match, json.dumps(sorted(self.current.values()))),
                )
            }
        return {i for i, r in self.current.items() if r not in (matched or set())}

    def hits(self, finals: set[str]) -> list[_Hit]:
        """One hit per matching superseded record whose chain ends in `finals`, with its score."""
        if not finals:
            return []
        hfts, hrows = tables(self.scope, True)
        bm25 = BM25.format(fts=hfts)
        out: list[_Hit] = []
        for rid, revision, title, path, sha, superseded_by, score in self.conn.execute(
            f"SELECT h.id, h.revision, h.title, h.path, h.sha256, h.superseded_by, -{bm25} "
            f"FROM {hfts} JOIN {hrows} h ON h.rowid = {hfts}.rowid "
            f"WHERE {hfts} MATCH ? AND h.eligible=1 ORDER BY {bm25}, h.id",
            (self.match,),
        ):
            final = self.ends.get(superseded_by)
            if final is None or final not in finals:
                continue  # missing, withdrawn, ineligible, filtered out, or a direct match
            via = {
                "id": rid,
                "revision": revision,
                "title": title,
                "path": path,
                "hash": sha,
                "_score": score,
            }
            out.append(_Hit(self.scope, self.current[final], None, False, final, via, ["superseded"]))
        return out


def _chain_ends(conn: sqlite3.Connection, hrows: str, sources: set[str]) -> dict[str, str | None]:
    """Where each superseded_by chain ends, following eligible superseded records."""
    steps = dict(conn.execute(f"SELECT id, superseded_by FROM {hrows} WHERE eligible=1"))
    ends: dict[str, str | None] = {}
    for start in sources:
        target: str | None = start
        seen: set[str] = set()
        while target is not None and target in steps and target not in seen:
            if len(seen) >= MAX_CHAIN:
                break
            seen.add(target)
            target = steps[target]
        ends[start] = target if target not in seen else None
    return ends


def _complete(conn: sqlite3.Connection, hit: _Hit, words: list[str], q: GrepQuery) -> dict[str, Any]:
    fts, rows = tables(hit.scope, hit.history)
    row = conn.execute(
        f"SELECT id, kind, type, title, path, revision, sha256, lifecycle, body_line"
        f" FROM {rows} WHERE rowid=?",
        (hit.rowid,),
    ).fetchone()
    rid, kind, type_, title, path, revision, sha, lifecycle, body_line = row
    title_text, aliases_text, body = conn.execute(
        f"SELECT title, aliases, body FROM {fts} WHERE rowid=?", (hit.rowid,)
    ).fetchone()
    node_row = conn.execute("SELECT node FROM files WHERE path=?", (path,)).fetchone()
    data = json.loads(node_row[0]).get("data") or {} if node_row and node_row[0] else {}
    if hit.via is None:
        matches = textmod.field_matches(words, title=title_text, aliases=aliases_text, body=body)
        snip = textmod.snippet(body, words) if "body" in matches else textmod.snippet(body, [], locate=False)
    else:
        matches = list(hit.matches)
        snip = textmod.snippet(body, [], locate=False)
    line_start = body_line + body.count("\n", 0, snip.char_start)
    line_end = body_line + body.count("\n", 0, max(snip.char_start, snip.char_end - 1))
    evidence = [
        {
            k: v
            for k, v in {"source": s, "path": p, "url": u, "lines": [a, b] if a is not None else None}.items()
            if v is not None
        }
        for s, p, u, a, b in conn.execute(
            "SELECT source, path, url, line_start, line_end FROM evidence"
            " WHERE src_path=? AND status='verified' ORDER BY idx",
            (path,),
        )
    ]
    summary = None
    recall = data.get("recall")
    if isinstance(recall, dict) and isinstance(recall.get("summary"), str):
        summary = recall["summary"]
    else:
        summary = _first_paragraph(body)
    out: dict[str, Any] = {
        "id": rid,
        "kind": kind,
        "type": type_,
        "title": title,
        "path": path,
        "revision": revision,
        "hash": sha,
        "score": round(hit.score, 6) if hit.score is not None else None,
        "lifecycle": lifecycle,
        "scope": hit.scope,
        "snippet": {
            "text": snip.text,
            "start": snip.start,
            "end": snip.end,
            "lineStart": line_start,
            "lineEnd": line_end,
            "matchLocated": snip.match_located,
        },
        "matches": matches,
        "summary": summary,
        "attribution": data.get("attribution"),
        "assertionOrigin": data.get("assertion_origin"),
        "evidence": evidence[:EVIDENCE_SHOWN],
        "evidenceTruncated": len(evidence) > EVIDENCE_SHOWN,
        "citation": {
            "id": rid,
            "path": path,
            "revision": revision,
            "sha256": sha,
            "lines": [line_start, line_end],
        },
    }
    if hit.via is not None:
        out["via"] = {k: v for k, v in hit.via.items() if not k.startswith("_")}
    return out


def _first_paragraph(body: str, limit: int = 280) -> str:
    for block in body.split("\n\n"):
        text = " ".join(
            line.strip() for line in block.strip().splitlines() if not line.lstrip().startswith("#")
        )
        if text:
            return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    return ""


def scope_state(conn: sqlite3.Connection, scope: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT generation, indexed_at, scanned_at FROM keyword_state_v1 WHERE scope=?", (scope,)
    ).fetchone()
    # EXISTS stops at the first issue; a count would read the whole partition
    issues = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM catalog WHERE scope=? AND (status='unrecognized' OR valid=0))",
        (scope,),
    ).fetchone()[0]
    return {
        "generation": row[0] if row else 0,
        "indexedAt": row[1] if row else None,
        "scannedAt": row[2] if row else None,
        "complete": issues == 0,
    }
