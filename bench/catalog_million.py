"""Catalog page reads on a million-row `catalog` table (issue 26 §3), cheaply.

Takes a scanned vault's `state.sqlite`, copies it to a temp folder, inserts its catalog
rows again `--times` - 1 times (path and title suffixed, so every copy is a new file
that sorts beside the original), builds the projection's indexes, and times the counts
tree, pages of the largest branch at several depths and `locate`, with the catalog's
`catalog_label` index and then without it (dropped), best of `--repeat`.

    PYTHONPATH=$PWD python bench/catalog_million.py /tmp/ld10k/.knowledge/state.sqlite --times 100
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from knowledge_desktop.engine.query import catalog_tree as ct
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL


def best(repeat: int, work: object) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("state", type=Path)
    parser.add_argument("--times", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.sqlite"
        shutil.copy(args.state, db)
        conn = sqlite3.connect(db)
        cols = [r[1] for r in conn.execute("PRAGMA table_info(catalog)")]
        rest = ", ".join(c for c in cols if c not in ("path", "title"))
        start = time.perf_counter()
        with conn:
            for n in range(1, args.times):
                conn.execute(
                    f"INSERT INTO catalog (path, title, {rest})"
                    f" SELECT path || '~{n}', title || ' {n}', {rest} FROM catalog WHERE path NOT LIKE '%~%'"
                )
            conn.executescript(PROJECTIONS_SQL)  # the indexes, the new one included
        conn.execute("ANALYZE")
        rows = conn.execute("SELECT count(*) FROM catalog").fetchone()[0]
        print(f"catalog rows: {rows:,} (built in {time.perf_counter() - start:.1f} s)")
        scope, kind, type_, size = conn.execute(
            "SELECT scope, kind, type, count(*) AS n FROM catalog WHERE status='record'"
            " GROUP BY scope, kind, type ORDER BY n DESC LIMIT 1"
        ).fetchone()
        branch = ct.Branch("type", scope, kind, type_)
        q = ct.CatalogQuery()
        print(f"largest branch: {scope}/{kind}/{type_}: {size:,} rows")
        where, params = ct._branch_clause(q, branch)
        plan_sql = f"SELECT path FROM catalog WHERE {where} ORDER BY {ct._order('title')} LIMIT 200 OFFSET 0"
        deep = max(0, size - 200)
        target = conn.execute(
            plan_sql.replace("OFFSET 0", f"OFFSET {max(0, size - 100)}"), params
        ).fetchone()[0]
        for label in ("with catalog_label", "without (dropped)"):
            plan = [r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {plan_sql} -- {label}", params)]
            print(f"\n{label}: plan {plan}")
            print(f"  tree: {best(args.repeat, lambda: ct.tree(conn, q)):.0f} ms")
            for offset in (0, size // 2, deep):
                ms = best(args.repeat, lambda o=offset: ct.listing(conn, q, branch, o, 200))
                print(f"  page of 200 at offset {offset:,}: {ms:.0f} ms")
            ms = best(args.repeat, lambda: ct.locate(conn, q, target))
            print(f"  locate {size - 100:,} rows down: {ms:.0f} ms")
            conn.execute("DROP INDEX IF EXISTS catalog_label")
        conn.close()


if __name__ == "__main__":
    main()
