"""The notes of a vault as a list: `Vault.notes` and `knowledge notes` (issue 25 §6).

One page of notes from the catalog, with the counts a list shows: how many links
a note makes and how many lines of other files link to it. Everything is read
from the projections; no file is opened.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

_LIKE_ESCAPES = str.maketrans({"\\": "\\\\", "%": "\\%", "_": "\\_"})


def notes(
    conn: sqlite3.Connection,
    folder: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> dict[str, Any]:
    """`{"items": [{path, title, aliases, tags, links, backlinks, date, hash}], "total"}`,
    notes in path order. `folder`: notes inside it, at any depth ("" or "/": those at
    the vault root). `tag`: notes with that tag or a tag nested under it (`a` finds
    `a/b`), case-insensitively, as Obsidian's tag search does."""
    where = ["c.status='note'"]
    params: list[Any] = []
    if folder is not None:
        inside = folder.strip().strip("/")
        if inside:
            where.append("c.path LIKE ? ESCAPE '\\'")
            params.append(inside.translate(_LIKE_ESCAPES) + "/%")
        else:
            where.append("instr(c.path, '/')=0")
    if tag is not None:
        wanted = tag.strip().lstrip("#").lower()
        where.append(
            "EXISTS (SELECT 1 FROM json_each(c.tags) t"
            " WHERE lower(t.value)=? OR lower(t.value) LIKE ? ESCAPE '\\')"
        )
        params += [wanted, wanted.translate(_LIKE_ESCAPES) + "/%"]
    clause = " AND ".join(where)
    total = conn.execute(f"SELECT count(*) FROM catalog c WHERE {clause}", params).fetchone()[0]
    rows = conn.execute(
        "SELECT c.path, c.title, c.aliases, c.tags, c.sha256, json_extract(f.node, '$.note[3]')"
        f" FROM catalog c LEFT JOIN files f ON f.path=c.path WHERE {clause} ORDER BY c.path"
        " LIMIT ? OFFSET ?",
        [*params, -1 if limit is None else limit, offset],
    ).fetchall()
    paths = [row[0] for row in rows]
    links = _counts(
        conn, "SELECT src_path, count(*) FROM links WHERE src_path IN ({}) GROUP BY src_path", paths
    )
    backlinks = _counts(
        conn,
        "SELECT target_path, count(DISTINCT src_path || char(0) || line) FROM links"
        " WHERE target_path IN ({}) AND src_path<>target_path AND status IN ('resolved', 'ambiguous')"
        " GROUP BY target_path",
        paths,
    )
    items = [
        {
            "path": path,
            "title": title,
            "aliases": json.loads(aliases),
            "tags": json.loads(tags),
            "links": links.get(path, 0),
            "backlinks": backlinks.get(path, 0),
            "date": date,
            "hash": sha256,
        }
        for path, title, aliases, tags, sha256, date in rows
    ]
    return {"items": items, "total": total}


def _counts(conn: sqlite3.Connection, sql: str, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for start in range(0, len(paths), 500):  # within SQLite's bound on parameters
        chunk = paths[start : start + 500]
        out.update(conn.execute(sql.format(",".join("?" * len(chunk))), chunk).fetchall())
    return out
