"""Verifying evidence locators against the vault (ARCHITECTURE.md, Evidence).

A locator is verified when its target exists in the vault and, when a
`sha256` is given, the hash matches. Decided here (the spec leaves it open):
with `lines`, the hash covers exactly those lines' bytes, line endings
included; without, the whole file. A `url` cannot be checked offline and is
reported as such, never as a failure. Evidence paths are partition-relative
and may not leave the partition.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine import diagnostics as dg

if TYPE_CHECKING:
    from knowledge_desktop.engine.derive import Catalog, Derived, Node

FileProbe = Callable[[str], bytes | None]
"""Reads a vault-relative file; None when it is missing or not a regular file."""


@dataclass(frozen=True, slots=True)
class CheckedEvidence:
    index: int
    source: str | None
    path: str | None
    url: str | None
    lines: tuple[int, int] | None
    status: str
    """verified | unverified | offline (a url only)"""
    reason: str | None = None


def check(catalog: Catalog, node: Node, derived: Derived, probe: FileProbe | None) -> list[CheckedEvidence]:
    items = node.data.get("evidence")
    if not isinstance(items, list):
        return []
    scope = node.scope or ""
    out: list[CheckedEvidence] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        checked = _check_one(catalog, scope, index, item, derived, probe)
        out.append(checked)
        if checked.status == "unverified":
            derived.diagnostics.append(
                dg.make(
                    "evidence-unverified",
                    node.path,
                    f"evidence {index + 1}: {checked.reason}",
                    line=node.parsed.key_lines.get(f"evidence.{index}"),
                    record_id=node.id,
                )
            )
    return out


def _check_one(
    catalog: Catalog, scope: str, index: int, item: dict[str, Any], derived: Derived, probe: FileProbe | None
) -> CheckedEvidence:
    source = item.get("source") if isinstance(item.get("source"), str) else None
    path = item.get("path") if isinstance(item.get("path"), str) else None
    url = item.get("url") if isinstance(item.get("url"), str) else None
    lines = cited_lines(item.get("lines"))
    sha = item.get("sha256") if isinstance(item.get("sha256"), str) else None

    def result(status: str, reason: str | None = None) -> CheckedEvidence:
        return CheckedEvidence(index, source, path, url, lines, status, reason)

    if source is not None:
        _, final_path, status = catalog.follow_merges(scope, source, derived.watch)
        if status != "resolved" or final_path is None:
            return result("unverified", f"source {source!r} is not a record in this partition")
        if catalog.nodes[final_path].kind != "page":
            return result("unverified", f"source {source!r} is not a page")
        if path is None:
            return result("verified")
    if path is not None:
        rel = posixpath.normpath(path.lstrip("/"))
        if rel == ".." or rel.startswith("../"):
            return result("unverified", f"path {path!r} leaves the partition")
        derived.watch.add(("p", scope, rel))
        known = catalog.paths.get((scope, rel))
        if known is not None and sha is None:
            return result("verified")
        if known is not None and lines is None and sha is not None:
            ok = catalog.nodes[known].parsed.sha256 == sha.lower()
            return result("verified") if ok else result("unverified", f"{path} no longer matches its sha256")
        data = probe(f"{scope}/{rel}") if probe is not None else None
        if data is None:
            return result("unverified", f"{path} does not exist in the partition")
        if lines is not None:
            chunks = data.splitlines(keepends=True)
            if lines[1] > len(chunks):
                return result(
                    "unverified", f"{path} has {len(chunks)} lines; lines {lines[0]}-{lines[1]} cited"
                )
            data = b"".join(chunks[lines[0] - 1 : lines[1]])
        if sha is not None and hashlib.sha256(data).hexdigest() != sha.lower():
            return result("unverified", f"{path}{_range(lines)} no longer matches its sha256")
        return result("verified")
    if url is not None:
        return result("offline")
    return result("unverified", "no locator")


def _range(lines: tuple[int, int] | None) -> str:
    return f" lines {lines[0]}-{lines[1]}" if lines else ""


def cited_lines(raw: object) -> tuple[int, int] | None:
    """An evidence item's `lines: [start, end]` as a pair, or None when absent or malformed
    (the shape is validated, and diagnosed, by the record models)."""
    if (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
    ):
        return (raw[0], raw[1])
    return None
