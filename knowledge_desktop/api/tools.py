"""The one table of the knowledge API's methods as tools (issue 16 §3).

Each `Tool` names a method as the spec does (`grep`, `chronicle.day`, later
`facts.put`), describes it, lists its arguments under the spec's names
(`query`, `timeField`, `subject`, `predicateHint`, …) as JSON Schema, and runs
it on an `Extension` with the arguments as given. The MCP server lists and
calls exactly these, named `knowledge_` plus the method with dots as
underscores; adding a method of the API is adding one entry here, e.g.

    Tool(
        "facts.put",
        "Save a fact about a subject.",
        {"subject": STRING, "predicateHint": STRING, "value": {}},
        ("subject", "predicateHint", "value"),
        lambda ext, a: facts.put(ext.session, a["subject"], a["predicateHint"], a["value"]),
    )

A tool answers JSON-able data, or a typed result whose `as_json()` is; a refused
or invalid call raises the engine's error (`PermissionRefused`, `QueryError`,
…), whose message the server hands the client as the tool's error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.api.extension import Extension
from knowledge_desktop.engine.errors import QueryError

Args = Mapping[str, Any]

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}

_PY_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "boolean": (bool,)}


def _text(description: str, enum: tuple[str, ...] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "description": description}
    if enum is not None:
        out["enum"] = list(enum)
    return out


def _number(description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


@dataclass(frozen=True, slots=True)
class Tool:
    """One method of the knowledge API as a tool; see the module docstring."""

    method: str
    description: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...]
    run: Callable[[Extension, Args], object]

    @property
    def name(self) -> str:
        """`knowledge_` plus the method with dots as underscores (`knowledge_chronicle_day`)."""
        return "knowledge_" + self.method.replace(".", "_")

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {k: dict(v) for k, v in self.properties.items()},
            "required": list(self.required),
            "additionalProperties": False,
        }

    def check(self, args: Args) -> None:
        """A `QueryError` naming the first argument that is missing, unknown or of the wrong
        JSON type (clients do not all check the schema before calling)."""
        for name in self.required:
            if name not in args:
                raise QueryError(f"{self.name} needs the argument {name!r}")
        for name, value in args.items():
            prop = self.properties.get(name)
            if prop is None:
                known = ", ".join(self.properties) or "none"
                raise QueryError(f"{self.name} takes no argument {name!r} (it takes: {known})")
            wanted = _PY_TYPES.get(str(prop.get("type")))
            if value is None and name not in self.required:
                continue
            wrong_bool = isinstance(value, bool) and prop.get("type") == "integer"
            if wanted is not None and (not isinstance(value, wanted) or wrong_bool):
                raise QueryError(f"{self.name}: {name} must be a JSON {prop['type']}")

    def call(self, ext: Extension, args: Args | None) -> Any:
        """Run the tool for `ext`; its JSON answer."""
        given = dict(args or {})
        self.check(given)
        given = {k: v for k, v in given.items() if v is not None}
        result = self.run(ext, given)
        as_json = getattr(result, "as_json", None)
        return as_json() if callable(as_json) else result


_RECORD_KIND = _text("record kind: page, claim or relationship", ("page", "claim", "relationship"))
_TYPE = _text("ontology type, with its aliases (person, meeting, …)")
_TAG = _text("exact, case-sensitive tag")
_LIFECYCLE = _text("active (default), superseded, or all", ("active", "superseded", "all"))
_TIME_FIELD = _text(
    "date field: occurred_at, recorded_at, updated_at or due_at",
    ("occurred_at", "recorded_at", "updated_at", "due_at"),
)
_SINCE = _text("inclusive lower bound: YYYY-MM-DD or an ISO timestamp with a time zone")
_UNTIL = _text("inclusive upper bound; a date covers its whole UTC day")


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


TOOLS: tuple[Tool, ...] = (
    Tool(
        "grep",
        "Keyword search (every word must match by default) over the records this extension may"
        " read in its partition. Returns ranked hits with a short snippet; counts and pages cover"
        " only what it may read.",
        {
            "query": _text("1-64 words, at most 500 characters; not a search syntax"),
            "mode": _text("all (default), any, or phrase", ("all", "any", "phrase")),
            "kind": _RECORD_KIND,
            "type": _TYPE,
            "tag": _TAG,
            "lifecycle": _LIFECYCLE,
            "timeField": _TIME_FIELD,
            "since": _SINCE,
            "until": _UNTIL,
            "limit": _number("hits per page (default 20)", 1, 50),
            "offset": _number("follow nextOffset with unchanged filters", 0, 500),
        },
        ("query",),
        _grep,
    ),
    Tool(
        "lookup",
        "Exact lookup by id, full title or alias (never fuzzy) among the records this extension"
        " may read: found, ambiguous or missing.",
        {
            "query": _text("an id (case-sensitive), a title or an alias; at most 200 characters"),
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
        {"id": _text("the record's id, or its vault-relative path")},
        ("id",),
        lambda ext, a: ext.record(a["id"]),
    ),
    Tool(
        "timeline",
        "Dated records this extension may read, optionally about one entity, by date field and range.",
        {
            "entity": _text("an entity's record id: only records about it"),
            "kind": _text("exact record type, such as meeting or decision (not page/claim)"),
            "timeField": _TIME_FIELD,
            "since": _SINCE,
            "until": _UNTIL,
            "order": _text("asc (default) or desc", ("asc", "desc")),
            "eligibility": _text("current (default) or include_inactive", ("current", "include_inactive")),
            "limit": _number("rows per page (default 50)", 1, 500),
            "offset": _number("follow nextOffset with unchanged filters", 0),
        },
        (),
        _timeline,
    ),
    Tool(
        "chronicle.day",
        "The dated records of one day, or of its Monday-Sunday week, that this extension may read.",
        {
            "date": _text("the day, YYYY-MM-DD"),
            "timeZone": _text("IANA time zone for timestamps (default UTC)"),
            "week": {"type": "boolean", "description": "the whole Monday-Sunday week of date"},
            "kind": _text("exact record type, such as meeting"),
        },
        ("date",),
        _chronicle_day,
    ),
)
"""Every tool, in the order a client lists them."""

BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}
