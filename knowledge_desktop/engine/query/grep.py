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
records are first ranked among candidates — records where a query word is
"strong" (keyword.strong_terms) — and that page is kept only when its last
score provably beats every record left out; otherwise every match is scored.
Both ways give the same page, scores and totals.
"""

from __future__ import annotations

import json
import math
import sqlite3
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
"""An unfiltered total looks up at most this many ineligible or windowed rows
in the match (`_left_out`); with more it joins every match to the rows table."""
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

    Third, when it came for free: which rowids of `probe` (rows that pass the
    filters) are matches; None when the caller must ask.
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
    return (*_ranked_exact(conn, scope, history, match, where, params, limit), None)


def _ranked_exact(
    conn: sqlite3.Connection,
    scope: str,
    history: bool,
    match: str,
    where: str,
    params: list[object],
    limit: int,
) -> tuple[int, list[tuple[int, str, float]]]:
    """Score every filtered match with bm25(): right for any query, slow for common words."""
    fts, rows = tables(scope, history)
    bm25 = BM25.format(fts=fts)
    # bm25() cannot sit beside a window function, so it is scored in a subquery.
    sql = (
        f"SELECT rowid, id, -score, count(*) OVER () FROM (SELECT r.rowid AS rowid,"
        f" r.id AS id, {bm25} AS score FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
        f" WHERE {fts} MATCH ? AND {where}) ORDER BY score, id LIMIT {int(limit)}"
    )
    found = conn.execute(sql, [match, *params]).fetchall()
    total = int(found[0][3]) if found else 0
    return total, [(int(a), str(b), float(c)) for a, b, c, _ in found]


def _idf(records: int, hits: int) -> float:
    """FTS5's IDF: log((N − n + ½) / (n + ½)), raised to 1e-6 when not positive."""
    value = math.log((records - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


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
    """The same answer as `_ranked_exact`, scoring only records with a strong query term.

    A record where query word w is not stored at level i or above (see
    keyword.strong_terms) scores below IDF(w) × STRONG_LEVELS[i] for w, and a
    phrase scores no higher in a record than any of its words; so a record
    left out scores below `bound`, and a candidates' page whose last score
    reaches the bound is the page. When it does not, every filtered match is
    scored. None — the caller scores every match — when the strong sets are
    stale or the filters keep so few records that full scoring is cheaper.
    Totals are exact counts either way; `plain` (no kind, type, tag or date
    filter) lets the total skip the join to the rows table (`_left_out`).
    """
    fts, rows = tables(scope)
    strong = keyword.strong_table(scope)
    stats = keyword.totals(conn, scope)
    cut = keyword.strong_avgdl(conn, scope)
    if stats is None or cut is None or stats[0] == 0 or stats[1] / stats[0] > cut:
        return None
    records = stats[0]
    # Filters that keep few records make full scoring cheap, and cheaper than the
    # count this path needs first: judge them on a slice of the rows table.
    sample, kept = conn.execute(
        f"SELECT count(*), total({where}) FROM (SELECT * FROM {rows} ORDER BY rowid LIMIT {SAMPLE}) r", params
    ).fetchone()
    if sample and records * kept / sample <= 2 * EXACT_BELOW:
        return None
    left_out = None
    if plain:
        hits = int(conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (match,)).fetchone()[0])
        left_out = _left_out(conn, scope, match, where, params)
    if left_out is not None:
        total = hits - left_out
    else:
        counted, passed = conn.execute(
            f"SELECT count(*), total({where}) FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid"
            f" WHERE {fts} MATCH ?",
            [*params, match],
        ).fetchone()
        hits, total = int(counted), int(passed)
    bm25 = BM25.format(fts=fts)
    sql = (
        f"SELECT rowid, id, -score FROM (SELECT r.rowid AS rowid, r.id AS id, {bm25} AS score"
        f" FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid WHERE {fts} MATCH ? CANDIDATES"
        f" AND {where}) ORDER BY score, id LIMIT {int(limit)}"
    )

    def scored(candidates: str = "", cand_params: list[object] | None = None) -> list[tuple[int, str, float]]:
        rows_ = conn.execute(sql.replace("CANDIDATES", candidates), [match, *(cand_params or []), *params])
        return [(int(a), str(b), float(c)) for a, b, c in rows_]

    if total <= EXACT_BELOW:
        return total, scored(), None
    distinct = sorted(set(words))
    extra: list[str] = []  # words whose every match is a candidate
    if mode == "phrase":
        weight, strong_words, join = _idf(records, hits), distinct, " AND "
    elif mode == "all":
        # every word is in every match, so each word's document count is at least `hits`
        weight, strong_words, join = len(words) * _idf(records, hits), distinct, " OR "
    else:
        counts = {
            w: int(conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (f'"{w}"',)).fetchone()[0])
            for w in distinct
        }
        extra = [f'"{w}"' for w in distinct if counts[w] <= EXACT_BELOW]
        strong_words = [w for w in distinct if counts[w] > EXACT_BELOW]
        weight = sum(_idf(records, counts[w]) for w in words if counts[w] > EXACT_BELOW)
        join = " OR "
    levels = keyword.STRONG_LEVELS
    slots = 1 if mode == "phrase" else sum(1 for w in words if w in strong_words)
    level = len(levels) - min(max(slots, 1), len(levels) - 1)  # more words need a lower level

    def expression(level: int) -> str:
        stored = [
            "(" + " OR ".join(f'"{keyword.level_token(i, w)}"' for i in range(level, len(levels))) + ")"
            for w in strong_words
        ]
        return " OR ".join([*([f"({join.join(stored)})"] if stored else []), f'"{keyword.UNSURE}"'])

    def attempt(level: int) -> list[tuple[int, str, float]]:
        candidates = f"SELECT rowid FROM {strong} WHERE {strong} MATCH ?"
        cand_params: list[object] = [expression(level)]
        if extra:
            candidates += f" UNION ALL SELECT rowid FROM {fts} WHERE {fts} MATCH ?"
            cand_params.append(" OR ".join(extra))
        # The unary + keeps the rowid test off FTS5's index: one pass over the matches
        # (bm25() would otherwise recount every word's documents for each rowid).
        return scored(f" AND +{fts}.rowid IN ({candidates})", cand_params)

    def first_attempt(level: int) -> tuple[list[tuple[int, str, float]], set[int]]:
        """`attempt`, also telling which `probe` rows match: the same pass over the
        matches answers both (the superseded-wording check needs the second)."""
        candidates = f"SELECT rowid FROM {strong} WHERE {strong} MATCH ?"
        cand_params: list[object] = [expression(level)]
        if extra:
            candidates += f" UNION ALL SELECT rowid FROM {fts} WHERE {fts} MATCH ?"
            cand_params.append(" OR ".join(extra))
        rows_ = conn.execute(
            f"SELECT r.rowid, r.id, CASE WHEN +{fts}.rowid IN ({candidates}) THEN {bm25} END"
            f" FROM {fts} JOIN {rows} r ON r.rowid = {fts}.rowid WHERE {fts} MATCH ?"
            f" AND +{fts}.rowid IN ({candidates} UNION ALL SELECT value FROM json_each(?)) AND {where}",
            [*cand_params, match, *cand_params, json.dumps(probe), *params],
        ).fetchall()
        scored_rows = sorted(((float(c), str(b), int(a)) for a, b, c in rows_ if c is not None))[:limit]
        wanted = set(probe or ())
        return [(a, b, -c) for c, b, a in scored_rows], {int(a) for a, _, _ in rows_ if a in wanted}

    # Filters keep about total/hits of the candidates; start at the highest level
    # likely to leave a full page, and score everything when none is.
    def expected(level: int) -> float:
        stored = conn.execute(f"SELECT count(*) FROM {strong} WHERE {strong} MATCH ?", (expression(level),))
        return float(stored.fetchone()[0]) * total / max(hits, 1)

    while level > 0 and expected(level) < 2 * limit:
        level -= 1
    if not extra and expected(level) < limit:
        return total, scored(), None
    direct: set[int] | None = None
    if probe is None:
        found = attempt(level)
    else:
        found, direct = first_attempt(level)
    page = _candidate_page(found, total, limit, weight * levels[level])
    if page is None and level > 0:
        # More candidates only raise the page's last score, so the highest level
        # whose bound that score already clears is sure to succeed.
        lower = [
            i for i in range(level) if len(found) < limit or found[-1][2] >= weight * levels[i] * (1 + 1e-9)
        ]
        if lower:
            retry = max(lower) if len(found) == limit else 0
            page = _candidate_page(attempt(retry), total, limit, weight * levels[retry])
    return total, page if page is not None else scored(), direct


def _left_out(
    conn: sqlite3.Connection, scope: str, match: str, where: str, params: list[object]
) -> int | None:
    """How many matches an unfiltered search leaves out, or None when that is not cheap.

    Only rows in the exceptions index (ineligible or windowed) can fail the
    eligibility and window tests, so each of them is looked up in the match
    (FTS5 seeks a rowid in a few µs) instead of joining every match to the
    rows table. None when there are too many of them for lookups to pay.
    """
    fts, rows = tables(scope)
    index = keyword.exceptions_index(scope)
    exceptions = keyword.EXCEPTIONS.replace("eligible", "r.eligible").replace("active_", "r.active_")
    many = conn.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM {rows} r INDEXED BY {index} WHERE {exceptions}"
        f" LIMIT {MAX_EXCEPTIONS + 1})"
    ).fetchone()[0]
    if many > MAX_EXCEPTIONS:
        return None
    # CROSS JOIN keeps the exceptions outside: FTS5 then tests one rowid at a time.
    matched, passed = conn.execute(
        f"SELECT count(*), total({where}) FROM {rows} r INDEXED BY {index} CROSS JOIN {fts}"
        f" ON {fts}.rowid = r.rowid WHERE ({exceptions}) AND {fts} MATCH ?",
        [*params, match],
    ).fetchone()
    return int(matched) - int(passed)


def _candidate_page(
    found: list[tuple[int, str, float]], total: int, limit: int, bound: float
) -> list[tuple[int, str, float]] | None:
    """The candidates' page when it is provably the whole ranking's page, else None.

    Records outside the candidates score strictly below `bound`; the margin
    absorbs rounding between our bound and SQLite's arithmetic.
    """
    if len(found) == total or (len(found) == limit and found[-1][2] >= bound * (1 + 1e-9)):
        return found
    return None


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
        for scope in scopes:
            earlier = _Earlier(conn, scope, q, match, now) if q.lifecycle == "active" else None
            for history in history_modes[q.lifecycle]:
                where, params = filter_sql(q, "r", now, current=not history)
                probe = (earlier.rowids or None) if earlier is not None and not history else None
                count, ranked, matched = _ranked(conn, scope, history, words, q, where, params, want, probe)
                total += count
                direct += [_Hit(scope, rowid, score, history, rid) for rowid, rid, score in ranked]
                if earlier is not None and not history:
                    replacements += earlier.hits(matched)
        direct.sort(key=lambda h: (-(h.score or 0.0), h.record_id))
        if q.lifecycle == "active":
            replacements.sort(key=lambda h: (-(h.via or {}).get("_score", 0.0), (h.via or {}).get("id", "")))
            seen: set[tuple[str, str]] = set()
            unique = []
            for hit in replacements:
                if (hit.scope, hit.record_id) not in seen:
                    seen.add((hit.scope, hit.record_id))
                    unique.append(hit)
            replacements = unique
        total_all = total + len(replacements)
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

    Built before the direct ranking, whose pass over the matches can also tell
    which of these current records are direct matches (`rowids`, `hits`).
    """

    def __init__(self, conn: sqlite3.Connection, scope: str, q: GrepQuery, match: str, now: str) -> None:
        self.conn, self.scope, self.match = conn, scope, match
        self.earlier, self.ends, self.current = _replacement_targets(conn, scope, q, match, now)
        self.rowids = sorted(set(self.current.values()))

    def hits(self, matched: set[int] | None) -> list[_Hit]:
        if not self.earlier:
            return []
        if matched is None:
            fts, _ = tables(self.scope, False)
            # + keeps the rowids off FTS5's index: one pass over the matches instead of
            # re-running the query for every rowid (slow for common words).
            matched = {
                int(r)
                for (r,) in self.conn.execute(
                    f"SELECT rowid FROM {fts} WHERE {fts} MATCH ?"
                    " AND +rowid IN (SELECT value FROM json_each(?))",
                    (self.match, json.dumps(self.rowids)),
                )
            }
        out: list[_Hit] = []
        for rid, revision, title, path, sha, superseded_by, score in self.earlier:
            final = self.ends.get(superseded_by)
            if final is None or final not in self.current or self.current[final] in matched:
                continue  # missing, withdrawn, ineligible, filtered out, or a direct match
            via = {
                "id": rid,
                "revision": revision,
                "title": title,
                "path": path,
                "hash": sha,
                "_score": float(score),
            }
            out.append(_Hit(self.scope, self.current[final], None, False, final, via, ["superseded"]))
        return out


def _replacement_targets(
    conn: sqlite3.Connection, scope: str, q: GrepQuery, match: str, now: str
) -> tuple[list[Any], dict[str, str | None], dict[str, int]]:
    """Matching superseded records, where their chains end, and those ends that are
    current and pass the filters (id → rowid)."""
    hfts, hrows = tables(scope, True)
    _, rows = tables(scope, False)
    bm25 = BM25.format(fts=hfts)
    earlier = conn.execute(
        f"SELECT h.id, h.revision, h.title, h.path, h.sha256, h.superseded_by, -{bm25} "
        f"FROM {hfts} JOIN {hrows} h ON h.rowid = {hfts}.rowid "
        f"WHERE {hfts} MATCH ? AND h.eligible=1 ORDER BY {bm25}, h.id",
        (match,),
    ).fetchall()
    if not earlier:
        return [], {}, {}
    # Follow superseded_by through eligible superseded records, in memory.
    steps = dict(conn.execute(f"SELECT id, superseded_by FROM {hrows} WHERE eligible=1"))
    ends: dict[str, str | None] = {}
    for *_, superseded_by, _ in earlier:
        target: str | None = superseded_by
        seen: set[str] = set()
        while target is not None and target in steps and target not in seen:
            if len(seen) >= MAX_CHAIN:
                break
            seen.add(target)
            target = steps[target]
        ends[superseded_by] = target if target not in seen else None
    where, params = filter_sql(q, "r", now, current=True)
    wanted = sorted({t for t in ends.values() if t})
    current: dict[str, int] = {}
    for chunk in range(0, len(wanted), 500):
        ids = wanted[chunk : chunk + 500]
        current.update(
            (str(i), int(r))
            for r, i in conn.execute(
                f"SELECT r.rowid, r.id FROM {rows} r WHERE r.id IN ({','.join('?' * len(ids))}) AND {where}",
                [*ids, *params],
            )
        )
    return earlier, ends, current


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
