"""Writes that name a merged page are rejected, and the error gives the survivor.

Spec (corrections-and-merges, Merge duplicate pages): records that already
name an absorbed page are not rewritten — reads resolve them — but a new
write must name the survivor. "New" means a reference the record did not
have before the write: saving a page that has long named a page merged since
is not refused for it (an edit of its body should not need a repair first).
Operations call `reject_merged` for ids they take as arguments (a fence, an
entity to annotate); `check_references` covers the references in the bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.graph.detail import REFERENCE_FIELDS
from knowledge_desktop.engine.graph.resolve import Resolver
from knowledge_desktop.engine.write.plan import WriteRejected


def survivor_of(graph: Resolver, scope: str, record_id: str) -> str | None:
    """The active page a merged page's chain ends at; None when it ends nowhere."""
    final, _path, status = graph.follow_merges(scope, record_id, set())
    return final if status == "resolved" else None


def is_merged(graph: Resolver, scope: str, record_id: str) -> bool:
    paths = graph.ids.get(scope, record_id)
    return len(paths) == 1 and graph.nodes[next(iter(paths))].lifecycle == "merged"


def reject_merged(graph: Resolver, scope: str, ids: Iterable[str], field: str = "id") -> None:
    """WriteRejected (`merged-target`, with `survivorId`) for the first id that names a merged page."""
    for record_id in ids:
        if is_merged(graph, scope, record_id):
            survivor = survivor_of(graph, scope, record_id)
            raise WriteRejected(
                "merged-target",
                f"{field} names {record_id}, which was merged into "
                f"{survivor or 'a page that cannot be resolved'}; name the survivor instead",
                {"id": record_id, "field": field, "survivorId": survivor},
            )


def referenced_ids(data: dict[str, Any]) -> dict[str, set[str]]:
    """field -> ids a frontmatter names in reference fields (evidence sources as `evidence`)."""
    out: dict[str, set[str]] = {}
    for field in REFERENCE_FIELDS:
        value = data.get(field)
        values = value if isinstance(value, list) else [value]
        found = {v for v in values if isinstance(v, str)}
        if found:
            out[field] = found
    evidence = data.get("evidence")
    if isinstance(evidence, list):
        sources = {e["source"] for e in evidence if isinstance(e, dict) and isinstance(e.get("source"), str)}
        if sources:
            out["evidence"] = sources
    return out


def check_references(graph: Resolver, scope: str, data: dict[str, Any], old: dict[str, Any]) -> None:
    """Reject references in `data`, absent from `old`, that name a merged page."""
    before = referenced_ids(old)
    for field, ids in sorted(referenced_ids(data).items()):
        reject_merged(graph, scope, sorted(ids - before.get(field, set())), field)
