"""Superseded wording: a search's words found only in a superseded record lead
to the current record that replaced it (spec: retrieval-and-dates —
Superseded wording).

Superseded records live in each partition's history tables. Matching ones
are followed along `superseded_by` (eligible records only, at most
`MAX_SUPERSEDED_HOPS` of them) to the current record at the chain's end,
which is shown as a hit after every direct one, with the superseded record
as its `via`.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

from knowledge_desktop.engine.limits import MAX_SUPERSEDED_HOPS
from knowledge_desktop.engine.query import kept
from knowledge_desktop.engine.query.grep_hits import Hit
from knowledge_desktop.engine.query.grep_query import GrepQuery, filter_sql
from knowledge_desktop.engine.query.grep_ranking import bm25_sql
from knowledge_desktop.engine.store.projections import keyword
from knowledge_desktop.engine.store.projections.keyword import tables


class EarlierWording:
    """Current records reached from superseded records that match (spec: Superseded wording).

    Built before the direct ranking: `rowids` are the current rows the matching
    superseded records lead to, and the ranking's count of the matches tells
    which of them match directly (`finals`). Only when replacements can reach
    the page are the superseded records scored (`hits`).
    """

    def __init__(self, conn: sqlite3.Connection, scope: str, q: GrepQuery, match: str, now: str) -> None:
        self.conn, self.scope, self.q, self.match, self.now = conn, scope, q, match, now
        # what the matching superseded records lead to depends on the text and the chains
        # alone, not on the filters or the time: kept while nothing is committed (`kept`)
        self.ends, self.ids, self.rowids = kept.kept(
            conn, ("earlier", scope, match), lambda: reached(conn, scope, match), _reached_bytes
        )
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

    def hits(self, finals: set[str]) -> list[Hit]:
        """One hit per matching superseded record whose chain ends in `finals`, with its score."""
        if not finals:
            return []
        hfts, hrows = tables(self.scope, True)
        bm25 = bm25_sql(hfts)
        out: list[Hit] = []
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
            out.append(Hit(self.scope, self.current[final], None, False, final, via, ["superseded"]))
        return out


def reached(
    conn: sqlite3.Connection, scope: str, match: str
) -> tuple[dict[str, str | None], dict[int, str], list[int]]:
    """For the superseded records matching `match`: where each chain they start ends
    (by its first step), and the current rows (rowid -> id, and the rowids in order) at
    those ends, filters not applied yet."""
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
    ends = chain_ends(conn, hrows, sources) if sources else {}
    wanted = sorted({t for t in ends.values() if t})
    ids: dict[int, str] = {}
    if wanted:
        ids = {
            int(r): str(i)
            for r, i in conn.execute(
                f"SELECT rowid, id FROM {rows} INDEXED BY {rows}_id"
                " WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),),
            )
        }
    return ends, ids, sorted(ids)


def _reached_bytes(found: tuple[dict[str, str | None], dict[int, str], list[int]]) -> int:
    return 200 * (len(found[0]) + len(found[1])) + 8 * len(found[2])


def chain_ends(conn: sqlite3.Connection, hrows: str, sources: set[str]) -> dict[str, str | None]:
    """Where each superseded_by chain ends, following eligible superseded records (their
    steps are kept while nothing is committed, `kept`; lasting: every search with
    superseded records reads them)."""
    steps = kept.kept(
        conn, ("steps", hrows), lambda: _steps(conn, hrows), lambda s: 200 * len(s), lasting=True
    )
    ends: dict[str, str | None] = {}
    for start in sources:
        target: str | None = start
        seen: set[str] = set()
        while target is not None and target in steps and target not in seen:
            if len(seen) >= MAX_SUPERSEDED_HOPS:
                break
            seen.add(target)
            target = steps[target]
        ends[start] = target if target not in seen else None
    return ends


def _steps(conn: sqlite3.Connection, hrows: str) -> dict[str, str | None]:
    return dict(conn.execute(f"SELECT id, superseded_by FROM {hrows} WHERE eligible=1"))
