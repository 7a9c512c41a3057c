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

NOTE = "note"


def note_names(path: str, title: object, aliases: object) -> set[str]:
    """Every normalised name a note answers to: file name, title, aliases."""
    name = path.rsplit("/", 1)[-1]
    names = {name, name[:-3] if name.lower().endswith(".md") else name}
    if isinstance(title, str):
        names.add(title)
    if isinstance(aliases, list):
        names.update(a for a in aliases if isinstance(a, str))
    return {n for n in (normalise_name(x) for x in names) if n}


def lookup_note(
    conn: sqlite3.Connection, query: str, *, scope: str | None = None, tag: str | None = None
) -> dict[str, Any]:
    """Notes named exactly `query` (after normalising): found, ambiguous or missing.

    The catalog's name index answers titles and aliases when it lists notes;
    file names are matched on the path itself. The candidates found either way
    are confirmed against all their names here, so both agree on what matches."""
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
    rows = conn.execute(
        "SELECT path, scope, title, aliases, tags, sha256 FROM catalog"
        f" WHERE {' AND '.join(where)} AND (path IN (SELECT path FROM catalog_names WHERE name = ?)"
        " OR lower(path) = ? OR substr(lower(path), -?) = ?"
        " OR lower(title) = ? OR instr(lower(aliases), ?) > 0)",
        [*params, wanted, tail, len(tail) + 1, "/" + tail, wanted, wanted],
    ).fetchall()
    found = []
    for path, scope_, title, aliases_json, tags_json, sha in rows:
        aliases = json.loads(aliases_json or "[]")
        by_path = normalise_name(path) in (tail, wanted) or normalise_name(path).endswith("/" + tail)
        if by_path or wanted in note_names(path, title, aliases):
            found.append(_item(path, scope_, title, aliases, json.loads(tags_json or "[]"), sha))
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
