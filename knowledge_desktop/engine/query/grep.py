"""Keyword search (spec: retrieval-and-dates — Query contract, Superseded wording,
Results and citations, Index behavior).

FTS5/BM25 over title (weight 8), aliases (6) and body (1) of the records a
partition currently holds. Every word token must match by default; `any`
needs one; `phrase` needs the tokens in order and adjacent within one field.

`grep` puts a search together from four parts, each in its own module:
the query and its filters (`grep_query`), each partition's best matches
(`grep_ranking`, with the array arithmetic in `ranking`), current records
reached through superseded wording (`grep_superseded`), and the hits of
the page as shown (`grep_hits`). Searching several partitions merges their
hits by score. The window's search (`names_first`) puts the records the query
names exactly — full title or alias — before the rest.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.query.grep_hits import Hit, complete
from knowledge_desktop.engine.query.grep_query import (
    MAX_OFFSET,
    Condition,
    GrepQuery,
    filter_parts,
    match_expression,
    unavailable,
    validate,
)
from knowledge_desktop.engine.query.grep_ranking import ranked
from knowledge_desktop.engine.query.grep_superseded import EarlierWording
from knowledge_desktop.engine.query.inventory import now_text
from knowledge_desktop.engine.store.projections import keyword


def grep(
    conn: sqlite3.Connection, q: GrepQuery, scopes: list[str], state: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    words = validate(q)
    match = match_expression(words, q.mode)
    now = q.at or now_text()
    want = q.offset + q.limit
    direct: list[Hit] = []
    named: set[tuple[str, int]] = set()
    total = 0
    history_modes = {"active": (False,), "superseded": (True,), "all": (False, True)}
    try:
        replacements: list[Hit] = []
        reached: list[tuple[EarlierWording, set[str]]] = []
        for scope in scopes:
            earlier = EarlierWording(conn, scope, q, match, now) if q.lifecycle == "active" else None
            for history in history_modes[q.lifecycle]:
                tags = None if history else keyword.tags_table(scope)
                parts = filter_parts(q, "r", now, current=not history, tags=tags)
                probe = (earlier.rowids or None) if earlier is not None and not history else None
                count, best, matched = ranked(conn, scope, history, words, q, parts, want, probe)
                total += count
                direct += [Hit(scope, rowid, score, history, rid) for rowid, rid, score in best]
                if q.names_first and not history:
                    named |= _named(conn, scope, words, q, parts, want, direct)
                if earlier is not None and not history:
                    reached.append((earlier, earlier.finals(matched)))
        direct.sort(key=lambda h: ((h.scope, h.rowid) not in named, -(h.score or 0.0), h.record_id))
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
        hits = [complete(conn, hit, words, q) for hit in page]
    except sqlite3.DatabaseError as exc:
        return unavailable(q.offset, exc)
    next_offset = want if want < total_all and want <= MAX_OFFSET else None
    states = {s: state(s) for s in scopes}
    return {
        "hits": hits,
        "total": total_all,
        "replaced": replaced,
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


def _named(
    conn: sqlite3.Connection,
    scope: str,
    words: list[str],
    q: GrepQuery,
    parts: list[Condition],
    want: int,
    direct: list[Hit],
) -> set[tuple[str, int]]:
    """`names_first`: the matches of `scope` named exactly by the query, added to `direct`
    when BM25 left them off the page; returns their (scope, rowid).

    They pass the same filters and the same MATCH as every hit, so the total is unchanged,
    and the first `want` of "named, then the rest in BM25 order" are among these and the
    BM25 page already scored (the rest's first `want` minus the named ones are in it)."""
    named = Condition("r.path IN (SELECT path FROM catalog_names WHERE name=?)", [normalise_name(q.query)])
    _count, best, _matched = ranked(conn, scope, False, words, q, [*parts, named], want)
    have = {(h.scope, h.rowid) for h in direct}
    direct += [
        Hit(scope, rowid, score, False, rid) for rowid, rid, score in best if (scope, rowid) not in have
    ]
    return {(scope, rowid) for rowid, _rid, _score in best}


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
