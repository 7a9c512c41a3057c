"""A type branch's pages come from the `catalog_label` index (issue 26 §3), in the order a
full sort gives: titles of any case and script, missing titles (the file name stands in),
equal labels broken by path, `NULL` scopes and types."""

from __future__ import annotations

import random
import sqlite3

import pytest

from knowledge_desktop.engine.query import catalog_tree as ct
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL

TITLES = ["Ada", "ada", "ADA", "Émile", "émile", "Zoë", "zoe", "_under", "10 things", "", None, None]


def catalog(seed: int) -> sqlite3.Connection:
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.executescript(PROJECTIONS_SQL)
    for n in range(600):
        scope = rng.choice(["private", None])
        kind, type_ = rng.choice([("page", "person"), ("page", None), ("claim", "fact")])
        title = rng.choice(TITLES)
        folder = rng.choice(["people", "a/b", ""])
        name = rng.choice(["ada", "Ada", "zed", "émile"]) + f"-{n % 7}.md"
        path = f"{folder}/{name}" if folder else name
        if conn.execute("SELECT 1 FROM catalog WHERE path=?", (path,)).fetchone():
            path = f"{path}.{n}.md"
        conn.execute(
            "INSERT INTO catalog (path, scope, status, kind, type, title, valid, duplicate, deps_ok,"
            " eligible, aliases, tags, sha256, size, errors, warnings)"
            " VALUES (?, ?, 'record', ?, ?, ?, 1, 0, 1, 1, '[]', '[]', '', 0, 0, 0)",
            (path, scope, kind, type_, title),
        )
    return conn


def pages(conn: sqlite3.Connection, branch: ct.Branch) -> list[str]:
    out: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = ct.listing(conn, ct.CatalogQuery(), branch, offset, 37)
        out += [i["path"] for i in page["items"]]
        offset = page["nextOffset"]
    return out


@pytest.mark.parametrize("seed", range(3))
def test_pages_read_through_the_index_match_a_full_sort(seed: int) -> None:
    conn = catalog(seed)
    branches = [
        ct.Branch("type", scope, kind, type_)
        for scope, kind, type_ in conn.execute("SELECT DISTINCT scope, kind, type FROM catalog")
    ]
    assert len(branches) == 6
    where, params = ct._branch_clause(ct.CatalogQuery(), branches[0])
    plan = " ".join(
        r[3]
        for r in conn.execute(
            f"EXPLAIN QUERY PLAN SELECT path FROM catalog WHERE {where} ORDER BY {ct._order('title')}"
            " LIMIT 10 OFFSET 100",
            params,
        )
    )
    assert "USING INDEX catalog_label" in plan
    assert "TEMP B-TREE" not in plan  # no sort of the branch per page
    with_index = {b: pages(conn, b) for b in branches}
    conn.execute("DROP INDEX catalog_label")
    for branch, listed in with_index.items():
        assert listed == pages(conn, branch)  # the same order as SQLite's own sort
        rows = conn.execute(
            "SELECT path, title FROM catalog WHERE scope IS ? AND kind IS ? AND type IS ?",
            (branch.scope, branch.kind, branch.type),
        ).fetchall()

        def key(row: tuple[str, str | None]) -> tuple[str, str]:
            label = row[1] if row[1] is not None else row[0].rsplit("/", 1)[-1]
            return (label.translate(ASCII_LOWER), row[0])  # NOCASE folds ASCII letters only

        assert listed == [p for p, _ in sorted(rows, key=key)]


ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
