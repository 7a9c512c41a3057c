"""Keyword search over notes (issue 25 §3: `knowledge grep VAULT QUERY --kind note`).

The query language is the records' (spec: retrieval-and-dates, Query
contract): the same tokens, modes, limits and no FTS syntax, so a query that
finds a record finds a note worded the same way. Notes have no type,
lifecycle or structured dates, so those filters are refused instead of
quietly matching nothing; a tag and a partition narrow notes as they narrow
records. Ranking is FTS5's bm25() over the one notes table
(`store/projections/note_text.py`): notes never change how records rank.

A hit has the shape of a record hit where the two overlap (`title`, `path`,
`hash`, `score`, `scope`, `snippet`, `matches`, `citation`), with `kind:
"note"` and `id`, `type` and `lifecycle` null, so the window shows both in
one list.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.query.grep_query import (
    MAX_OFFSET,
    GrepQuery,
    match_expression,
    unavailable,
    validate,
)
from knowledge_desktop.engine.query.inventory import now_text
from knowledge_desktop.engine.store.projections import note_text

NOTE = "note"


def for_notes(q: GrepQuery) -> bool:
    """Whether a search can match notes: kind note, or no filter only records have."""
    if q.kind == NOTE:
        return True
    return q.kind is None and q.types is None and q.lifecycle == "active" and q.time_field is None


def check(q: GrepQuery) -> list[str]:
    """The query's words, after the checks records' search makes and the notes' own."""
    if q.types is not None:
        raise QueryError("notes have no type; drop --type to search notes")
    if q.lifecycle != "active":
        raise QueryError("notes have no lifecycle; search notes with the default (active)")
    if q.time_field is not None:
        raise QueryError("notes have no structured dates to filter by; drop --time-field")
    return validate(replace(q, kind=None))


def grep_notes(conn: sqlite3.Connection, q: GrepQuery, scope: str | None = None) -> dict[str, Any]:
    """One page of notes matching `q`, best first (ties by path), and their total."""
    words = check(q)
    where = [f"{note_text.FTS} MATCH ?"]
    params: list[object] = [match_expression(words, q.mode)]
    if scope is not None:
        where.append("r.scope = ?")
        params.append(scope)
    if q.tag:
        where.append("EXISTS (SELECT 1 FROM json_each(r.tags) WHERE value = ?)")
        params.append(q.tag)
    joined = (
        f"FROM {note_text.FTS} JOIN {note_text.ROWS} r ON r.rowid = {note_text.FTS}.rowid"
        f" WHERE {' AND '.join(where)}"
    )
    weights = ", ".join(str(w) for w in note_text.WEIGHTS)
    try:
        total = int(conn.execute(f"SELECT count(*) {joined}", params).fetchone()[0])
        rows = conn.execute(
            f"SELECT r.rowid, -bm25({note_text.FTS}, {weights}) AS score {joined}"
            " ORDER BY score DESC, r.path LIMIT ? OFFSET ?",
            [*params, q.limit, q.offset],
        ).fetchall()
        hits = [hit(conn, int(rowid), float(score), words) for rowid, score in rows]
    except sqlite3.DatabaseError as exc:
        return unavailable(q.offset, exc)
    want = q.offset + q.limit
    return {
        "hits": hits,
        "total": total,
        "offset": q.offset,
        "nextOffset": want if want < total and want <= MAX_OFFSET else None,
        "snapshot": f"notes:{note_text.generation(conn)}",
        "index": {"state": "ready", "lag": False},
        "coverage": {"complete": True},
        "freshness": {"queriedAt": now_text()[:23] + "Z"},
    }


def hit(conn: sqlite3.Connection, rowid: int, score: float, words: list[str]) -> dict[str, Any]:
    """A note hit: a snippet around the first matched word of the body, as records have."""
    path, scope, title, tags, body_line, sha = conn.execute(
        f"SELECT path, scope, title, tags, body_line, sha256 FROM {note_text.ROWS} WHERE rowid=?", (rowid,)
    ).fetchone()
    title_text, aliases_text, tags_text, body = conn.execute(
        f"SELECT title, aliases, tags, body FROM {note_text.FTS} WHERE rowid=?", (rowid,)
    ).fetchone()
    matches = textmod.field_matches(words, title=title_text, aliases=aliases_text, tags=tags_text, body=body)
    snip = textmod.snippet(body, words) if "body" in matches else textmod.snippet(body, [], locate=False)
    line_start = body_line + body.count("\n", 0, snip.char_start)
    line_end = body_line + body.count("\n", 0, max(snip.char_start, snip.char_end - 1))
    return {
        "kind": NOTE,
        "id": None,
        "type": None,
        "title": title,
        "path": path,
        "hash": sha,
        "score": round(score, 6),
        "lifecycle": None,
        "scope": scope,
        "aliases": [a for a in aliases_text.split("\n") if a],
        "tags": json.loads(tags),
        "snippet": textmod.snippet_json(snip, line_start, line_end),
        "matches": matches,
        "citation": {"id": None, "path": path, "sha256": sha, "lines": [line_start, line_end]},
    }


def combined(records: dict[str, Any], notes: dict[str, Any] | None, q: GrepQuery) -> dict[str, Any]:
    """Records' page and notes' page as one list, records first (issue 25 §3).

    `records` is the records' answer for `q`; `notes` the notes' answer for
    `notes_window(q, records)`, None when the query cannot match notes. Totals
    and offsets count records, then notes."""
    if notes is None or records["total"] is None or notes["total"] is None:
        return records
    out = dict(records)
    left = max(0, q.limit - len(records["hits"]))
    out["hits"] = [*records["hits"], *notes["hits"][:left]]
    total = records["total"] + notes["total"]
    out["total"] = total
    end = q.offset + len(out["hits"])
    out["nextOffset"] = end if end < total and end <= MAX_OFFSET else None
    out["snapshot"] = ";".join(s for s in (records.get("snapshot"), notes.get("snapshot")) if s)
    return out


def notes_window(q: GrepQuery, records: dict[str, Any]) -> GrepQuery:
    """The notes' part of the page `q` asks for, after the records' matches. Asked even when
    the records fill the page (one hit, dropped), for the notes' total."""
    left = q.limit - len(records["hits"])
    return replace(q, kind=NOTE, offset=max(0, q.offset - (records["total"] or 0)), limit=max(1, left))
