"""Timeline and chronicle queries (spec: retrieval-and-dates, Dates and Chronicle).

- `timeline`: dated records, optionally about one entity, of one exact
  record type, on one date field, inside a range, in either order; current
  records by default, or also superseded and expired ones. An entity's records
  are those naming it (entities, owner, endpoints, evidence sources), the page
  itself, and what it takes part in: the records at the other end of its
  relationships (the meeting a person attended).
- `group="source"` with an entity: one row per dated source connected to the
  entity by a relationship or a sourced claim, dated by the source.
- `chronicle_day`: one day (or its Monday–Sunday week) in an IANA zone.
- `chronicle_since`: occurrences from a date until now, oldest first.
- `last_seen`: the latest dated context for an entity at or before a moment.

Bounds are inclusive; a date-only upper bound covers its whole UTC day, and a
date-only record matches every range its day overlaps.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.grep_query import bounds
from knowledge_desktop.engine.query.inventory import now_text
from knowledge_desktop.engine.store.projections import temporal as temporal_projection
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS, stamp

RESPONSE_BUDGET = 24 * 1024


def _current(alias: str) -> str:
    """The catalog row `alias` is a current record: eligible and inside its active window."""
    return (
        f"{alias}.eligible=1 AND ({alias}.active_from IS NULL OR {alias}.active_from <= :now) AND "
        f"({alias}.active_until IS NULL OR {alias}.active_until > :now)"
    )


def _inactive_too(alias: str) -> str:
    """The catalog row `alias` is current, superseded or expired, never withdrawn or broken."""
    return (
        f"{alias}.valid=1 AND {alias}.duplicate=0 AND {alias}.deps_ok=1"
        f" AND {alias}.lifecycle IN ('active', 'superseded')"
    )


CURRENT = _current("c")
INACTIVE_TOO = _inactive_too("c")


def _takes_part_in(eligibility: str) -> str:
    """Paths of the records at the other end of the entity's relationships.

    A person takes part in a meeting through an `attended` relationship, works at a
    company through `works_at`: the meeting is an endpoint association of the person
    (spec: retrieval-and-dates, Dates and Chronicle — endpoints associate, mentions do
    not), so the person's timeline shows it. Only a relationship that is itself
    current (or, with include_inactive, superseded or expired) connects them: a
    withdrawn "attended" proves nothing.
    """
    live = _current("r") if eligibility == "current" else _inactive_too("r")
    return (
        "SELECT o.path FROM associations_v1 a"
        f" JOIN catalog r ON r.path = a.path AND r.kind = 'relationship' AND {live}"
        " JOIN associations_v1 b ON b.path = a.path AND b.via IN ('from', 'to') AND b.entity_id != :entity"
        " JOIN catalog o ON o.id = b.entity_id AND o.scope = b.scope"
        " WHERE a.entity_id = :entity AND a.via IN ('from', 'to')"
    )


def timeline(
    conn: sqlite3.Connection,
    *,
    entity: str | None = None,
    kind: str | None = None,
    time_field: str = "occurred_at",
    since: str | None = None,
    until: str | None = None,
    order: str = "asc",
    eligibility: str = "current",
    include_sources: bool = False,
    group: str | None = None,
    scope: str | None = None,
    limit: int = 50,
    offset: int = 0,
    at: str | None = None,
    tz: str | None = None,
    span: tuple[str | None, str | None] | None = None,
    calendar: tuple[str, str] | None = None,
    notes: bool = False,
) -> dict[str, Any]:
    """Dated records overlapping `span` (or the `since`/`until` bounds).

    `calendar`, when given, is the half-open span of whole calendar dates the
    caller means (as UTC-midnight stamps): date-only values are kept when their
    date falls in it, whatever the span's zone, and only timestamps are judged
    against `span`. Without it every value is judged against the UTC span.

    `notes`: dated notes (issue 25 §3: daily notes, frontmatter `date`/`created`)
    are entries too, of kind "note", on the occurrence timeline of the whole
    vault or a partition. The spec's timeline (the extension API and MCP) lists
    records only and leaves this off; a kind or entity filter is about records,
    so it leaves notes out."""
    if time_field not in TIME_FIELDS:
        raise QueryError(f"timeField must be one of {', '.join(TIME_FIELDS)}")
    if order not in ("asc", "desc"):
        raise QueryError("order is asc or desc")
    if eligibility not in ("current", "include_inactive"):
        raise QueryError("eligibility is current or include_inactive")
    if not 1 <= limit <= 500 or offset < 0:
        raise QueryError("limit is 1-500 and offset is not negative")
    if group not in (None, "source"):
        raise QueryError("group can only be source")
    if group == "source":
        if entity is None:
            raise QueryError("group source needs an entity")
        return _by_source(conn, entity, scope, since, until, order, eligibility, at, limit, offset)
    low, high = span if span is not None else bounds(since, until)
    params: dict[str, Any] = {
        "field": time_field,
        "now": at or now_text(),
        "low": low,
        "high": high,
        "kind": kind,
        "entity": entity,
        "scope": scope,
    }
    # With an entity, "+" keeps the planner off the (field, start) index so it
    # starts from the entity's few associated paths instead of every dated row.
    field_test = "+t.field = :field" if entity is not None else "t.field = :field"
    live = CURRENT if eligibility == "current" else INACTIVE_TOO
    if notes and kind is None and entity is None and time_field == "occurred_at":
        live = f"({live} OR c.status = 'note')"
    where = [live, field_test]
    if low is not None:
        # Stored spans are at most one day long, so starts before low - 1 day cannot
        # overlap: this bound lets the (field, start) index skip them. (A calendar
        # span starts within a day of its zone's span, so the bound holds for it too.)
        params["low_floor"] = _minus_day(low)
        where.append("t.start >= :low_floor")
    if calendar is not None:
        params["date_low"], params["date_high"] = calendar
        overlap = " AND ".join(
            (["t.end > :low"] if low is not None else []) + (["t.start < :high"] if high is not None else [])
        )
        where.append(
            "(CASE WHEN t.date_only THEN t.start >= :date_low AND t.start < :date_high"
            f" ELSE {overlap or '1'} END)"
        )
        # A plain upper bound on start keeps the (field, start) index's range scan.
        params["start_ceiling"] = max(calendar[1], high) if high is not None else calendar[1]
        where.append("t.start < :start_ceiling")
    else:
        if low is not None:
            where.append("t.end > :low")
        if high is not None:
            where.append("t.start < :high")
    if kind is not None:
        where.append("c.type = :kind")
    if scope is not None:
        where.append("c.scope = :scope")
    if entity is not None:
        # One IN list (not an OR) so the planner starts from the entity's few paths.
        where.append(
            "t.path IN (SELECT path FROM associations_v1 WHERE entity_id = :entity"
            " AND via != 'source_event' UNION SELECT path FROM catalog WHERE id = :entity"
            f" UNION {_takes_part_in(eligibility)})"
        )
    if time_field == "occurred_at" and kind != "meeting":
        # A shared event claim with source_event: true stands for its meeting.
        where.append(
            "NOT (c.type = 'meeting' AND EXISTS (SELECT 1 FROM associations_v1 a"
            " JOIN catalog e ON e.path = a.path WHERE a.entity_id = c.id AND a.scope = c.scope"
            " AND a.via = 'source_event' AND e.eligible = 1))"
        )
    direction = "ASC" if order == "asc" else "DESC"
    matching = f"FROM temporal_v1 t JOIN catalog c ON c.path = t.path WHERE {' AND '.join(where)}"
    sql = (
        f"SELECT t.path, t.value, t.start, t.end, t.date_only, c.id, c.kind, c.type, c.title,"
        f" c.lifecycle, c.scope {matching} ORDER BY t.start {direction}, c.id {direction}, t.path {direction}"
    )
    # counted without the ORDER BY: SQLite would sort every match (16k in a month of a
    # million records) only to count them
    total = conn.execute(f"SELECT count(*) {matching}", params).fetchone()[0]
    rows = conn.execute(
        f"{sql} LIMIT :limit OFFSET :offset", {**params, "limit": limit, "offset": offset}
    ).fetchall()
    items: list[dict[str, Any]] = []
    sources: dict[str, dict[str, Any]] = {}
    used = 0
    zone = _zone(tz) if tz else None
    for path, value, start, end, date_only, rid, kind_, type_, title, lifecycle, scope_ in rows:
        item = {
            "id": rid,
            "kind": kind_,
            "type": type_,
            "title": title,
            "path": path,
            "scope": scope_,
            "field": time_field,
            "value": value,
            "start": start,
            "end": end,
            "dateOnly": bool(date_only),
            "lifecycle": lifecycle,
        }
        if zone is not None and not date_only:
            item["local"] = _local(start, zone)
        extra = _sources(conn, path) if include_sources else []
        size = len(json.dumps(item)) + sum(len(json.dumps(s)) for s in extra if s["id"] not in sources)
        if items and used + size > RESPONSE_BUDGET:
            break
        used += size
        if include_sources:
            item["sourceIds"] = [s["id"] for s in extra]
            for s in extra:
                sources.setdefault(s["id"], s)
        items.append(item)
    next_offset = offset + len(items) if offset + len(items) < total else None
    out: dict[str, Any] = {
        "items": items,
        "total": total,
        "offset": offset,
        "nextOffset": next_offset,
        "snapshot": _snapshot(conn),
    }
    if include_sources:
        out["sources"] = list(sources.values())
    return out


def _minus_day(moment: str) -> str:
    parsed = datetime.strptime(moment, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return stamp(parsed - timedelta(days=1))


def _sources(conn: sqlite3.Connection, path: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT DISTINCT c.id, c.title, c.path, t.value FROM associations_v1 a"
        " JOIN catalog c ON c.id = a.entity_id AND c.scope = a.scope"
        " LEFT JOIN temporal_v1 t ON t.path = c.path AND t.field = 'occurred_at'"
        " WHERE a.path = ? AND a.via = 'source' ORDER BY c.id",
        (path,),
    ).fetchall()
    return [{"id": r[0], "title": r[1], "path": r[2], "occurredAt": r[3]} for r in rows]


def _snapshot(conn: sqlite3.Connection) -> str:
    rows = conn.execute("SELECT scope, generation FROM keyword_state_v1 ORDER BY scope")
    return ";".join(f"{s}:{g}" for s, g in rows)


def _by_source(
    conn: sqlite3.Connection,
    entity: str,
    scope: str | None,
    since: str | None,
    until: str | None,
    order: str,
    eligibility: str,
    at: str | None,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    """The entity's Timeline grouped by dated source (spec: group "source")."""
    low, high = bounds(since, until)
    ok = CURRENT if eligibility == "current" else INACTIVE_TOO
    params = {"entity": entity, "now": at or now_text(), "scope": scope}
    scope_sql = "AND c.scope = :scope" if scope else ""
    # Records about the entity: relationships with it as an endpoint, claims naming it.
    about = conn.execute(
        f"SELECT DISTINCT c.path, c.id, c.kind, c.type, c.scope FROM associations_v1 a JOIN catalog c"
        f" ON c.path = a.path WHERE a.entity_id = :entity AND a.via IN"
        f" ('entities','owner','from','to') AND {ok} {scope_sql}",
        params,
    ).fetchall()
    rows: dict[str, dict[str, Any]] = {}
    own_rows: list[dict[str, Any]] = []
    for path, rid, kind, type_, _scope in about:
        sources = conn.execute(
            "SELECT c.id, c.title, c.path, t.value, t.start, t.end, t.date_only FROM"
            " associations_v1 a JOIN catalog c ON c.id = a.entity_id AND c.scope = a.scope"
            " JOIN temporal_v1 t ON t.path = c.path AND t.field = 'occurred_at'"
            " WHERE a.path = ? AND a.via IN ('source', 'from', 'to') AND c.kind = 'page'"
            " AND c.id != ? AND c.eligible = 1",
            (path, entity),
        ).fetchall()
        own = temporal_projection.occurrence_of(conn, path)
        placed = False
        for sid, stitle, spath, value, start, end, date_only in sources:
            if own is not None and not (own[1] < end and own[2] > start):
                continue  # dated outside its source's date: keeps its own row
            row = rows.setdefault(
                sid,
                {
                    "source": {"id": sid, "title": stitle, "path": spath},
                    "value": value,
                    "start": start,
                    "end": end,
                    "dateOnly": bool(date_only),
                    "summary": None,
                    "noteRecord": None,
                    "claims": 0,
                    "links": [],
                },
            )
            if kind == "relationship" and row["noteRecord"] is None:
                row["noteRecord"] = rid
                row["summary"] = _body_of(conn, path)
                row["links"] = _links_of(conn, path)
            elif kind == "claim":
                row["claims"] += 1
            placed = True
        if not placed and kind == "claim" and own is not None:
            own_rows.append(
                {
                    "id": rid,
                    "kind": kind,
                    "type": type_,
                    "path": path,
                    "value": own[0],
                    "start": own[1],
                    "end": own[2],
                }
            )
    for sid, row in rows.items():
        if row["summary"] is None:
            event = conn.execute(
                "SELECT a.path FROM associations_v1 a JOIN catalog c ON c.path = a.path"
                " WHERE a.entity_id = ? AND a.via = 'source' AND c.type = 'event'"
                " AND c.eligible = 1 ORDER BY c.id LIMIT 1",
                (sid,),
            ).fetchone()
            if event:
                row["summary"] = _body_of(conn, event[0])
                row["links"] = _links_of(conn, event[0])
    items = [
        r
        for r in list(rows.values()) + own_rows
        if (low is None or r["end"] > low) and (high is None or r["start"] < high)
    ]
    items.sort(
        key=lambda r: (r["start"], r.get("source", {}).get("id", r.get("id", ""))), reverse=order == "desc"
    )
    page = items[offset : offset + limit]
    return {
        "items": page,
        "total": len(items),
        "offset": offset,
        "nextOffset": offset + len(page) if offset + len(page) < len(items) else None,
        "snapshot": _snapshot(conn),
    }


def _body_of(conn: sqlite3.Connection, path: str) -> str | None:
    from knowledge_desktop.engine.store.projections.keyword import tables

    row = conn.execute("SELECT scope FROM catalog WHERE path=?", (path,)).fetchone()
    if row is None:
        return None
    fts, rows = tables(row[0])
    found = conn.execute(
        f"SELECT f.body FROM {fts} f JOIN {rows} r ON r.rowid = f.rowid WHERE r.path = ?", (path,)
    ).fetchone()
    return found[0].strip() if found else None


def _links_of(conn: sqlite3.Connection, path: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT target_id FROM links WHERE src_path=? AND status='resolved' ORDER BY line",
            (path,),
        )
    ]


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise QueryError(f"unknown time zone {name!r}; use an IANA name such as Europe/Lisbon") from None


def _local(start: str, zone: ZoneInfo) -> str:
    moment = datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return moment.astimezone(zone).isoformat()


def day_span(day: str, tz: str = "UTC", week: bool = False) -> tuple[str, str]:
    """A local day (or its Monday–Sunday week) as a UTC half-open span."""
    try:
        first = date.fromisoformat(day)
    except ValueError:
        raise QueryError(f"{day!r} is not a YYYY-MM-DD date") from None
    zone = _zone(tz)
    if week:
        first -= timedelta(days=first.weekday())
    last = first + timedelta(days=7 if week else 1)
    start = datetime(first.year, first.month, first.day, tzinfo=zone).astimezone(UTC)
    end = datetime(last.year, last.month, last.day, tzinfo=zone).astimezone(UTC)
    return stamp(start), stamp(end)


def chronicle_day(
    conn: sqlite3.Connection,
    day: str,
    *,
    tz: str = "UTC",
    week: bool = False,
    kind: str | None = None,
    scope: str | None = None,
    notes: bool = False,
    entity: str | None = None,
) -> dict[str, Any]:
    """One day (or week) of dated records; with `entity`, only that page's (as `timeline`)."""
    low, high = day_span(day, tz, week)
    # A date-only value is a calendar date with no zone: it belongs to its own date
    # in every zone, never to the UTC day it would start (spec: retrieval-and-dates,
    # Dates and Chronicle). Only timestamps are placed through the zone.
    calendar = day_span(day, "UTC", week)
    result = timeline(
        conn,
        entity=entity,
        kind=kind,
        scope=scope,
        span=(low, high),
        calendar=calendar,
        tz=tz,
        limit=500,
        notes=notes,
    )
    return {
        "items": result["items"],
        "range": {"start": low, "end": high, "timeZone": tz},
        "nextOffset": result["nextOffset"],
        "snapshot": result["snapshot"],
    }


def chronicle_since(
    conn: sqlite3.Connection,
    since: str,
    *,
    kind: str | None = None,
    scope: str | None = None,
    limit: int = 200,
    offset: int = 0,
    at: str | None = None,
    notes: bool = False,
) -> dict[str, Any]:
    low, _ = bounds(since, None)
    result = timeline(
        conn,
        kind=kind,
        scope=scope,
        span=(low, at or now_text()),
        order="asc",
        limit=limit,
        offset=offset,
        at=at,
        notes=notes,
    )
    return {"items": result["items"], "nextOffset": result["nextOffset"], "snapshot": result["snapshot"]}


def last_seen(
    conn: sqlite3.Connection,
    entity: str,
    *,
    on_or_before: str | None = None,
    scope: str | None = None,
    at: str | None = None,
) -> dict[str, Any]:
    moment = on_or_before or (at or now_text())
    _, high = bounds(None, moment)
    result = timeline(conn, entity=entity, scope=scope, span=(None, high), order="desc", limit=1, at=at)
    return {"items": result["items"], "entity": entity, "onOrBefore": moment, "snapshot": result["snapshot"]}
