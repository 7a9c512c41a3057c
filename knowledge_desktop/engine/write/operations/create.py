"""Creating a page, a claim or a relationship (`knowledge new`).

The caller submits a record file — frontmatter and body — without the
fields the store assigns (`id`, `revision`, `lifecycle`, `recorded_at`,
`updated_at`) or the lifecycle metadata only lifecycle operations write.
The operation assigns an id (ARCHITECTURE.md: a kind prefix and a
time-sortable random part), revision 1, `active`, and the operation's UTC
millisecond time; files the record under a title-based name in the
directory the ontology gives its type (claims in `claims/`, relationships
in `relationships/`), with a short id suffix on a collision (spec:
records-and-ontology, Filenames and links); and refuses anything the read
side would find invalid. Claims and relationships are assertion writes,
fenced by the partition's ontology fingerprint (spec: Fingerprints).
Everything else of the submitted file — key order, comments, the body — is
written as submitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from knowledge_desktop.engine.records.models import FORMAT, KINDS
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.naming import KIND_DIRECTORIES
from knowledge_desktop.engine.write.operations.common import (
    ASSIGNED,
    CANONICAL,
    LIFECYCLE_METADATA,
    anchors,
    submitted_frontmatter,
)
from knowledge_desktop.engine.write.plan import FileWrite, Plan, Request, WriteRejected
from knowledge_desktop.engine.write.publish import Planner
from knowledge_desktop.engine.write.requests import make_request


def new_record(
    write: Callable[[Request, Planner], dict[str, Any]], text: str, **options: Any
) -> dict[str, Any]:
    """The `new` request for `text` handed to `write` (`Vault.write`): the one request the
    CLI's `knowledge new` and the window's File › New… both publish, and the window's
    check before review previews. `options`: see `make_request`."""
    request = make_request("new", {"record": text}, **options)
    return write(request, lambda ctx: plan_new(ctx, text))


def plan_new(ctx: WriteContext, text: str) -> Plan:
    data = submitted_frontmatter(text)
    given = [k for k in (*ASSIGNED, *LIFECYCLE_METADATA) if k in data]
    if given:
        raise WriteRejected(
            "assigned-field",
            f"a new record must not carry {', '.join(given)}: the store assigns "
            + ("them" if len(given) > 1 else "it"),
            {"fields": given},
        )
    kind = data.get("kind")
    if kind not in KINDS:
        raise WriteRejected("invalid-record", f"kind must be one of {', '.join(KINDS)}, not {kind!r}", {})
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise WriteRejected("invalid-record", "a record needs a non-empty title", {})
    scope = _scope(ctx, data)
    ontology = ctx.ontology(scope, fence=kind != "page")
    if kind == "page":
        page_type = data.get("type")
        if not isinstance(page_type, str) or not page_type.strip():
            raise WriteRejected(
                "type-required", "a new page needs a type: its folder comes from the ontology", {}
            )
        definition = ontology.definitions.get(page_type)
        directory = definition.directory if definition is not None and definition.directory else ""
    else:
        directory = KIND_DIRECTORIES[str(kind)]
    record_id = ctx.new_id(str(kind))
    changes: dict[str, Any] = {}
    if data.get("format") is None:
        changes["format"] = FORMAT
    changes.update(
        {"id": record_id, "revision": 1, "lifecycle": "active", "recorded_at": ctx.now, "updated_at": ctx.now}
    )
    if "scope" not in data:
        changes["scope"] = scope
    order = [k for k in CANONICAL if k in changes]
    try:
        new_text = update_frontmatter(text, {k: changes[k] for k in order}, after=anchors(order, set(data)))
    except ValueError as exc:
        raise WriteRejected("invalid-record", str(exc), {}) from None
    path = ctx.new_path(scope, directory, title, record_id)
    encoded = new_text.encode("utf-8")
    ctx.validate(path, scope, encoded)
    return Plan("new", record_id, None, [FileWrite(path, encoded, None, record_id, 1)])


def _scope(ctx: WriteContext, data: dict[str, Any]) -> str:
    """The partition the record goes to: its `scope`, or the vault's only partition."""
    scopes = ctx.scopes()
    scope = data.get("scope")
    if scope is None:
        if len(scopes) == 1:
            return scopes[0]
        raise WriteRejected(
            "scope-required",
            "this vault has several partitions; say which one with scope",
            {"scopes": scopes},
        )
    if scope not in scopes:
        raise WriteRejected("unknown-scope", f"no partition named {scope!r}", {"scopes": scopes})
    return str(scope)
