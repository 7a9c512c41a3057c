"""Verifying evidence locators against the vault (ARCHITECTURE.md, Evidence).

A locator is verified when its target exists in the vault and, when a
`sha256` is given, the hash matches. Decided here (the spec leaves it open):
with `lines`, the hash covers exactly those lines' bytes, line endings
included; without, the whole file. A `url` cannot be checked offline and is
reported as such, never as a failure. Evidence paths are partition-relative
and may not leave the partition.

Checking reads the graph only through `EvidenceTargets`, so this module does
not depend on the graph that calls it.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.detail import EvidenceLocator
from knowledge_desktop.engine.graph.keys import Key
from knowledge_desktop.engine.graph.node import RecordNode

FileProbe = Callable[[str], bytes | None]
"""Reads a vault-relative file; None when it is missing or not a regular file, and
`ProbeRefused` when it is there but will not be read."""


class ProbeRefused(Exception):
    """A cited file exists but is not read (too large, a link, unreadable); `reason`
    completes a sentence whose subject is the file."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class EvidenceTargets(Protocol):
    """What evidence checking needs to know of the other files of a partition."""

    probe: FileProbe | None
    """Reads a file's bytes when its hash must be computed; None: nothing can be read."""

    def follow_merges(self, scope: str, target: str, watch: set[Key]) -> tuple[str | None, str | None, str]:
        """(final id, final path, status) of an id followed through merged_into."""
        ...

    def kind_at(self, path: str) -> str | None:
        """The record kind of the file at a vault path."""
        ...

    def sha_at(self, scope: str, rel: str) -> str | None:
        """The sha256 of the candidate file at a partition path; None when there is none."""
        ...


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


def check(
    targets: EvidenceTargets, node: RecordNode, watch: set[Key], diagnostics: list[Diagnostic]
) -> list[CheckedEvidence]:
    """Each well-formed evidence item of `node`, checked; a diagnostic for each unverified one.

    The keys looked at go to `watch`, so that a change of a cited file or
    source checks the evidence again.
    """
    items = node.evidence_items
    if items is None:
        return []
    scope = node.scope or ""
    out: list[CheckedEvidence] = []
    for index, item in enumerate(items):
        if item is None:
            continue
        checked = _check_one(targets, scope, index, item, watch)
        out.append(checked)
        if checked.status == "unverified":
            diagnostics.append(
                dg.make(
                    "evidence-unverified",
                    node.path,
                    f"evidence {index + 1}: {checked.reason}",
                    line=node.key_lines.get(f"evidence.{index}"),
                    record_id=node.id,
                )
            )
    return out


def _check_one(
    targets: EvidenceTargets, scope: str, index: int, item: EvidenceLocator, watch: set[Key]
) -> CheckedEvidence:
    source, path, url, lines, sha = item

    def result(status: str, reason: str | None = None) -> CheckedEvidence:
        return CheckedEvidence(index, source, path, url, lines, status, reason)

    if source is not None:
        _, final_path, status = targets.follow_merges(scope, source, watch)
        if status != "resolved" or final_path is None:
            return result("unverified", f"source {source!r} is not a record in this partition")
        if targets.kind_at(final_path) != "page":
            return result("unverified", f"source {source!r} is not a page")
        if path is None:
            return result("verified")
    if path is not None:
        rel = posixpath.normpath(path.lstrip("/"))
        if rel == ".." or rel.startswith("../"):
            return result("unverified", f"path {path!r} leaves the partition")
        watch.add(("p", scope, rel))
        known_sha = targets.sha_at(scope, rel)
        if known_sha is not None and sha is None:
            return result("verified")
        if known_sha is not None and lines is None and sha is not None:
            ok = known_sha == sha.lower()
            return result("verified") if ok else result("unverified", f"{path} no longer matches its sha256")
        probe = targets.probe
        try:
            data = probe(f"{scope}/{rel}") if probe is not None else None
        except ProbeRefused as refused:
            return result("unverified", f"{path} {refused.reason}")
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
