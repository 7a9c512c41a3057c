"""What one document or commit yields before the whole repository is assembled.

Kept apart from the JSON shape: per-document results are cached between runs
(keyed by path and content hash), so they hold only what the document alone
decides; everything that needs other documents (supersession targets, merged
concepts, id clashes) is settled in `document.assemble`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DECISIONS, CONCEPTS, CHANGES, DOCUMENTS, HISTORY, SYMBOLS, MEMORY = (
    "decisions",
    "concepts",
    "changes",
    "documents",
    "history",
    "symbols",
    "memory",
)
AREAS = (DOCUMENTS, DECISIONS, CONCEPTS, CHANGES, HISTORY, SYMBOLS, MEMORY)


@dataclass(frozen=True, slots=True, order=True)
class Reason:
    """One cause of partial or missing coverage, with the path it concerns."""

    area: str
    code: str
    path: str = ""
    detail: str = ""

    def as_json(self) -> dict[str, str]:
        out = {"code": self.code}
        if self.path:
            out["path"] = self.path
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True, slots=True, order=True)
class Region:
    """Evidence in a document: inclusive one-based lines and the SHA-256 of their bytes."""

    path: str
    line_start: int
    line_end: int
    region_hash: str

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": "document-region",
            "path": self.path,
            "lineStart": self.line_start,
            "lineEnd": self.line_end,
            "regionHash": self.region_hash,
        }


@dataclass(slots=True)
class Found:
    """One entity as a single document or commit observed it."""

    id: str
    kind: str
    name: str
    regions: list[Region] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    links: list[tuple[str, ...]] = field(default_factory=list)
    """Resolved typed links: (kind, target), or (kind, target, symbol) for `defines-symbol`."""
    facts: list[str] = field(default_factory=list)
    """Ids of discovery facts cited as `fact` evidence (the symbol a concept defines)."""
    cited: list[str] = field(default_factory=list)
    """Repository paths its region links to; kept as `affected-path` when they exist."""
    supersession: list[tuple[str, str]] = field(default_factory=list)
    """Declared (`supersedes` | `superseded-by`, raw path) pairs, resolved at assembly."""
    status: str | None = None
    date: str | None = None
    conventional: dict[str, Any] | None = None
    adr: bool = False


@dataclass(slots=True)
class DocumentResult:
    """Everything one document yields; cached by (path, SHA-256 of its bytes)."""

    path: str
    found: list[Found] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    adr: bool = False
