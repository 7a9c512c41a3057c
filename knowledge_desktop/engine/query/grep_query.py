"""A search's query: its words, mode and filters, checked and turned into SQL
(spec: retrieval-and-dates — Query contract).

Query text is never FTS syntax: tokens are taken from it and quoted, so
`OR`, `NOT`, `NEAR(`, `*`, `:` or quotes are plain words. The filters
(eligibility, validity window, kind, type, tag, date range) become separate
WHERE conditions, because the ranking answers each from its own index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.store.projections import keyword
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS

MODES = ("all", "any", "phrase")
LIFECYCLES = ("active", "superseded", "all")
MAX_TOKENS = 64
MAX_QUERY = 500
MAX_OFFSET = 500


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
    within: tuple[str, tuple[object, ...]] | None = None
    """An SQL condition on a rows table (alias `r`) and its values that a hit must meet
    too: what a reader may see (`api/visibility.py`), applied before ranking and counting."""
    names_first: bool = False
    """The window's search (issue 29 §8): current records whose full title or an alias is
    the query (normalised as exact lookup compares names) come before the other hits, which
    keep BM25 order. The spec's grep (CLI, MCP, extensions) leaves this off: its order is
    BM25 alone, and a person page scored below the relationships that repeat its name."""


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
    return joined(filter_parts(q, alias, now, current, tags))


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
    if q.within is not None:
        sql, within_values = q.within
        parts.append(Condition(f"({sql})", list(within_values)))  # written for alias `r`
    return parts


def joined(parts: list[Condition]) -> tuple[str, list[object]]:
    """Conditions as one WHERE clause and its values."""
    return " AND ".join(p.sql for p in parts), [v for p in parts for v in p.values]


def unavailable(offset: int, exc: Exception) -> dict[str, object]:
    """The answer of a search whose index cannot be read (damaged or missing tables): no
    hits and no total, the index "unavailable" with SQLite's reason."""
    return {
        "hits": [],
        "total": None,
        "offset": offset,
        "nextOffset": None,
        "index": {"state": "unavailable", "lag": False, "error": str(exc)},
        "snapshot": None,
        "coverage": {"complete": False},
    }
