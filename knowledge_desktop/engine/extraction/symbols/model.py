"""What discovery finds in one code file: its module and the names it exports.

Spec: knowledge-entities-extraction.md, "Shape" (`fact` evidence names an entity
of the input discovery snapshot; `affected-fact` and `defines-symbol` links
target such entities). Our snapshot holds one fact per module, with the
module's exported symbols inside it: the spec's links name the module as
`target` and the precise exported name as `symbol`, so the module is the
owner a concept's name resolves to. Each symbol also has its own id, for a
pane or a reader that wants to point at one declaration.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.extraction import ids

KINDS = ("class", "function", "constant", "variable", "interface", "type", "enum", "namespace", "default")


def module_id(path: str) -> str:
    """A module's fact id binds its path only (renames are new ids, as for documents)."""
    return ids.bounded(f"module:{path}")


def symbol_id(path: str, name: str) -> str:
    """A symbol's fact id binds its module's path and its exported name; moving it inside
    the file changes its lines and hash, never its id."""
    return ids.bounded(f"symbol:{path}#{name}")


def region_hash(lines: list[bytes], start: int, end: int) -> str:
    """SHA-256 of lines `start..end` (one-based, inclusive) as the file holds them,
    endings included, like a document region's hash."""
    return hashlib.sha256(b"".join(lines[start - 1 : end])).hexdigest()


@dataclass(frozen=True, slots=True, order=True)
class Symbol:
    """One name a module exports.

    `forwarding`: the module passes on a name declared elsewhere (`export { x } from`,
    a package `__init__` importing it); `origin` is where from, as written."""

    name: str
    kind: str
    line_start: int
    line_end: int
    region_hash: str
    forwarding: bool = False
    origin: str | None = None

    def as_json(self, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": symbol_id(path, self.name),
            "name": self.name,
            "kind": self.kind,
            "lineStart": self.line_start,
            "lineEnd": self.line_end,
            "regionHash": self.region_hash,
            "forwarding": self.forwarding,
        }
        if self.origin is not None:
            out["from"] = self.origin
        return out


@dataclass(slots=True)
class ModuleFacts:
    """One code file's module fact: its language, hash and exported symbols."""

    path: str
    language: str
    sha256: str
    symbols: list[Symbol] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    """(code, detail) pairs that make the file's analysis partial (syntax errors, caps)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "id": module_id(self.path),
            "kind": "module",
            "path": self.path,
            "language": self.language,
            "sha256": self.sha256,
            "symbols": [
                s.as_json(self.path) for s in sorted(self.symbols, key=lambda s: (s.name, s.line_start))
            ],
        }
