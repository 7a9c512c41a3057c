"""The `coverage` object: per area, complete / partial / not-analyzed, and why.

Spec: knowledge-entities-extraction.md, "Bounds and coverage". The spec names
the statuses and the causes but not the object's shape; here it is one entry
per area (`documents`, `decisions`, `concepts`, `changes`, `history`,
`symbols`, `memory`), each `{status, reasons[, counts…]}`. An area is complete
only when nothing was cut, unread, invalid, unresolved or ambiguous, and the
areas read from documents inherit a partial `documents` area (a document not
read may have held a decision). `symbols` is the discovery snapshot's:
complete when every Python, TypeScript and JavaScript file was read whole,
partial with the reasons (bounds, syntax errors, ambiguous owners), and
`not-analyzed` when discovery was not asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.extraction.bounds import MAX_REASONS
from knowledge_desktop.engine.extraction.model import (
    AREAS,
    CHANGES,
    CONCEPTS,
    DECISIONS,
    DOCUMENTS,
    HISTORY,
    MEMORY,
    SYMBOLS,
    Reason,
)

COMPLETE, PARTIAL, NOT_ANALYZED = "complete", "partial", "not-analyzed"
NO_SYMBOLS = Reason(SYMBOLS, "symbols-not-requested", detail="code-symbol discovery was turned off")
NO_MEMORY = Reason(MEMORY, "no-memory-source", detail="no vault was given")


def build(
    reasons: Iterable[Reason],
    counts: dict[str, dict[str, Any]],
    history_status: str,
    memory_status: str,
    symbols_status: str = NOT_ANALYZED,
) -> dict[str, Any]:
    """The coverage object, reasons sorted and deduplicated, at most 1,000 per area."""
    by_area: dict[str, set[Reason]] = {area: set() for area in AREAS}
    for r in reasons:
        by_area[r.area].add(r)
    if symbols_status == NOT_ANALYZED:
        by_area[SYMBOLS].add(NO_SYMBOLS)
    statuses = {area: PARTIAL if by_area[area] else COMPLETE for area in AREAS}
    statuses[HISTORY] = history_status
    if symbols_status == NOT_ANALYZED:
        statuses[SYMBOLS] = NOT_ANALYZED
    statuses[MEMORY] = memory_status
    if history_status == NOT_ANALYZED:  # commits are changes too
        by_area[CHANGES].add(Reason(CHANGES, "history-not-analyzed", detail="see history"))
        statuses[CHANGES] = PARTIAL
    if statuses[DOCUMENTS] != COMPLETE:
        for area in (DECISIONS, CONCEPTS, CHANGES):
            by_area[area].add(Reason(area, "documents-partial", detail="see documents"))
            statuses[area] = PARTIAL
    out: dict[str, Any] = {}
    for area in AREAS:
        ordered = sorted(by_area[area])
        items = [r.as_json() for r in ordered[:MAX_REASONS]]
        if len(ordered) > MAX_REASONS:
            items.append({"code": "reasons-capped", "detail": f"{len(ordered) - MAX_REASONS} more"})
        out[area] = {"status": statuses[area], **counts.get(area, {}), "reasons": items}
    return out
