"""Typed answers of an extension's read tools (issue 16 §3; spec: retrieval-and-dates, Query
contract, Results and citations, Dates and Chronicle).

An extension gets the agent's shape of a result — list rows with a short snippet,
not the window's complete hits — and only of records `visibility.Visibility`
lets it see. Each type says in `as_json()` how the MCP server and `--json`
print it (camelCase keys, as the spec's tools spell them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RecordItem:
    """One record as a list row."""

    id: str | None
    kind: str | None
    type: str | None
    title: str | None
    path: str
    revision: int | None
    lifecycle: str | None

    @classmethod
    def of(cls, row: dict[str, Any]) -> RecordItem:
        """From an inventory row (`inventory.inventory_item` or `show`)."""
        return cls(
            row.get("id"),
            row.get("kind"),
            row.get("type"),
            row.get("title"),
            row["path"],
            row.get("revision"),
            row.get("lifecycle"),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "type": self.type,
            "title": self.title,
            "path": self.path,
            "revision": self.revision,
            "lifecycle": self.lifecycle,
        }


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One keyword hit: the record, its score (None for a replacement reached through
    superseded wording, whose earlier record is `via_id`) and a short snippet."""

    record: RecordItem
    hash: str | None
    score: float | None
    snippet: str
    matches: tuple[str, ...]
    via_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        out = {**self.record.as_json(), "hash": self.hash, "score": self.score}
        out |= {"snippet": self.snippet, "matches": list(self.matches)}
        if self.via_id is not None:
            out["via"] = {"id": self.via_id}
        return out


@dataclass(frozen=True, slots=True)
class SearchPage:
    """A page of visible hits. `total` counts visible hits only; `total_exact` is False when
    the search matched more records than can be paged through (offset 0–500), so the count
    stops there."""

    hits: tuple[SearchHit, ...]
    total: int | None
    total_exact: bool
    offset: int
    next_offset: int | None
    snapshot: str | None
    index_state: str

    def as_json(self) -> dict[str, Any]:
        return {
            "hits": [h.as_json() for h in self.hits],
            "total": self.total,
            "totalExact": self.total_exact,
            "offset": self.offset,
            "nextOffset": self.next_offset,
            "snapshot": self.snapshot,
            "index": {"state": self.index_state},
        }


@dataclass(frozen=True, slots=True)
class LookupResult:
    """`found` (one `record`), `ambiguous` (its `candidates`) or `missing`."""

    status: str
    query: str
    record: RecordItem | None = None
    candidates: tuple[RecordItem, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "query": self.query}
        if self.record is not None:
            out["record"] = self.record.as_json()
        if self.status == "ambiguous":
            out["candidates"] = [c.as_json() for c in self.candidates]
        return out


@dataclass(frozen=True, slots=True)
class RecordView:
    """One record in full: frontmatter, body, its links (a target the extension cannot see
    keeps only the text the record itself wrote) and the visible records linking to it."""

    record: RecordItem
    hash: str | None
    frontmatter: dict[str, Any] | None
    body: str | None
    references: tuple[dict[str, Any], ...]
    backlinks: tuple[dict[str, Any], ...]

    def as_json(self) -> dict[str, Any]:
        return {
            **self.record.as_json(),
            "hash": self.hash,
            "frontmatter": self.frontmatter,
            "body": self.body,
            "references": list(self.references),
            "backlinks": list(self.backlinks),
        }


@dataclass(frozen=True, slots=True)
class DatedItem:
    """One dated record on a timeline: which date field, as written and as a UTC span."""

    record: RecordItem
    field: str
    value: str
    start: str
    end: str
    date_only: bool
    local: str | None = None

    @classmethod
    def of(cls, row: dict[str, Any]) -> DatedItem:
        return cls(
            RecordItem.of(row),
            row["field"],
            row["value"],
            row["start"],
            row["end"],
            bool(row["dateOnly"]),
            row.get("local"),
        )

    def as_json(self) -> dict[str, Any]:
        out = {**self.record.as_json(), "field": self.field, "value": self.value}
        out |= {"start": self.start, "end": self.end, "dateOnly": self.date_only}
        if self.local is not None:
            out["local"] = self.local
        return out


@dataclass(frozen=True, slots=True)
class TimelinePage:
    """A page of visible dated records; `total` counts the visible ones."""

    items: tuple[DatedItem, ...]
    total: int
    offset: int
    next_offset: int | None
    snapshot: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "items": [i.as_json() for i in self.items],
            "total": self.total,
            "offset": self.offset,
            "nextOffset": self.next_offset,
            "snapshot": self.snapshot,
        }


@dataclass(frozen=True, slots=True)
class ChronicleDay:
    """The visible dated records of one day (or its Monday–Sunday week) in `time_zone`."""

    items: tuple[DatedItem, ...]
    start: str
    end: str
    time_zone: str
    snapshot: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "items": [i.as_json() for i in self.items],
            "range": {"start": self.start, "end": self.end, "timeZone": self.time_zone},
            "snapshot": self.snapshot,
        }
