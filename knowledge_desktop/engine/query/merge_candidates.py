"""Merge candidates: pages that may be one entity (spec: corrections-and-merges, Merge
duplicate pages — `mergeCandidates` in diagnostics).

Pages of one type in one partition that share a namespaced identity alias
(`email:ada@example.org`, `github:ada`, `discord:1234`) are strong
candidates; pages whose titles are the same once normalised (NFKC,
lowercase, trimmed, whitespace collapsed: lookup's normalisation) are weak
ones. Only current pages count — a merged or withdrawn page has had its
decision. This is a hint to confirm, never a reason to merge on its own:
nothing merges automatically.

It reads the catalog's normalised names (`catalog_names`, titles and
aliases), so only names held by more than one file are looked at.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.visible_text import one_line

IDENTITY = re.compile(r"^([a-z][a-z0-9_.+-]*):(\S.*)$")
"""A namespaced identity alias: `namespace:value`."""
NOT_IDENTITY = frozenset({"http", "https", "ftp", "file", "urn"})
"""Prefixes that make an address, not an identity."""


def identity_alias(name: str) -> bool:
    """Whether a normalised name is a namespaced identity such as `email:…` or `github:…`."""
    found = IDENTITY.match(name)
    return found is not None and found.group(1) not in NOT_IDENTITY


def merge_candidates(conn: sqlite3.Connection, scope: str | None = None) -> list[dict[str, Any]]:
    """Candidate groups, strong first: {strength, reason, key, scope, type, pages: [{id, title,
    path}]}, each group two or more current pages of one type sharing `key`."""
    where = "c.status='record' AND c.kind='page' AND c.eligible=1 AND c.lifecycle='active'"
    params: list[Any] = []
    if scope is not None:
        where += " AND c.scope=?"
        params.append(scope)
    rows = conn.execute(
        "SELECT n.name, c.scope, c.type, c.id, c.title, c.path FROM catalog_names n"
        " JOIN catalog c ON c.path = n.path"
        " WHERE n.name IN (SELECT name FROM catalog_names GROUP BY name HAVING count(*) > 1)"
        f" AND {where} ORDER BY c.path",
        params,
    )
    groups: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    for name, page_scope, page_type, page_id, title, path in rows:
        if page_type is None:
            continue
        pages = groups.setdefault((page_scope, page_type, name), {})
        pages.setdefault(page_id, {"id": page_id, "title": title, "path": path})
    strong: list[dict[str, Any]] = []
    weak: list[dict[str, Any]] = []
    for (page_scope, page_type, name), pages in sorted(groups.items()):
        if len(pages) < 2:
            continue
        members = sorted(pages.values(), key=lambda p: (p["path"], p["id"]))
        entry = {"scope": page_scope, "type": page_type, "key": name, "pages": members}
        if identity_alias(name):
            strong.append({"strength": "strong", "reason": f"they share the identity alias {name}", **entry})
        elif all(normalise_name(p["title"] or "") == name for p in members):
            weak.append({"strength": "weak", "reason": "they have the same title", **entry})
    covered = [frozenset(p["id"] for p in g["pages"]) for g in strong]
    weak = [g for g in weak if not any(frozenset(p["id"] for p in g["pages"]) <= c for c in covered)]
    return strong + weak


def as_text(candidates: list[dict[str, Any]]) -> str:
    """The human listing `knowledge diagnostics` prints (titles, ids and aliases escaped:
    `visible_text`)."""
    lines = []
    for group in candidates:
        pages = ", ".join(f"{one_line(p['title'])} ({one_line(p['id'])})" for p in group["pages"])
        lines.append(
            f"{group['strength']:<7} {one_line(group['type']):<12} {pages} — {one_line(group['reason'])}"
        )
    return "\n".join(lines)


def as_diagnostics(candidates: list[dict[str, Any]]) -> list[dg.Diagnostic]:
    """One `merge-candidate` finding per group, on its first page: how the diagnostics
    pane lists them beside the other findings (its "Possible duplicates" filter)."""
    out = []
    for group in candidates:
        first, *others = group["pages"]
        names = ", ".join(f"{p['title']} ({p['id']})" for p in others)
        out.append(
            dg.make(
                "merge-candidate",
                first["path"],
                f"{group['strength']} candidate: {first['title']} may be the same {group['type']} as "
                f"{names}; {group['reason']}",
                record_id=first["id"],
            )
        )
    return out
