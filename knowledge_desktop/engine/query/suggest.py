"""Name suggestions for the quick switcher: records whose title or alias contains the typed text.

Exact lookup (`lookup.py`) answers "which record is called exactly this";
a person typing into a switcher wants the records whose names *start* with
what they typed before ones that merely contain it. Both read the same
normalised names (`catalog_names`, normalised by `graph.keys.normalise_name`),
so a name the switcher offers is one lookup would also find.

Notes (issue 25) are offered too, by title, alias and file name, after the
current records and before the records that are not current: "records first
where both match" (issue 25 §3).

Ranking, best first: current (eligible) records before the rest, then by how
the name matched — the whole name (or the exact id), a prefix of the name, a
prefix of a later word in it, anywhere inside it — then shorter names, then
alphabetically. Ineligible records (superseded, invalid, duplicate) are still
offered, after the current ones, because a person may well want to open them.

Speed at 100k records: a prefix is an index range on `catalog_names_name`,
so the common case (typing the start of a title) never scans. Only when the
prefixes do not fill the list is the name index scanned for word and
substring matches. Each stage reads a window of names in rank order and
widens it only when too few of them belong to current records, so a query
matching most of the vault still sorts just one window.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.store.projections import note_text

MAX_TEXT = 200
MAX_LIMIT = 100
RANKS = ("exact", "prefix", "word", "substring")
WORD_STARTS = (" ", "-", "/", "(", "[", "_", ".", "'", '"')
"""Characters after which a match counts as the start of a word."""

_NAMES = f"(SELECT path, name FROM catalog_names UNION ALL SELECT path, name FROM {note_text.NAMES})"
"""Records' names and notes' names (file name, title, aliases), read as one list; each side
keeps its own index on name, which the prefix range reaches through the union."""
_HIGHEST = "\U0010ffff"  # sorts after every other character in SQLite's BINARY collation
_FIRST_WINDOW = 64
_WIDEN = 4


@dataclass(slots=True)
class _Candidate:
    path: str
    name: str
    rank: int
    by_id: bool = False


def suggest(conn: sqlite3.Connection, text: str, limit: int = 20) -> dict[str, Any]:
    """Up to `limit` records named like `text`, best first; blank text suggests nothing."""
    if len(text) > MAX_TEXT:
        raise QueryError(f"a name to suggest from is at most {MAX_TEXT} characters")
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
    wanted = normalise_name(text)
    if not wanted:
        return {"query": text, "items": []}
    found: dict[str, _Candidate] = {}
    rows: dict[str, dict[str, Any]] = {}

    def enough() -> bool:
        return sum(1 for p in found if p in rows and rows[p]["group"] < 2) >= limit

    stages: list[Callable[[int], list[_Candidate]]] = [
        lambda _w: _by_id(conn, text.strip()),
        lambda w: _prefixes(conn, wanted, w),
        lambda w: _inside(conn, wanted, w),
    ]
    for stage in stages:
        window = _FIRST_WINDOW
        while True:
            batch = stage(window)
            _merge(found, batch)
            _load(conn, [c.path for c in batch if c.path not in rows], rows)
            if enough() or len(batch) < window:
                break
            window *= _WIDEN
        if enough():
            break
    ordered = sorted(
        (c for c in found.values() if c.path in rows),
        key=lambda c: (rows[c.path]["group"], c.rank, len(c.name), c.name, c.path),
    )
    return {"query": text, "items": [_item(c, rows[c.path]) for c in ordered[:limit]]}


def _by_id(conn: sqlite3.Connection, text: str) -> list[_Candidate]:
    """A pasted id is the best possible match (ids are case-sensitive, so not normalised)."""
    if not text or any(ch.isspace() for ch in text):
        return []
    return [
        _Candidate(str(path), text, 0, by_id=True)
        for (path,) in conn.execute("SELECT path FROM catalog WHERE id=? AND status='record'", (text,))
    ]


def _prefixes(conn: sqlite3.Connection, wanted: str, window: int) -> list[_Candidate]:
    """Names equal to or starting with the text: an index range, no scan."""
    return [
        _Candidate(str(path), str(name), 0 if name == wanted else 1)
        for path, name in conn.execute(
            f"SELECT path, name FROM {_NAMES} WHERE name >= ?1 AND name < ?2"
            " ORDER BY length(name), name LIMIT ?3",
            (wanted, wanted + _HIGHEST, window),
        )
    ]


def _inside(conn: sqlite3.Connection, wanted: str, window: int) -> list[_Candidate]:
    """Names containing the text past their first character: word starts, then the rest."""
    word_start = " OR ".join(f"instr(name, {_sql_text(ch)} || :q) > 0" for ch in WORD_STARTS)
    sql = (
        f"SELECT path, name, CASE WHEN {word_start} THEN 2 ELSE 3 END AS rank"
        f" FROM {_NAMES} WHERE instr(name, :q) > 1"
        " ORDER BY rank, length(name), name LIMIT :window"
    )
    return [
        _Candidate(str(path), str(name), int(rank))
        for path, name, rank in conn.execute(sql, {"q": wanted, "window": window})
    ]


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _merge(found: dict[str, _Candidate], batch: Iterable[_Candidate]) -> None:
    """Keep each record once, by its best-ranked name."""
    for cand in batch:
        known = found.get(cand.path)
        if known is None or (cand.rank, len(cand.name)) < (known.rank, len(known.name)):
            found[cand.path] = cand


def _load(conn: sqlite3.Connection, paths: list[str], into: dict[str, dict[str, Any]]) -> None:
    """The catalog facts the switcher shows (and ranks by) for newly seen records."""
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        for path, status, rid, kind, type_, title, lifecycle, scope, eligible, aliases in conn.execute(
            "SELECT path, status, id, kind, type, title, lifecycle, scope, eligible, aliases FROM catalog"
            f" WHERE status IN ('record', 'note') AND path IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            note = status == "note"
            into[str(path)] = {
                "group": 1 if note else 0 if eligible else 2,
                "note": note,
                "id": rid,
                "kind": kind,
                "type": type_,
                "title": title,
                "lifecycle": lifecycle,
                "scope": scope,
                "eligible": bool(eligible) or note,
                "aliases": aliases,
            }


def _item(cand: _Candidate, row: dict[str, Any]) -> dict[str, Any]:
    title = row["title"]
    matched = "id" if cand.by_id else "title"
    alias = None
    if not cand.by_id and (title is None or normalise_name(title) != cand.name):
        aliases = json.loads(row["aliases"] or "[]")
        alias = next((a for a in aliases if isinstance(a, str) and normalise_name(a) == cand.name), None)
        matched = "alias" if alias is not None else "file" if row["note"] else "title"
    return {
        "id": row["id"],
        "kind": "note" if row["note"] else row["kind"],
        "type": row["type"],
        "title": title,
        "path": cand.path,
        "scope": row["scope"],
        "lifecycle": row["lifecycle"],
        "eligible": row["eligible"],
        "matched": matched,
        "alias": alias,
        "rank": RANKS[cand.rank],
    }
