"""An extension's read tools on a `Vault`: grep, lookup, record, timeline and chronicle day
(spec: retrieval-and-dates; issue 16 §3), answered under its grants.

Each tool asks the vault's own query in the extension's partition, then keeps
only what `api.visibility` lets the extension see — in the rows, in the links
of a record, and in every count — so the Python facade and the MCP server give
one and the same answer. A record the extension cannot see is reported as
missing, word for word as a record that does not exist, so a refusal tells it
nothing. Grants are read afresh on every call (`Session.allowed`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from knowledge_desktop.engine.api import link_view
from knowledge_desktop.engine.api.read_results import (
    ChronicleDay,
    DatedItem,
    LookupResult,
    RecordItem,
    RecordView,
    SearchHit,
    SearchPage,
    TimelinePage,
)
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.api.visibility import Visibility
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.grep_query import MAX_OFFSET, GrepQuery, validate
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault

RAW_PAGE = 50
"""Hits asked of the vault's search at a time while visible ones are gathered (its largest page)."""
TIMELINE_PAGE = 500
"""Dated rows asked of the vault at a time (its largest page)."""


def entity_types(vault: Vault, scope: str) -> frozenset[str]:
    """The page types of partition `scope` whose primitive is `entity`, with their aliases."""
    activation = vault.reconciler.ontologies().get(scope)
    if activation is None or activation.ontology is None:
        return frozenset()
    ontology = activation.ontology
    out: set[str] = set()
    for definition in ontology.page_types():
        if definition.primitive == "entity":
            out |= ontology.expand(definition.name)
    return frozenset(out)


def visibility(vault: Vault, session: Session) -> Visibility:
    """The visibility rule of `session`'s extension for one call, its collection markers
    read up front so that every answer costs the same work whatever it finds."""
    seen = Visibility(vault.store.reader(), session, entity_types(vault, session.scope))
    seen.read_collections()
    return seen


def own_snapshot(snapshot: str | None, scope: str) -> str | None:
    """The part of a vault snapshot (`scope:generation;…`) that is the extension's partition:
    other partitions' names are not its business."""
    if snapshot is None:
        return None
    mine = [part for part in snapshot.split(";") if part.partition(":")[0] == scope]
    return ";".join(mine) or None


def _not_found(target: str) -> QueryError:
    return QueryError(f"no record or file {target!r} in this vault")


def grep(
    vault: Vault,
    session: Session,
    query: str,
    *,
    mode: str = "all",
    kind: str | None = None,
    type: str | None = None,  # the spec's argument name
    tag: str | None = None,
    lifecycle: str = "active",
    time_field: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> SearchPage:
    """Keyword search over the records the extension can see in its partition.

    What the extension may see is part of the search's SQL (`Visibility.sql`), so ranks,
    counts and pages are those of the visible hits alone and a common word costs what it
    costs unfiltered: the visible facts among the matches are found first (`_visible_facts`),
    then one page is asked for. A hit reached through superseded wording is kept only when
    the earlier record that matched is visible too; when such a hit (or anything else the
    SQL let through) is not visible, the search falls back to paging through the filtered
    ranking and judging each hit (`_paged`)."""
    wanted = GrepQuery(
        query,
        mode=mode,
        kind=kind,
        types=frozenset([type]) if type else None,
        tag=tag,
        lifecycle=lifecycle,
        time_field=time_field,
        since=since,
        until=until,
        limit=limit,
        offset=offset,
    )
    validate(wanted)
    seen = visibility(vault, session)
    whole, facts = seen.sql()
    if lifecycle == "active":
        shown_paths = _visible_facts(vault, session, seen, wanted, facts)
        if shown_paths is not None:
            sql, values = whole
            if shown_paths:
                sql = f"{sql} OR r.path IN (SELECT value FROM json_each(?))"
                values = (*values, json.dumps(shown_paths))
            found = _one_page(vault, session, seen, replace(wanted, within=(sql, values)))
            if found is not None:
                return found
    either = whole if facts is None else (f"({whole[0]}) OR ({facts[0]})", (*whole[1], *facts[1]))
    return _paged(vault, session, seen, replace(wanted, within=either))


def _visible(seen: Visibility, hit: dict[str, Any]) -> bool:
    via = hit.get("via")
    return seen.visible(hit["path"]) and (via is None or seen.visible(via.get("path")))


def _visible_facts(
    vault: Vault,
    session: Session,
    seen: Visibility,
    wanted: GrepQuery,
    facts: tuple[str, tuple[object, ...]] | None,
) -> list[str] | None:
    """The paths of the fact claims matching `wanted` that the extension may see (judged one
    by one: they are only candidates in SQL), or None when they cannot all be gathered."""
    if facts is None:
        return []
    out: list[str] = []
    raw_offset = 0
    while True:
        page = vault.grep(replace(wanted, within=facts, limit=RAW_PAGE, offset=raw_offset), session.scope)
        if page["index"]["state"] == "unavailable":
            return None
        if any(h.get("via") is not None for h in page["hits"]):
            return None  # reached through superseded wording: the judged paging handles it
        out += [h["path"] for h in page["hits"] if seen.visible(h["path"])]
        raw_offset += RAW_PAGE
        if page["total"] is None or raw_offset >= page["total"]:
            return out
        if raw_offset > MAX_OFFSET:
            return None


def _one_page(vault: Vault, session: Session, seen: Visibility, wanted: GrepQuery) -> SearchPage | None:
    """The page `wanted` asks for when its SQL admits only visible records; None when a hit
    it found is not visible after all (the caller then pages and judges)."""
    page = vault.grep(wanted, session.scope, replaced=True)
    if page["index"]["state"] == "unavailable":
        return SearchPage((), None, False, wanted.offset, None, None, "unavailable")
    if page.get("replaced") or not all(_visible(seen, hit) for hit in page["hits"]):
        return None  # a replacement's earlier record is not in the SQL: judge them all
    total = page["total"]
    end = wanted.offset + len(page["hits"])
    next_offset = end if total is not None and end < total and end <= MAX_OFFSET else None
    hits = tuple(_hit(h) for h in page["hits"])
    return SearchPage(hits, total, True, wanted.offset, next_offset, page["snapshot"], "ready")


def _paged(vault: Vault, session: Session, seen: Visibility, wanted: GrepQuery) -> SearchPage:
    """The search's ranking paged through (as far as its offset limit reaches), each hit
    judged, and `offset` and `limit` applied to the visible ones."""
    offset, limit = wanted.offset, wanted.limit
    kept: list[dict[str, Any]] = []
    raw_offset = 0
    snapshot: str | None = None
    exact = True
    while True:
        page = vault.grep(replace(wanted, limit=RAW_PAGE, offset=raw_offset), session.scope)
        if page["index"]["state"] == "unavailable":
            return SearchPage((), None, False, offset, None, None, "unavailable")
        snapshot = snapshot or page["snapshot"]
        kept += [hit for hit in page["hits"] if _visible(seen, hit)]
        raw_offset += RAW_PAGE
        if page["total"] is None or raw_offset >= page["total"]:
            break
        if raw_offset > MAX_OFFSET:
            exact = False
            break
    shown = kept[offset : offset + limit]
    end = offset + len(shown)
    next_offset = end if end < len(kept) and end <= MAX_OFFSET else None
    return SearchPage(tuple(_hit(h) for h in shown), len(kept), exact, offset, next_offset, snapshot, "ready")


def _hit(hit: dict[str, Any]) -> SearchHit:
    via = hit.get("via")
    return SearchHit(
        RecordItem.of(hit),
        hit.get("hash"),
        hit.get("score"),
        str((hit.get("snippet") or {}).get("text") or ""),
        tuple(hit.get("matches") or ()),
        via.get("id") if isinstance(via, dict) else None,
    )


def lookup(
    vault: Vault,
    session: Session,
    query: str,
    *,
    kind: str | None = None,
    type: str | None = None,  # the spec's argument name
    tag: str | None = None,
    lifecycle: str = "active",
) -> LookupResult:
    """Exact lookup by id, title or alias among the records the extension can see: a match it
    cannot see does not count, neither as found, nor towards ambiguity, nor in the precedence
    of names outside collection folders (`query/lookup.py`)."""
    f = RecordFilter(
        kind=kind,
        types=frozenset([type]) if type else None,
        tag=tag,
        lifecycle=lifecycle,
        scope=session.scope,
    )
    seen = visibility(vault, session)
    raw = vault.lookup(query, f, seen.visible)
    rows = [raw["record"]] if raw["status"] == "found" else list(raw.get("candidates", ()))
    items = [RecordItem.of(r) for r in rows]
    if not items:
        return LookupResult("missing", query)
    if len(items) > 1:
        return LookupResult("ambiguous", query, candidates=tuple(items))
    return LookupResult("found", query, record=items[0])


def record(vault: Vault, session: Session, target: str) -> RecordView:
    """One visible record by id or vault-relative path; the same "no record" error as for one
    that does not exist when the extension cannot see it. Its links and backlinks are
    resolved over what the extension may see (`api/link_view.py`), so a link to a hidden
    record reads as one to nothing."""
    seen = visibility(vault, session)
    rows = [r for r in vault.find(target) if seen.visible(r["path"])]
    if not rows:
        raise _not_found(target)
    if len(rows) > 1:
        paths = ", ".join(r["path"] for r in rows)
        raise QueryError(f"id {target!r} is used by several files ({paths}); ask for one by path")
    view = vault.show(rows[0]["path"])
    conn = vault.store.reader()
    references = link_view.references(conn, view["path"], view["references"], seen)
    names = [view.get("title") or "", *(a for a in rows[0]["aliases"] if isinstance(a, str))]
    backlinks = tuple(
        {k: v for k, v in b.items() if k in ("id", "path", "title", "line", "via", "kind", "type")}
        for b in [*view["backlinks"], *link_view.extra_backlinks(conn, rows[0], names, seen)]
        if seen.visible(b.get("path"))
    )
    return RecordView(
        RecordItem.of(view),
        view.get("hash"),
        view.get("frontmatter"),
        view.get("body"),
        references,
        backlinks,
    )


def timeline(
    vault: Vault,
    session: Session,
    *,
    entity: str | None = None,
    kind: str | None = None,
    time_field: str = "occurred_at",
    since: str | None = None,
    until: str | None = None,
    order: str = "asc",
    eligibility: str = "current",
    limit: int = 50,
    offset: int = 0,
) -> TimelinePage:
    """Dated records the extension can see, optionally about one entity (which must be
    visible itself: an invisible one has an empty timeline, as an unknown one has)."""
    if not 1 <= limit <= TIMELINE_PAGE or offset < 0:
        raise QueryError(f"limit is 1-{TIMELINE_PAGE} and offset is not negative")
    seen = visibility(vault, session)
    kept: list[dict[str, Any]] = []
    snapshot: str | None = None
    if entity is None or any(seen.visible(r["path"]) for r in vault.find(entity)):
        raw_offset: int | None = 0
        while raw_offset is not None:
            page = vault.timeline(
                entity=entity,
                kind=kind,
                time_field=time_field,
                since=since,
                until=until,
                order=order,
                eligibility=eligibility,
                scope=session.scope,
                limit=TIMELINE_PAGE,
                offset=raw_offset,
            )
            snapshot = snapshot or own_snapshot(page["snapshot"], session.scope)
            kept += [i for i in page["items"] if seen.visible(i["path"])]
            raw_offset = page["nextOffset"]
    shown = kept[offset : offset + limit]
    end = offset + len(shown)
    return TimelinePage(
        tuple(DatedItem.of(i) for i in shown),
        len(kept),
        offset,
        end if end < len(kept) else None,
        snapshot,
    )


def chronicle_day(
    vault: Vault,
    session: Session,
    day: str,
    *,
    tz: str = "UTC",
    week: bool = False,
    kind: str | None = None,
) -> ChronicleDay:
    """The visible dated records of `day` (a `YYYY-MM-DD`), or of its week, in zone `tz`."""
    raw = vault.chronicle_day(day, tz=tz, week=week, kind=kind, scope=session.scope)
    seen = visibility(vault, session)
    items = tuple(DatedItem.of(i) for i in raw["items"] if seen.visible(i["path"]))
    span = raw["range"]
    return ChronicleDay(
        items, span["start"], span["end"], span["timeZone"], own_snapshot(raw["snapshot"], session.scope)
    )
