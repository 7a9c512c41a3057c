"""Temporal projection: each record's validated dates and its explicit associations.

Dates come only from structured fields (spec: Dates and Chronicle): a claim's
occurred_at and due_at, a dated page's fields.occurred_at, and every
record's recorded_at and updated_at. Prose dates create nothing. Associations
are the explicit ones — entities, owner, relationship endpoints and evidence
sources, resolved through merges — never co-mentions.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge_desktop.engine.derive import Catalog
from knowledge_desktop.engine.records import dates
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.keyword import stamp

ASSOCIATING_FIELDS = ("entities", "owner", "from", "to")


def index(tx: Tx, catalog: Catalog, paths: Iterable[str]) -> None:
    paths = list(paths)
    tx.executemany("DELETE FROM temporal_v1 WHERE path=?", [(p,) for p in paths])
    tx.executemany("DELETE FROM associations_v1 WHERE path=?", [(p,) for p in paths])
    dated: list[tuple[object, ...]] = []
    associated: list[tuple[object, ...]] = []
    for path in paths:
        node = catalog.nodes.get(path)
        derived = catalog.derived.get(path)
        if node is None or derived is None or not node.is_record:
            continue
        data = node.data
        values = {"recorded_at": data.get("recorded_at"), "updated_at": data.get("updated_at")}
        if node.kind == "claim":
            values["occurred_at"] = data.get("occurred_at")
            values["due_at"] = data.get("due_at")
        elif node.kind == "page" and isinstance(data.get("fields"), dict):
            values["occurred_at"] = data["fields"].get("occurred_at")
        for name, value in values.items():
            if not isinstance(value, str):
                continue
            try:
                instant = dates.parse_date_or_timestamp(value)
            except dates.DateFormatError:
                continue
            dated.append(
                (
                    path,
                    node.scope,
                    name,
                    value,
                    stamp(instant.start),
                    stamp(instant.end),
                    int(instant.date_only),
                )
            )
        pairs = {
            (ref.resolved_id, ref.field)
            for ref in derived.refs
            if ref.field in ASSOCIATING_FIELDS and ref.resolved_id and ref.status == "resolved"
        }
        source_event = node.kind == "claim" and data.get("source_event") is True
        for item in derived.evidence:
            if item.source and item.status == "verified":
                final, _, status = catalog.follow_merges(node.scope or "", item.source, set())
                if final and status == "resolved":
                    pairs.add((final, "source"))
                    if source_event:
                        pairs.add((final, "source_event"))
        associated.extend((path, node.scope, entity, via) for entity, via in sorted(pairs))
    tx.executemany("INSERT INTO temporal_v1 VALUES (?,?,?,?,?,?,?)", dated)
    tx.executemany("INSERT INTO associations_v1 VALUES (?,?,?,?)", associated)
