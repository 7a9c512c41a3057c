"""Where each wikilink of a vault goes now, by name: what adopting notes must keep.

Adopting a note gives it a title and aliases, and a record's `[[Name]]` looks
for a title or alias of its partition before it looks anywhere else
(`graph/resolve.py`, then `graph/note_links.py`). So a title or alias given in
a partition must not take a name that the partition's links use for another
file, and a name that reaches one file by name alone may become that file's
alias. `LinkClaims` reads, from the links the last scan resolved (the engine's
own answer, not a second reading of Obsidian's rules), which files each name
reaches from each partition.
"""

from __future__ import annotations

import posixpath
import sqlite3
from dataclasses import dataclass, field

from knowledge_desktop.engine.graph.keys import normalise_name


def link_name(target: str) -> str:
    """The name part of a wikilink's target: before `#`, trimmed, without `.md`."""
    name = target.split("#", 1)[0].strip()
    return name[:-3] if name.lower().endswith(".md") else name


def partition_of(path: str) -> str | None:
    """The top-level folder of a vault path (a note's or record's partition); None at the root."""
    return path.split("/", 1)[0] if "/" in path else None


@dataclass(slots=True)
class LinkClaims:
    """Per partition (None: the vault root): normalised name -> the files its wikilinks
    reach, and the names as written, in order, per file reached."""

    targets: dict[tuple[str | None, str], set[str]] = field(default_factory=dict)
    written: dict[tuple[str | None, str], list[str]] = field(default_factory=dict)
    """(partition, target path) -> link names as written that reach it by name alone."""
    crossing: list[dict[str, str]] = field(default_factory=list)
    """Links that leave their file's top-level folder: {path, target, resolvesTo}."""

    @classmethod
    def read(cls, conn: sqlite3.Connection, moved: dict[str, str] | None = None) -> LinkClaims:
        """`moved`: old path -> new, for files the run moves (notes at the vault root): their
        links are claimed as from, and to, where they will be."""
        claims = cls()
        moved = moved or {}
        rows = conn.execute(
            "SELECT src_path, target_text, target_path FROM links"
            " WHERE target_path IS NOT NULL AND status IN ('resolved', 'ambiguous')"
            " AND link_kind IN ('wiki', 'embed') ORDER BY src_path, line"
        )
        for old_src, target, old_path in rows:
            src, path = moved.get(old_src, old_src), moved.get(old_path, old_path)
            name = link_name(target)
            if not name:
                continue  # [[#Heading]]: this file
            scope = partition_of(src)
            claims.targets.setdefault((scope, normalise_name(name)), set()).add(path)
            if not by_path(name, path, scope):
                claims.written.setdefault((scope, path), []).append(name)
            if partition_of(path) != scope and path.lower().endswith(".md"):
                claims.crossing.append({"path": src, "target": name, "resolvesTo": path})
        return claims

    def reaching(self, scope: str | None, name: str) -> set[str]:
        """The files `[[name]]` reaches from files of partition `scope`."""
        return self.targets.get((scope, normalise_name(name)), set())


def by_path(name: str, path: str, scope: str | None) -> bool:
    """Whether a record of `scope` finds `path` by the link's path alone (partition-relative)."""
    candidate = posixpath.normpath(name.strip().lstrip("/")) + ".md"
    return (f"{scope}/{candidate}" if scope is not None else candidate) == path
