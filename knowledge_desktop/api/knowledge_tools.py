"""The methods of facts-entities-collections-api as tools: one entry per method, arguments in
the spec's camelCase (`predicateHint`, `sourceRef`, `runId`, `timeRange`, …), each run through
the `Extension`'s method groups (`api/groups.py`) so a tool call and a Python call are one
implementation. Part of the one table, `api/tools.py`.

Query tools (`profile.get`, `facts.lookup`, `search`, `collections.list`,
`changes.list`) leave out what the grants do not cover; the others are refused
with the engine's `… lacks knowledge permission <permission>` message (spec:
facts-entities-collections-api, Permission strings).
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.api.extension import Extension
from knowledge_desktop.api.tool import Args, Tool, number, text

_RUN_ID = text(
    "optional run id shared by a batch of writes, so that changes.revert can undo the batch as"
    " one; defaults to this session's run"
)
_SUBJECT = text("'self' (the user; the default) or an entity ref from knowledge_entities_resolve/list")
_COLLECTION = text("'diary', 'keep', or a collection ref from knowledge_collections_list/create")
_REF_OF_DOCUMENT = text("a document ref (from upsert, search or documents.list)")
_CHUNK_RANGE: dict[str, Any] = {
    "type": "object",
    "description": "a part of the body by chunk: blocks between blank lines, counted from 0",
    "properties": {
        "from": {"type": "integer", "minimum": 0, "description": "the first chunk (0 when left out)"},
        "to": {"type": "integer", "minimum": 0, "description": "the chunk after the last one"},
    },
    "required": ["to"],
    "additionalProperties": False,
}
_TIME_RANGE: dict[str, Any] = {
    "type": "object",
    "description": "keeps documents whose meta.date falls in it; bounds inclusive, a date alone"
    " covers its whole day",
    "properties": {
        "from": {"type": ["string", "integer"], "description": "ISO date or time, or milliseconds"},
        "to": {"type": ["string", "integer"], "description": "ISO date or time, or milliseconds"},
    },
    "additionalProperties": False,
}
_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_IDENTIFIERS: dict[str, Any] = {
    "type": "object",
    "description": "at least one of email, phone, domain, url, handle (platform:account), or name",
    "properties": {k: {"type": "string"} for k in ("email", "phone", "domain", "url", "handle", "name")},
    "additionalProperties": False,
}
_ENTITY_KIND = text("entity kind: person (default), org, place, …")


def _facts_put(ext: Extension, a: Args) -> object:
    return ext.facts.put(
        a["predicateHint"],
        a.get("value"),
        subject=a.get("subject", "self"),
        object=a.get("object"),
        source_ref=a.get("sourceRef"),
        valid_from=a.get("validFrom"),
        origin=a.get("origin"),
        source=a.get("source"),
        run_id=a.get("runId"),
        description=a.get("description"),
    )


def _documents_upsert(ext: Extension, a: Args) -> object:
    return ext.documents.upsert(
        a["collection"],
        title=a["title"],
        body=a["body"],
        meta=a.get("meta"),
        key=a.get("key"),
        ref=a.get("ref"),
        run_id=a.get("runId"),
    )


def _documents_delete(ext: Extension, a: Args) -> object:
    ext.documents.delete(a["ref"], run_id=a.get("runId"))
    return {"status": "deleted", "ref": a["ref"]}


def _search(ext: Extension, a: Args) -> object:
    return ext.search(
        a.get("query", ""),
        collections=a.get("collections"),
        time_range=a.get("timeRange"),
        entities=a.get("entities"),
        limit=a.get("limit", 10),
    )


KNOWLEDGE_TOOLS: tuple[Tool, ...] = (
    Tool(
        "profile.get",
        "The standing facts about the user (home city, food preferences, …) that this extension"
        " may read, as predicate/value pairs. Leaves out what it may not read, without a word.",
        {"prefix": text("a predicate prefix such as location.home or pref.food; all when left out")},
        (),
        lambda ext, a: ext.profile.get(a.get("prefix")),
    ),
    Tool(
        "facts.lookup",
        "The facts currently valid about the user or an entity, optionally under a predicate"
        " prefix: ref, predicate, value, object (an entity ref or null) and validFrom.",
        {"subject": _SUBJECT, "prefix": text("a predicate prefix such as pref.food or relation")},
        (),
        lambda ext, a: ext.facts.lookup(a.get("subject", "self"), a.get("prefix")),
    ),
    Tool(
        "facts.put",
        "Save a fact 'subject · predicate · value' (for example self · pref.food.rated · 'tomato"
        " beef stew'). Answers status applied, duplicate (already known: nothing written) or"
        " conflict (the user said otherwise: their value stays), with the fact's ref.",
        {
            "subject": _SUBJECT,
            "predicateHint": text(
                "the full predicate (best: pref.food.rated), or an alias or one-line description"
            ),
            "value": {"description": "any JSON value"},
            "object": text("optional entity ref the value points to (a colleague, a company)"),
            "sourceRef": text("optional pointer back to a record of this extension's own"),
            "validFrom": text("optional ISO date or time from which the fact holds"),
            "origin": text("who said it (needs origin.override); defaults to this extension"),
            "source": text("how it was learned (needs origin.override); defaults to extracted"),
            "description": text(
                "optional: what the predicate means, for a person (at most 200 characters); useful"
                " for a new predicate"
            ),
            "runId": _RUN_ID,
        },
        ("predicateHint", "value"),
        _facts_put,
    ),
    Tool(
        "facts.retract",
        "Let a fact expire (it is kept in history, never deleted): retracted or already_retracted."
        " Only facts this extension wrote, unless it holds changes.manage.",
        {"ref": text("the fact's ref, from facts.put or facts.lookup"), "runId": _RUN_ID},
        ("ref",),
        lambda ext, a: ext.facts.retract(a["ref"], run_id=a.get("runId")),
    ),
    Tool(
        "entities.resolve",
        "Find the person or organisation an identifier (email, phone, domain, url, handle) or a"
        " name stands for: ref, kind, displayName, created; null when there is none, unless"
        " create is true.",
        {
            "identifiers": _IDENTIFIERS,
            "kind": _ENTITY_KIND,
            "create": {"type": "boolean", "description": "create the entity when none is found"},
            "runId": _RUN_ID,
        },
        ("identifiers",),
        lambda ext, a: ext.entities.resolve(
            a["identifiers"],
            kind=a.get("kind", "person"),
            create=a.get("create", False),
            run_id=a.get("runId"),
        ),
    ),
    Tool(
        "entities.get",
        "One entity by ref: kind, displayName and identifiers.",
        {"ref": text("an entity ref")},
        ("ref",),
        lambda ext, a: ext.entities.get(a["ref"]),
    ),
    Tool(
        "entities.list",
        "The entities of one kind, by display name; query keeps those whose name or an identifier"
        " contains it.",
        {"kind": _ENTITY_KIND, "query": text("part of a name or identifier")},
        (),
        lambda ext, a: ext.entities.list(a.get("kind", "person"), a.get("query")),
    ),
    Tool(
        "entities.add_identifier",
        "Add an identifier to an entity: added, or exists when it already has it.",
        {
            "ref": text("an entity ref"),
            "kind": text("the identifier's kind", ("email", "phone", "domain", "url", "handle")),
            "value": text("the identifier; a handle is platform:account"),
            "runId": _RUN_ID,
        },
        ("ref", "kind", "value"),
        lambda ext, a: ext.entities.add_identifier(a["ref"], a["kind"], a["value"], run_id=a.get("runId")),
    ),
    Tool(
        "search",
        "Keyword search over the documents of the collections this extension may read (with their"
        " subfolders): document ref, title, collection ref, text, locator and meta. An empty query"
        " lists documents newest first.",
        {
            "query": text("words to find; empty lists the newest documents"),
            "collections": {**_STRINGS, "description": "only these collections ('diary', 'keep', refs)"},
            "timeRange": _TIME_RANGE,
            "entities": {**_STRINGS, "description": "only documents mentioning these entity refs"},
            "limit": number("hits (default 10)", 1, 100),
        },
        (),
        _search,
    ),
    Tool(
        "documents.upsert",
        "Write a document (title + Markdown body + optional meta) into a collection. With a key,"
        " writing the same key again updates it instead of adding another; with a ref, updates"
        " that document. Answers created, updated or unchanged (nothing written), with its ref.",
        {
            "collection": _COLLECTION,
            "key": text("optional stable key; in the diary, the date YYYY-MM-DD"),
            "ref": text("optional ref of the document to update"),
            "title": text("the document's title"),
            "body": text("the document's Markdown body"),
            "meta": {"type": "object", "description": "optional JSON metadata, such as date"},
            "runId": _RUN_ID,
        },
        ("collection", "title", "body"),
        _documents_upsert,
    ),
    Tool(
        "documents.get",
        "One document by ref: title, body, meta, collection, key, updatedAt; with `range`, only"
        " those chunks of the body (blocks between blank lines, `from` inclusive, `to` exclusive)"
        " and how many chunks there are.",
        {"ref": _REF_OF_DOCUMENT, "range": _CHUNK_RANGE},
        ("ref",),
        lambda ext, a: ext.documents.get(a["ref"], range=a.get("range")),
    ),
    Tool(
        "documents.get_by_key",
        "The document written under a key in a collection (the diary entry of a date, say), or null.",
        {"collection": _COLLECTION, "key": text("the key it was written with")},
        ("collection", "key"),
        lambda ext, a: ext.documents.get_by_key(a["collection"], a["key"]),
    ),
    Tool(
        "documents.list",
        "The documents placed directly in one collection (not its subfolders; use search for"
        " those), newest first.",
        {"collection": _COLLECTION, "timeRange": _TIME_RANGE},
        ("collection",),
        lambda ext, a: ext.documents.list(a["collection"], time_range=a.get("timeRange")),
    ),
    Tool(
        "documents.delete",
        "Delete a document (the user can undo it). Only documents this extension wrote, unless"
        " it holds changes.manage.",
        {"ref": _REF_OF_DOCUMENT, "runId": _RUN_ID},
        ("ref",),
        _documents_delete,
    ),
    Tool(
        "collections.list",
        "The collections this extension can read or write: ref, name, builtin (diary, keep or"
        " null), kind, canWrite, parent ref.",
        {},
        (),
        lambda ext, a: ext.collections.list(),
    ),
    Tool(
        "collections.create",
        "Create a collection (a folder of documents) this extension can then read and write,"
        " at the top or inside a parent collection it can write (at most 5 levels).",
        {
            "name": text("the collection's name, such as Recipes"),
            "parent": text("optional: 'keep' or a collection ref to create it inside"),
            "runId": _RUN_ID,
        },
        ("name",),
        lambda ext, a: ext.collections.create(a["name"], parent=a.get("parent"), run_id=a.get("runId")),
    ),
    Tool(
        "changes.list",
        "The changes this extension made (all extensions' with changes.manage), newest first:"
        " ref, runId, actor, op, target, summary, status, proposed (for conflicts), createdAt.",
        {
            "runId": text("only the changes of this run"),
            "status": text(
                "only changes in this state",
                ("applied", "reverted", "conflict", "rolled-back", "pending"),
            ),
            "since": text("only changes from this ISO date or time on"),
        },
        (),
        lambda ext, a: ext.changes.list(run_id=a.get("runId"), status=a.get("status"), since=a.get("since")),
    ),
    Tool(
        "changes.revert",
        "Undo every change of a run (newest first), or one change by its ref: each item reverted,"
        " skipped or failed, with why.",
        {
            "runId": text("the run to undo"),
            "changeRef": text("the one change to undo, a ref from changes.list"),
        },
        (),
        lambda ext, a: ext.changes.revert(run_id=a.get("runId"), change_ref=a.get("changeRef")),
    ),
)
"""The knowledge API's methods, in the order of the spec's API reference."""
