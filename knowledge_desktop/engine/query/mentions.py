"""Mentions: the names and aliases of a partition's person and company pages found in a text
(issue 27 §4; spec: facts-entities-collections-api asks that a document's mentioned contacts
be recognised).

A match is exact and case-aware (the name as its page writes it: "Ada" is not "ada"), and
word-bounded (no letter, digit or underscore on either side), so "Ada" is found in "Ada's
notes" but not in "Adam". All names are matched in one pass over the text by an Aho-Corasick
automaton (pyahocorasick), not one search per name. Aliases that are identifiers rather than
names (`email:…`, `domain:…`, `knowledge:self`) are left out, and so are names under two
characters. Mentions are worked out when asked for, from the catalog and the text at hand:
nothing is stored, so a page renamed or an alias added counts at once.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import ahocorasick  # type: ignore[import-not-found]

MENTIONABLE = frozenset({"person", "company", "organization"})
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_-]*:")


@dataclass(frozen=True, slots=True)
class Mention:
    id: str
    path: str
    name: str
    start: int
    line: int
    """One-based line within the text."""


class Names:
    """The mentionable names of one partition, ready to match."""

    def __init__(self, pages: Iterable[tuple[str, str, list[str]]]) -> None:
        self.automaton: Any = ahocorasick.Automaton()
        owners: dict[str, list[tuple[str, str]]] = {}
        for rid, path, names in pages:
            for name in names:
                owners.setdefault(name, []).append((rid, path))
        for name, pages_of in owners.items():
            self.automaton.add_word(name, (name, pages_of))
        self.empty = not owners
        if owners:
            self.automaton.make_automaton()

    def find(self, text: str) -> list[Mention]:
        """Every word-bounded occurrence of a name in `text`, in order (a name two pages
        share counts for both)."""
        if self.empty or not text:
            return []
        found: list[Mention] = []
        for end, (name, pages) in self.automaton.iter(text):
            start = end - len(name) + 1
            if _word(text, start - 1) or _word(text, end + 1):
                continue
            line = text.count("\n", 0, start) + 1
            found.extend(Mention(rid, path, name, start, line) for rid, path in pages)
        # "Ada Lovelace" also holds "Ada": where one page's names start together, the longest counts
        longest: dict[tuple[str, int], Mention] = {}
        for m in found:
            held = longest.get((m.id, m.start))
            if held is None or len(m.name) > len(held.name):
                longest[(m.id, m.start)] = m
        return sorted(longest.values(), key=lambda m: (m.start, m.id))


def _word(text: str, at: int) -> bool:
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")


def names_of(data: dict[str, Any]) -> list[str]:
    """The title and aliases a page may be mentioned by."""
    names = [data.get("title"), *(data.get("aliases") or [])]
    return sorted(
        {n.strip() for n in names if isinstance(n, str) and len(n.strip()) >= 2 and not _IDENTIFIER.match(n)}
    )


def partition_names(
    conn: sqlite3.Connection,
    scope: str,
    types: Collection[str] = MENTIONABLE,
    ids: Collection[str] | None = None,
) -> Names:
    """The names of the current person and company pages of `scope` (or only of `ids`)."""
    types = sorted(types)
    marks = ",".join("?" * len(types))
    rows = conn.execute(
        "SELECT c.id, c.path, f.node FROM catalog c JOIN files f ON f.path = c.path"
        f" WHERE c.scope=? AND c.kind='page' AND c.status='record' AND c.type IN ({marks})"
        " AND c.lifecycle='active' AND c.id IS NOT NULL",
        (scope, *types),
    )
    pages = []
    for rid, path, node in rows:
        if ids is not None and rid not in ids:
            continue
        try:
            data = json.loads(node).get("data") if node else None
        except (TypeError, ValueError, AttributeError):
            data = None
        if isinstance(data, dict):
            pages.append((str(rid), str(path), names_of(data)))
    return Names(pages)
