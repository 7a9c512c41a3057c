"""Exact lookup of a note (issue 25 §3: `knowledge lookup` finds a note when no record matches).

A note is named as Obsidian names it: by its file name without `.md` (or
with it; a vault-relative path or its end, as `[[folder/Name]]` does), by
its title (frontmatter `title`, else the file name) and by its aliases.
Names compare as record names do (`graph.keys.normalise_name`: NFKC,
lowercase, trimmed, whitespace collapsed), never fuzzily; a name two
notes share is ambiguous, as for records. Only the caller decides that
records come first: this module is asked only when no record matched.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.store.projections import note_text

NOTE = "note"


def lookup_note(
    conn: sqlite3.Connection, query: str, *, scope: str | None = None, tag: str | None = None
) -> dict[str, Any]:
    """Notes named exactly `query` (after normalising): found, ambiguous or missing.

    Names are those `note_text.names` keeps for each note; a vault-relative
    path (with or without `.md`) or its end names a note too."""
    wanted = normalise_name(query)
    if not wanted:
        return {"status": "missing", "query": query}
    tail = wanted if wanted.endswith(".md") else wanted + ".md"
    where = ["status = 'note'"]
    params: list[object] = []
    if scope is not None:
        where.append("scope = ?")
        params.append(scope)
    if tag is not None:
        where.append("EXISTS (SELECT 1 FROM json_each(catalog.tags) WHERE value = ?)")
        params.append(tag)
    by_name = f"SELECT path FROM {note_text.NAMES} WHERE name = ?"
    candidates = conn.execute(
        "SELECT path, scope, title, aliases, tags, sha256 FROM catalog"
        f" WHERE {' AND '.join(where)} AND (path IN ({by_name}) OR (? LIKE '%/%' AND"
        " (lower(path) IN (?, ?) OR substr(lower(path), -?) = ?)))",
        [*params, wanted, wanted, wanted, tail, len(tail) + 1, "/" + tail],
    ).fetchall()
    found = [
        _item(path, scope_, title, json.loads(aliases or "[]"), json.loads(tags or "[]"), sha)
        for path, scope_, title, aliases, tags, sha in candidates
    ]
    if not found:
        return {"status": "missing", "query": query}
    if len(found) > 1:
        found.sort(key=lambda item: item["path"])
        return {"status": "ambiguous", "query": query, "kind": NOTE, "candidates": found}
    return {"status": "found", "query": query, "kind": NOTE, "record": found[0]}


def _item(
    path: str, scope: str | None, title: str | None, aliases: list[Any], tags: list[Any], sha: str
) -> dict[str, Any]:
    """A note in the place and shape of a lookup's inventory item, with `kind` "note"."""
    return {
        "id": None,
        "kind": NOTE,
        "type": None,
        "title": title,
        "path": path,
        "scope": scope,
        "aliases": aliases,
        "tags": tags,
        "hash": sha,
    }
