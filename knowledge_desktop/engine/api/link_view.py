"""A record's body links, and the links pointing at it, as an extension may see them
(issue 32 §1; docs/mcp.md, "What the agent can read").

The vault resolves a link over every record of the partition. Told that answer, an extension
could ask whether a record it cannot see exists: a link to a hidden record read
`unavailable`, one to nothing read `missing`, and `ambiguous` counted hidden namesakes. So an
extension's answer is worked out again over what it may see, the same way the vault works it
out (`graph/resolve.py`, `links/precedence.py`):

- the candidates are the record at the link's path and the records with the link's name,
  found over the whole catalog (the same queries whatever exists, so a hidden record and no
  record cost the same);
- the ones the extension may not see are dropped, and only then does a name match in a
  collection folder give way to one outside;
- each candidate is followed through `merged_into`, while the records on the way are
  visible; a visible end is an outcome.

No outcome is `missing`, one is `resolved` (with its id and path), more are `ambiguous`;
a link that leaves the partition stays `outside`. A hidden record and a record that does not
exist therefore read alike, word for word. Backlinks are judged by the same rule, so a link
the extension sees resolved to a record is listed among that record's backlinks too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.api.visibility import Visibility, frontmatter_of
from knowledge_desktop.engine.graph.keys import normalise_name, partition_path
from knowledge_desktop.engine.graph.resolve import link_keys
from knowledge_desktop.engine.limits import MAX_MERGE_HOPS
from knowledge_desktop.engine.links.precedence import name_matches

Outcome = tuple[str, str]
"""(record id, vault path) a link ends at."""


def _candidates(
    conn: sqlite3.Connection, scope: str, source: str, kind: str, target: str
) -> tuple[set[str], set[str]] | None:
    """(the record at the link's path, the records with its name), seen or not; None when
    the link leaves the partition."""
    candidate, name = link_keys(kind, partition_path(source), target)
    if candidate is None:
        return None
    by_path = conn.execute(
        "SELECT path FROM catalog WHERE path=? AND scope=? AND status='record'",
        (f"{scope}/{candidate}" if candidate else "", scope),
    ).fetchall()
    by_name = conn.execute(
        "SELECT c.path FROM catalog_names n CROSS JOIN catalog c ON c.path=n.path"
        " WHERE n.name=? AND c.scope=? AND c.status='record'",
        (name, scope),
    ).fetchall()
    return {p for (p,) in by_path}, {p for (p,) in by_name}


def _outcome(conn: sqlite3.Connection, scope: str, path: str, seen: Visibility) -> Outcome | None:
    """Where the visible record at `path` leads through merges, over visible records only."""
    for _ in range(MAX_MERGE_HOPS + 1):
        row = conn.execute(
            "SELECT id, lifecycle FROM catalog WHERE path=? AND status='record'", (path,)
        ).fetchone()
        if row is None or not row[0]:
            return None
        record_id, lifecycle = row
        if lifecycle != "merged":
            return record_id, path
        following = frontmatter_of(conn, path).get("merged_into")
        if not isinstance(following, str):
            return None
        rows = conn.execute(
            "SELECT path FROM catalog WHERE scope=? AND id=? AND status='record'", (scope, following)
        ).fetchall()
        if len(rows) != 1 or not seen.visible(rows[0][0]):
            return None
        path = rows[0][0]
    return None


def resolve(
    conn: sqlite3.Connection, scope: str, source: str, kind: str, target: str, seen: Visibility
) -> tuple[str, str | None, str | None]:
    """(status, id, path) of one link from `source` as the extension may see it."""
    found = _candidates(conn, scope, source, kind, target)
    if found is None:
        return "outside", None, None
    by_path = {p for p in found[0] if seen.visible(p)}
    by_name = name_matches(p for p in found[1] if seen.visible(p))
    outcomes = {o for p in by_path | by_name if (o := _outcome(conn, scope, p, seen)) is not None}
    if not outcomes:
        return "missing", None, None
    if len(outcomes) > 1:
        return "ambiguous", None, None
    ((record_id, path),) = outcomes
    return "resolved", record_id, path


def references(
    conn: sqlite3.Connection, source: str, refs: Iterable[dict[str, Any]], seen: Visibility
) -> tuple[dict[str, Any], ...]:
    """The body links of the visible record at `source`, each judged by `resolve`."""
    scope = source.split("/", 1)[0]
    out = []
    for ref in refs:
        status, record_id, path = resolve(conn, scope, source, ref["kind"], ref["target"], seen)
        # judged within the partition only: the vault's word that the link crossed into
        # another partition would tell of a record the extension cannot read
        out.append({**ref, "status": status, "id": record_id, "path": path, "crossPartition": False})
    return tuple(out)


def extra_backlinks(
    conn: sqlite3.Connection, row: dict[str, Any], names: Iterable[str], seen: Visibility
) -> list[dict[str, Any]]:
    """Links the extension sees resolved to the record `row` that the vault resolves to
    another record (a namesake hidden from the extension) or to none (ambiguous, broken
    merge): the backlinks `resolve` adds to the vault's own."""
    scope, path = row["scope"], row["path"]
    wanted = sorted({normalise_name(n) for n in names if n})
    # The names lead (CROSS JOIN keeps that order): with a plain JOIN SQLite chose the
    # partition's index and read every record of it (2.6 s of a 100k vault's record call).
    namesakes = conn.execute(
        "SELECT DISTINCT c.id, c.path, c.lifecycle FROM catalog_names n CROSS JOIN catalog c ON c.path=n.path"
        f" WHERE n.name IN ({','.join('?' * len(wanted))}) AND c.scope=? AND c.status='record'"
        " AND c.path<>?",
        (*wanted, scope, path),
    ).fetchall()
    ids = {i for i, _p, _l in namesakes if i}
    ids |= {
        m
        for _i, p, lifecycle in namesakes
        if lifecycle == "merged" and isinstance(m := frontmatter_of(conn, p).get("merged_into"), str)
    }
    select = (
        "SELECT l.src_path, l.line, l.link_kind, l.target_text, c.title, c.id"
        " FROM links l JOIN catalog c ON c.path=l.src_path WHERE l.scope=? AND "
    )
    rows = conn.execute(select + "l.status IN ('ambiguous', 'broken-merge')", (scope,)).fetchall()
    rows += conn.execute(
        select + f"l.target_id IN ({','.join('?' * len(ids))}) AND l.status='resolved'", (scope, *ids)
    ).fetchall()
    rows.sort(key=lambda r: ((r[4] or "").casefold(), r[1]))
    rel, names_wanted = partition_path(path), set(wanted)
    out: list[dict[str, Any]] = []
    for src, line, kind, text, title, src_id in rows:
        candidate, name = link_keys(kind, partition_path(src), text)
        if candidate != rel and name not in names_wanted:
            continue
        if not seen.visible(src) or resolve(conn, scope, src, kind, text, seen)[2] != path:
            continue
        out.append({"id": src_id, "path": src, "title": title, "line": line, "via": "link"})
    return out
