"""The one table of the knowledge API's methods as tools (issue 16 §3).

Each `Tool` (`api/tool.py`) names a method as the spec does (`grep`,
`chronicle.day`, `facts.put`), describes it for a model, lists its arguments
under the spec's names (`query`, `timeField`, `subject`, `predicateHint`, …)
as JSON Schema, and runs it on an `Extension` with the arguments as given. The
MCP server lists and calls exactly `TOOLS`, named `knowledge_` plus the method
with dots as underscores: the read tools of retrieval-and-dates, here, then
the methods of facts-entities-collections-api (`api/knowledge_tools.py`).
Adding a method of the API is adding one entry, e.g.

    Tool(
        "facts.retract",
        "Let a fact this extension wrote expire.",
        {"ref": text("the fact's ref")},
        ("ref",),
        lambda ext, a: ext.facts.retract(a["ref"]),
    )
"""

from __future__ import annotations

from knowledge_desktop.api.extension import Extension
from knowledge_desktop.api.knowledge_tools import KNOWLEDGE_TOOLS
from knowledge_desktop.api.tool import Args, Tool, number, text

_RECORD_KIND = text("record kind: page, claim or relationship", ("page", "claim", "relationship"))
_TYPE = text("ontology type, with its aliases (person, meeting, …)")
_TAG = text("exact, case-sensitive tag")
_LIFECYCLE = text("active (default), superseded, or all", ("active", "superseded", "all"))
_TIME_FIELD = text(
    "date field: occurred_at, recorded_at, updated_at or due_at",
    ("occurred_at", "recorded_at", "updated_at", "due_at"),
)
_SINCE = text("inclusive lower bound: YYYY-MM-DD or an ISO timestamp with a time zone")
_UNTIL = text("inclusive upper bound; a date covers its whole UTC day")


def _grep(ext: Extension, a: Args) -> object:
    return ext.grep(
        a["query"],
        mode=a.get("mode", "all"),
        kind=a.get("kind"),
        type=a.get("type"),
        tag=a.get("tag"),
        lifecycle=a.get("lifecycle", "active"),
        time_field=a.get("timeField"),
        since=a.get("since"),
        until=a.get("until"),
        limit=a.get("limit", 20),
        offset=a.get("offset", 0),
    )


def _lookup(ext: Extension, a: Args) -> object:
    return ext.lookup(
        a["query"],
        kind=a.get("kind"),
        type=a.get("type"),
        tag=a.get("tag"),
        lifecycle=a.get("lifecycle", "active"),
    )


def _timeline(ext: Extension, a: Args) -> object:
    return ext.timeline(
        entity=a.get("entity"),
        kind=a.get("kind"),
        time_field=a.get("timeField", "occurred_at"),
        since=a.get("since"),
        until=a.get("until"),
        order=a.get("order", "asc"),
        eligibility=a.get("eligibility", "current"),
        limit=a.get("limit", 50),
        offset=a.get("offset", 0),
    )


def _chronicle_day(ext: Extension, a: Args) -> object:
    return ext.chronicle_day(
        a["date"], tz=a.get("timeZone", "UTC"), week=a.get("week", False), kind=a.get("kind")
    )


READ_TOOLS: tuple[Tool, ...] = (
    Tool(
        "grep",
        "Keyword search (every word must match by default) over the records this extension may"
        " read in its partition. Returns ranked hits with a short snippet; counts and pages cover"
        " only what it may read.",
        {
            "query": text("1-64 words, at most 500 characters; not a search syntax"),
            "mode": text("all (default), any, or phrase", ("all", "any", "phrase")),
            "kind": _RECORD_KIND,
            "type": _TYPE,
            "tag": _TAG,
            "lifecycle": _LIFECYCLE,
            "timeField": _TIME_FIELD,
            "since": _SINCE,
            "until": _UNTIL,
            "limit": number("hits per page (default 20)", 1, 50),
            "offset": number("follow nextOffset with unchanged filters", 0, 500),
        },
        ("query",),
        _grep,
    ),
    Tool(
        "lookup",
        "Exact lookup by id, full title or alias (never fuzzy) among the records this extension"
        " may read: found, ambiguous or missing.",
        {
            "query": text("an id (case-sensitive), a title or an alias; at most 200 characters"),
            "kind": _RECORD_KIND,
            "type": _TYPE,
            "tag": _TAG,
            "lifecycle": _LIFECYCLE,
        },
        ("query",),
        _lookup,
    ),
    Tool(
        "record",
        "One record in full (frontmatter, body, links, backlinks) by id or vault-relative path,"
        " if this extension may read it.",
        {"id": text("the record's id, or its vault-relative path")},
        ("id",),
        lambda ext, a: ext.record(a["id"]),
    ),
    Tool(
        "timeline",
        "Dated records this extension may read, optionally about one entity, by date field and range.",
        {
            "entity": text("an entity's record id: only records about it"),
            "kind": text("exact record type, such as meeting or decision (not page/claim)"),
            "timeField": _TIME_FIELD,
            "since": _SINCE,
            "until": _UNTIL,
            "order": text("asc (default) or desc", ("asc", "desc")),
            "eligibility": text("current (default) or include_inactive", ("current", "include_inactive")),
            "limit": number("rows per page (default 50)", 1, 500),
            "offset": number("follow nextOffset with unchanged filters", 0),
        },
        (),
        _timeline,
    ),
    Tool(
        "chronicle.day",
        "The dated records of one day, or of its Monday-Sunday week, that this extension may read.",
        {
            "date": text("the day, YYYY-MM-DD"),
            "timeZone": text("IANA time zone for timestamps (default UTC)"),
            "week": {"type": "boolean", "description": "the whole Monday-Sunday week of date"},
            "kind": text("exact record type, such as meeting"),
        },
        ("date",),
        _chronicle_day,
    ),
)
"""The read tools of retrieval-and-dates, under the extension's visibility rule."""

TOOLS: tuple[Tool, ...] = READ_TOOLS + KNOWLEDGE_TOOLS
"""Every tool, in the order a client lists them."""

BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}
