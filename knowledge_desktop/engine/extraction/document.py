"""Assembling the `KnowledgeEntitiesV1` document from per-document and per-commit finds.

Spec: knowledge-entities-extraction.md, "Shape" and "Extraction and identity".
What needs more than one document is settled here: finds with the same id
merge (a term defined in two places is one concept with both regions),
supersession paths resolve to other extracted ADRs only, cited paths become
`affected-path` links only when the file exists, and aliases that several
entities declare are reported as ambiguous. Then the bounds per entity
(64 evidence, 64 links, 32 aliases) and per document (10,000 entities) apply,
each cut reported. Entities sort by id; evidence, links and aliases sort
canonically, and keys keep one fixed order, so the JSON text is the same
byte for byte for the same inputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.extraction.bounds import MAX_ALIASES, MAX_ENTITIES, MAX_EVIDENCE, MAX_LINKS
from knowledge_desktop.engine.extraction.model import CHANGES, CONCEPTS, DECISIONS, Found, Reason
from knowledge_desktop.engine.extraction.parsed import resolve
from knowledge_desktop.engine.extraction.symbols.links import Owners, link_symbols

SCHEMA_VERSION = 1
_AREA = {"decision": DECISIONS, "concept": CONCEPTS, "change": CHANGES}


def merge(finds: Iterable[Found]) -> dict[str, Found]:
    """Finds by id, those sharing an id merged into the first (document order)."""
    out: dict[str, Found] = {}
    for f in finds:
        have = out.get(f.id)
        if have is None:
            out[f.id] = replace(
                f,
                regions=list(f.regions),
                commits=list(f.commits),
                aliases=list(f.aliases),
                links=list(f.links),
                facts=list(f.facts),
                cited=list(f.cited),
                supersession=list(f.supersession),
            )
            continue
        have.regions += f.regions
        have.commits += f.commits
        have.aliases += [a for a in f.aliases if a not in have.aliases]
        have.links += f.links
        have.facts += f.facts
        have.cited += f.cited
        have.supersession += f.supersession
        have.status = have.status or f.status
        have.date = have.date or f.date
    return out


def assemble(
    root: Path, finds: Iterable[Found], adr_paths: dict[str, str], owners: Owners | None = None
) -> tuple[list[dict[str, Any]], list[Reason]]:
    """Entities as JSON objects in canonical order, and the reasons assembly adds.

    `adr_paths` maps each extracted ADR's path to its decision id; `owners`, when code
    was discovered, gives the links to it (`symbols/links.py`)."""
    reasons: list[Reason] = []
    merged = merge(finds)
    exists: dict[str, bool] = {}
    for f in merged.values():
        home = f.regions[0].path if f.regions else ""
        for kind, raw in f.supersession:
            target_path = resolve(home, raw)
            target = adr_paths.get(target_path) if target_path is not None else None
            if target is None or target == f.id:
                reasons.append(Reason(DECISIONS, "unresolved-supersession", home, f"{kind} {raw}"))
            else:
                f.links.append((kind, target))
        for path in f.cited:
            if path not in exists:
                exists[path] = os.path.isfile(os.path.join(root, path))
            if exists[path]:
                f.links.append(("affected-path", path))
    if owners is not None:
        link_symbols(merged.values(), owners, reasons)
    _ambiguous_aliases(merged.values(), reasons)
    ordered = sorted(merged)
    if len(ordered) > MAX_ENTITIES:
        dropped: dict[str, int] = {}
        for entity_id in ordered[MAX_ENTITIES:]:
            area = _AREA[merged[entity_id].kind]
            dropped[area] = dropped.get(area, 0) + 1
        for area, count in dropped.items():
            reasons.append(Reason(area, "entities-capped", detail=f"{count} entities left out"))
        ordered = ordered[:MAX_ENTITIES]
    return [_entity(merged[i], reasons) for i in ordered], reasons


def _ambiguous_aliases(finds: Iterable[Found], reasons: list[Reason]) -> None:
    owners: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    items = list(finds)
    for f in items:
        names.setdefault(f.name, set()).add(f.id)
        for a in f.aliases:
            owners.setdefault(a, set()).add(f.id)
    for alias, ids in owners.items():
        others = ids | {i for i in names.get(alias, set()) if i.startswith("concept:")}
        if len(others) > 1:
            area = CONCEPTS if any(i.startswith("concept:") for i in ids) else DECISIONS
            reasons.append(Reason(area, "ambiguous-alias", detail=f"{alias!r}: {', '.join(sorted(others))}"))


def _entity(f: Found, reasons: list[Reason]) -> dict[str, Any]:
    area = _AREA[f.kind]
    where = f.regions[0].path if f.regions else ""
    evidence: list[dict[str, Any]] = [r.as_json() for r in sorted(set(f.regions))]
    evidence += [{"kind": "commit", "sha": sha} for sha in sorted(set(f.commits))]
    evidence += [{"kind": "fact", "factId": fact} for fact in sorted(set(f.facts))]
    if len(evidence) > MAX_EVIDENCE:
        reasons.append(Reason(area, "evidence-capped", where, f"{f.id}: {len(evidence)} pieces"))
        evidence = evidence[:MAX_EVIDENCE]
    links = sorted(set(f.links))
    if len(links) > MAX_LINKS:
        reasons.append(Reason(area, "links-capped", where, f"{f.id}: {len(links)} links"))
        links = links[:MAX_LINKS]
    aliases = sorted(set(f.aliases))
    if len(aliases) > MAX_ALIASES:
        reasons.append(Reason(area, "aliases-capped", where, f.id))
        aliases = aliases[:MAX_ALIASES]
    out: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "id": f.id,
        "kind": f.kind,
        "name": f.name,
        "aliases": aliases,
        "evidence": evidence,
        "links": [_link(link) for link in links],
    }
    if f.status is not None:
        out["status"] = f.status
    if f.date is not None:
        out["date"] = f.date
    if f.conventional is not None:
        out["conventional"] = f.conventional
    return out


def _link(link: tuple[str, ...]) -> dict[str, str]:
    out = {"kind": link[0], "target": link[1]}
    if len(link) > 2:
        out["symbol"] = link[2]
    return out


def to_json(document: dict[str, Any]) -> str:
    """The document as canonical JSON text: fixed key order, UTF-8 kept, newline-ended."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
