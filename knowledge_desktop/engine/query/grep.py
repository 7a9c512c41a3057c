"""Keyword search (spec: retrieval-and-dates — Query contract, Superseded wording,
Results and citations, Index behavior).

FTS5/BM25 over title (weight 8), aliases (6) and body (1) of the records a
partition currently holds. Every word token must match by default; `any`
needs one; `phrase` needs the tokens in order and adjacent within one field.
Query text is never FTS syntax: tokens are taken from it and quoted, so
`OR`, `NOT`, `NEAR(`, `*`, `:` or quotes are plain words.

Eligibility, validity windows and the filters are applied before ranking,
so before a page is cut. Ranking statistics are those of the partition's
current records (each partition has its own tables); searching several
partitions merges their hits by score.

Scoring every match with bm25() costs about 3 µs a match, which a word found
in most of 100,000 records turns into hundreds of milliseconds. So when the
words of a search of current records match many of them, it is answered
from the stored term weights instead (`_ranked_weights`, `ranking`): the
same scores, computed for every match at once in arrays. Both ways give the
same page, scores and totals, to the bit.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query import ranking
from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.query.inventory import now_text
from knowledge_desktop.engine.store.projections import keyword, terms
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


def filter_sql(
    q: GrepQuery, alias: str, now: str, current: bool, tags: str | None = None
) -> tuple[str, list[object]]:
    """The WHERE clause for eligibility, validity window and the filters; `tags` names
    the table listing the current rows' tags (superseded rows are tested by their JSON)."""
    return _joined(filter_parts(q, alias, now, current, tags))


class Condition(NamedTuple):
    """One condition of a search's WHERE clause (alias `r` for the rows table) and,
    where a table lists the rows it keeps more directly, that listing's SQL."""

    sql: str
    values: list[object]
    listing: str | None = None


def filter_parts(
    q: GrepQuery, alias: str, now: str, current: bool, tags: str | None = None
) -> list[Condition]:
    """`filter_sql` as separate conditions: eligibility and window first, then one
    per filter (kind, type, tag, date range), each of which an index answers alone."""
    live = f"{alias}.eligible=1"
    window: list[object] = []
    if current:
        live += (
            f" AND ({alias}.active_from IS NULL OR {alias}.active_from <= ?) AND "
            f"({alias}.active_until IS NULL OR {alias}.active_until > ?)"
        )
        window = [now, now]
    parts: list[Condition] = [Condition(live, window)]
    if q.kind:
        parts.append(Condition(f"{alias}.kind=?", [q.kind]))
    if q.types is not None:
        parts.append(Condition(f"{alias}.type IN ({','.join('?' * len(q.types))})", [*sorted(q.types)]))
    if q.tag and tags is not None:
        listing = f"SELECT rowid FROM {tags} WHERE tag=?"
        parts.append(Condition(f"{alias}.rowid IN ({listing})", [q.tag], listing))
    elif q.tag:
        # instr() on the stored JSON (the tag as json.dumps writes it) is a cheap
        # necessary test; json_each() then confirms it is a whole list element.
        parts.append(
            Condition(
                f"instr({alias}.tags, ?) AND EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value=?)",
                [json.dumps(q.tag), q.tag],
            )
        )
    if q.time_field:
        column = q.time_field.removesuffix("_at")
        low, high = bounds(q.since, q.until)
        condition = f"{alias}.{column}_start IS NOT NULL"
        values: list[object] = []
        if low is not None:
            condition += f" AND {alias}.{column}_end > ?"
            values.append(low)
        if high is not None:
            condition += f" AND {alias}.{column}_start < ?"
            values.append(high)
        parts.append(Condition(condition, values))
    return parts


def _ranked(
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
    where, params = _joined(parts)
    return _ranked_exact(conn, scope, history, match, where, params, limit, probe=probe)


def _joined(parts: list[Condition]) -> tuple[str, list[object]]:
    return " AND ".join(p.sql for p in parts), [v for p in parts for v in p.values]


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
    bm25 = BM25.format(fts=fts)
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
    where, params = _joined(parts)
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
    left_out = _left_out(conn, scope, live.sql, live.values)
    if left_out is None:
        # many exceptions: test eligibility and window with the first filter (every
        # filter's index holds their columns), or alone when there is no filter
        first = parts[1] if len(parts) > 1 else Condition("1", [])
        parts = [Condition(f"{live.sql} AND {first.sql}", [*live.values, *first.values]), *parts[2:]]
    else:
        keep[layout.slots(np.array(left_out, dtype=np.int64))] = False  # never -1: rows hold them
        parts = parts[1:]
    for part in parts:
        listing = part.listing or f"SELECT rowid FROM {rows} r WHERE {part.sql}"
        keep &= layout.mask(_rowid_list(conn, listing, part.values))
    return keep


UNSURE_MOST = 64
"""Unsure records a search scores with bm25() one by one; past that it scores every match."""


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
            f"SELECT {fts}.rowid, -{BM25.format(fts=fts)} FROM {fts}"
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


def _left_out(conn: sqlite3.Connection, scope: str, where: str, params: list[object]) -> list[int] | None:
    """The current rows that fail eligibility or their window, or None when there are too many.

    Only rows in the exceptions index (ineligible or windowed) can fail those
    tests, so a search removes these few from its matches (`_kept`) instead of
    testing every row.
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
                tags = None if history else keyword.tags_table(scope)
                parts = filter_parts(q, "r", now, current=not history, tags=tags)
                probe = (earlier.rowids or None) if earlier is not None and not history else None
                count, ranked, matched = _ranked(conn, scope, history, words, q, parts, want, probe)
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
                f"SELECT h.superseded_by FROM {hfts} CROSS JOIN {hrows} h ON h.rowid = {hfts}.rowid"
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
        where, params = filter_sql(self.q, "r", self.now, current=True, tags=keyword.tags_table(self.scope))
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
            f"FROM {hfts} CROSS JOIN {hrows} h ON h.rowid = {hfts}.rowid "
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
