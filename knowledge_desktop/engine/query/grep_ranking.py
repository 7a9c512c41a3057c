"""A partition's best matches for a search, and how many match in all (spec:
retrieval-and-dates — BM25 weights, Index behavior).

Eligibility, validity windows and the filters are applied before ranking,
so before a page is cut. Ranking statistics are those of the partition's
current records (each partition has its own tables).

Scoring every match with bm25() costs about 3 µs a match, which a word found
in most of 100,000 records turns into hundreds of milliseconds. So when the
words of a search of current records match many of them, it is answered
from the stored term weights instead (`_ranked_weights`, with the array
arithmetic of `ranking`): the same scores, computed for every match at once.
Both ways give the same page, scores and totals, to the bit. This module is
the SQL side of both ways; `ranking` never touches a query's conditions.
"""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np

from knowledge_desktop.engine.query import kept, ranking
from knowledge_desktop.engine.query.grep_query import Condition, GrepQuery, joined, match_expression
from knowledge_desktop.engine.store.projections import keyword, terms, weights
from knowledge_desktop.engine.store.projections.keyword import tables

EXACT_BELOW = 3000
"""Queries matching at most this many records are scored outright (a few ms)."""
MAX_EXCEPTIONS = 200
"""An unfiltered total tests at least this many ineligible or windowed rows
against the match (`_left_out`), and more in a larger partition (`EXCEPTIONS_SHARE`);
with more it joins every match to the rows table."""
EXCEPTIONS_SHARE = 16
"""A partition's exceptions are tested one by one while they are at most this share
of its slots: listing them costs less than listing every row that passes (a million
records hold ~830 exceptions, so a fixed 200 had every search scan the rows table,
half a second; issue 26 §3)."""
UNSURE_MOST = 64
"""Unsure records a search scores with bm25() one by one; past that it scores every match."""


def bm25_sql(fts: str) -> str:
    """FTS5's bm25() on the table `fts`, with our column weights (`weights.WEIGHTS`)."""
    return f"bm25({fts}, {', '.join(str(w) for w in weights.WEIGHTS)})"


def ranked(
    conn: sqlite3.Connection,
    scope: str,
    history: bool,
    words: list[str],
    q: GrepQuery,
    parts: list[Condition],
    limit: int,
    probe: list[int] | None = None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None]:
    """The best `limit` matches passing the filters (`filter_parts`), best first,
    and how many match in all.

    Third, when it came for free: which rowids of `probe` (current rows that
    matching superseded records lead to) match — at least every one that also
    passes the filters; None when the caller must ask.
    """
    match = match_expression(words, q.mode)
    if not history:
        found = _ranked_weights(conn, scope, words, q.mode, match, parts, limit, probe)
        if found is not None:
            return found
    where, params = joined(parts)
    return _ranked_exact(conn, scope, history, match, where, params, limit, probe=probe)


def _ranked_exact(
    conn: sqlite3.Connection,
    scope: str,
    history: bool,
    match: str,
    where: str,
    params: list[object],
    limit: int,
    probe: list[int] | None = None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None]:
    """Score every filtered match with bm25(): right for any query, slow for common words.

    Third: which `probe` rows are filtered matches (None without a probe).
    """
    fts, rows = tables(scope, history)
    bm25 = bm25_sql(fts)
    # bm25() cannot sit beside a window function, so it is scored in a subquery.
    # The same window tells which `probe` rows are filtered matches.
    extra, args = "", []
    if probe:
        extra = ", json_group_array(rowid) FILTER (WHERE rowid IN (SELECT value FROM json_each(?))) OVER ()"
        args = [json.dumps(probe)]
    sql = (
        f"SELECT rowid, id, -score, count(*) OVER (){extra} FROM (SELECT r.rowid AS rowid,"
        f" r.id AS id, {bm25} AS score FROM {fts} CROSS JOIN {rows} r ON r.rowid = {fts}.rowid"
        f" WHERE {fts} MATCH ? AND {where}) ORDER BY score, id LIMIT {int(limit)}"
    )
    found = conn.execute(sql, [*args, match, *params]).fetchall()
    counted = int(found[0][3]) if found else 0
    matched = {int(r) for r in json.loads(found[0][4])} if probe and found else (set() if probe else None)
    return counted, [(int(a), str(b), float(c)) for a, b, c, *_ in found], matched


def _idf(records: int, hits: int) -> float:
    """FTS5's IDF: log((N − n + ½) / (n + ½)), raised to 1e-6 when not positive."""
    value = math.log((records - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def _rowid_list(conn: sqlite3.Connection, sql: str, params: list[object]) -> ranking.Ints:
    """The rowids a query lists, read as one JSON array (far faster than row by row)."""
    (listed,) = conn.execute(f"SELECT json_group_array(rowid) FROM ({sql})", params).fetchone()
    return np.array(json.loads(listed), dtype=np.int64)


def _ranked_weights(
    conn: sqlite3.Connection,
    scope: str,
    words: list[str],
    mode: str,
    match: str,
    parts: list[Condition],
    limit: int,
    probe: list[int] | None,
) -> tuple[int, list[tuple[int, str, float]], set[int] | None] | None:
    """The same answer as `_ranked_exact`, from the stored term weights (`ranking`).

    Matches, phrases, filters, IDF and BM25 are worked out in arrays over
    every current record, so a word found in most records costs milliseconds
    instead of a bm25() call per match. None — the caller scores with bm25() —
    when the words match so few records that bm25() is as quick, when a word
    is not one FTS5 term, or when too many records are unsure.
    """
    if not all(terms.one_term(w) for w in words):
        return None
    stats = terms.totals(conn, scope)
    if stats is None or stats[0] == 0:
        return None
    records, tokens = stats
    avgdl = tokens / records
    layout = ranking.layout(conn, scope)
    unsure = layout.unsure()
    if len(unsure) > UNSURE_MOST:
        return None
    distinct = list(dict.fromkeys(words))
    phrase_mode = mode == "phrase" and len(words) > 1
    read = {w: ranking.term(conn, scope, layout, w, phrase_mode) for w in distinct}
    freqs = {w: read[w].frequencies(layout) for w in distinct}
    held = [freqs[w] > 0.0 for w in distinct]
    present = np.logical_or.reduce(held) if mode == "any" else np.logical_and.reduce(held)
    if int(np.count_nonzero(present)) <= EXACT_BELOW:
        return None
    fts, rows = tables(scope)
    if phrase_mode:
        found = {w: read[w].occurrences() for w in distinct}
        phrase = ranking.phrase_frequencies(layout, [found[w] for w in words])
        present = phrase > 0.0
        used = [phrase]
        idf = [_idf(records, int(np.count_nonzero(present)) + _unsure_count(conn, fts, rows, match, unsure))]
    else:
        counts = {w: int(np.count_nonzero(freqs[w])) for w in distinct}
        for w in distinct if len(unsure) else []:
            counts[w] += _unsure_count(conn, fts, rows, f'"{w}"', unsure)
        used = [freqs[w] for w in words]
        idf = [_idf(records, counts[w]) for w in words]
    keep = _kept(conn, scope, layout, parts)
    selected = np.flatnonzero(present & keep & (layout.sizes > 0))
    lengths = layout.sizes[selected].astype(np.float64)
    scores = ranking.bm25([f[selected] for f in used], idf, lengths, avgdl)
    top = ranking.best(scores, limit)
    best = dict(zip(layout.rowids(selected[top]).tolist(), scores[top].tolist(), strict=True))
    # unsure records: whether they match, pass the filters and how they score, by bm25()
    where, params = joined(parts)
    odd = _unsure_matches(conn, fts, rows, match, unsure, where, params) if len(unsure) else {}
    best.update(odd)
    matched = None
    if probe:
        wanted = np.array(probe, dtype=np.int64)
        slots = layout.slots(wanted)
        hit = (slots >= 0) & present[np.maximum(slots, 0)]
        matched = {int(r) for r in wanted[hit]} | set(odd)
    return len(selected) + len(odd), _by_score_then_id(conn, rows, best, limit), matched


def _kept(
    conn: sqlite3.Connection, scope: str, layout: ranking.Layout, parts: list[Condition]
) -> ranking.Mask:
    """Which slots pass eligibility, the window and every filter: each filter's rows
    come from its own covering index (`keyword.FACETS`) or the tags table, and the rows failing
    eligibility or their window from the exceptions index (`_left_out`), so the
    rows table itself is never scanned."""
    _, rows = tables(scope)
    keep = layout.sizes > 0
    live = parts[0]
    most = max(MAX_EXCEPTIONS, len(layout.sizes) // EXCEPTIONS_SHARE)
    left_out = _left_out(conn, scope, live.sql, live.values, most)
    if left_out is None:
        # many exceptions: test eligibility and window with the first filter (every
        # filter's index holds their columns), or alone when there is no filter
        first = parts[1] if len(parts) > 1 else Condition("1", [])
        both = f"SELECT rowid FROM {rows} r WHERE {live.sql} AND {first.sql}"
        keep &= layout.mask(_rowid_list(conn, both, [*live.values, *first.values]))
        parts = parts[2:]
    else:
        keep[layout.slots(left_out)] = False  # never -1: rows hold them
        parts = parts[1:]
    for part in parts:
        keep &= _listed(
            conn, scope, layout, part.listing or f"SELECT rowid FROM {rows} r WHERE {part.sql}", part.values
        )
    return keep


def _listed(
    conn: sqlite3.Connection, scope: str, layout: ranking.Layout, listing: str, values: list[object]
) -> ranking.Mask:
    """The slots a filter lists, kept between searches while nothing is committed
    (`kept`): an agent repeats its filters (what it may see, a kind, a type), and
    listing a few thousand rows costs tens of milliseconds at 100k. A filter never
    holds the time of the search (the window is the eligibility test's, `_left_out`),
    so its key repeats. Kept with the layout its slots are places in, and lasting (`kept`):
    a filter's mask is a byte a slot (1 MB at a million records), and the postings of a few
    common words there would otherwise push every filter out after each search."""

    def read() -> tuple[ranking.Layout, ranking.Mask]:
        mask = layout.mask(_rowid_list(conn, listing, values))
        mask.setflags(write=False)
        return layout, mask

    key = ("listing", scope, listing, json.dumps(values), id(layout))
    found = kept.kept(conn, key, read, lambda r: int(r[1].nbytes), lasting=True)
    return found[1] if found[0] is layout else read()[1]


def _unsure_matches(
    conn: sqlite3.Connection,
    fts: str,
    rows: str,
    match: str,
    rowids: ranking.Ints,
    where: str,
    params: list[object],
) -> dict[int, float]:
    """The scores, by bm25(), of the given rowids that match and pass the filters."""
    return {
        int(r): float(s)
        for r, s in conn.execute(
            f"SELECT {fts}.rowid, -{bm25_sql(fts)} FROM {fts}"
            f" CROSS JOIN {rows} r ON r.rowid = {fts}.rowid"
            f" WHERE {fts} MATCH ? AND {fts}.rowid IN (SELECT value FROM json_each(?)) AND {where}",
            [match, json.dumps(rowids.tolist()), *params],
        )
    }


def _unsure_count(conn: sqlite3.Connection, fts: str, rows: str, match: str, rowids: ranking.Ints) -> int:
    """How many of the given rowids match (for IDF, which counts every row)."""
    if not len(rowids):
        return 0
    return int(
        conn.execute(
            f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
            (match, json.dumps(rowids.tolist())),
        ).fetchone()[0]
    )


def _by_score_then_id(
    conn: sqlite3.Connection, rows: str, scores: dict[int, float], limit: int
) -> list[tuple[int, str, float]]:
    """The best `limit` of the scored rowids, ties broken by id as bm25()'s ORDER BY does."""
    ids = dict(
        conn.execute(
            f"SELECT rowid, id FROM {rows} WHERE rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(scores)),),
        ).fetchall()
    )
    ranked = sorted((-s, str(ids[r]), r) for r, s in scores.items())[:limit]
    return [(r, i, -s) for s, i, r in ranked]


def _left_out(
    conn: sqlite3.Connection, scope: str, where: str, params: list[object], most: int = MAX_EXCEPTIONS
) -> ranking.Ints | None:
    """The current rows that fail eligibility or their window, or None when there are
    more than `most`.

    Only rows in the exceptions index (ineligible or windowed) can fail those
    tests, so a search removes these few from its matches (`_kept`) instead of
    testing every row.
    """
    _, rows = tables(scope)
    index = keyword.exceptions_index(scope)
    exceptions = keyword.EXCEPTIONS.replace("eligible", "r.eligible").replace("active_", "r.active_")
    failing = _rowid_list(
        conn,
        f"SELECT r.rowid AS rowid FROM {rows} r INDEXED BY {index}"
        f" WHERE ({exceptions}) AND NOT coalesce(({where}), 0) LIMIT {int(most) + 1}",
        params,
    )
    return failing if len(failing) <= most else None
