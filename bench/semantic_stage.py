"""The query stage of search by meaning alone, at a size too big to embed here (issue 27).

    python bench/semantic_stage.py --records 100000 --passages 13

Builds a scratch database (in a temporary folder) with the projection's two vector
tables filled with random unit vectors, `--passages` per file, then times
`hybrid.neighbours` (first stage over one vector a file, second over the candidates'
passages, as held in memory, then the closest few read and scored exactly) for 40
random query vectors. The filters are left out (every file passes) and
the passage row is not looked up: this is the vector work and the SQLite reads of the
vectors, not a whole search. Then `--edits` times, one file's row is replaced as the
projection's `sync` replaces it (new vectors, a new generation, the file logged) and
the next search is timed (`firstSearchAfterEditMs`), likewise for a batch of
`--batch` files; `--cut-log` cuts the log at every change, so each first search
lists every file again as before the log existed. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_desktop.engine.query import hybrid, semantic_filter, semantic_held  # noqa: E402
from knowledge_desktop.engine.query.grep_query import GrepQuery  # noqa: E402
from knowledge_desktop.engine.store.projections import semantic as projection  # noqa: E402
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL  # noqa: E402

DIM = 256


def unit_pool() -> np.ndarray:
    rng = np.random.default_rng(27)
    pool = rng.standard_normal((20_000, DIM)).astype(np.float32)
    return (pool / np.linalg.norm(pool, axis=1, keepdims=True)).astype(np.float16)


def file_row(
    pool: np.ndarray, rng: np.random.Generator, path: str, passages: int
) -> tuple[str, str, bytes, bytes]:
    picked = pool[rng.integers(0, len(pool), passages)]
    mean = picked.astype(np.float32).mean(axis=0)
    mean /= np.linalg.norm(mean)
    return (path, "private", mean.astype(np.float16).tobytes(), picked.tobytes())


def build(db: Path, records: int, passages: int) -> None:
    rng = np.random.default_rng(27)
    pool = unit_pool()
    conn = sqlite3.connect(db)
    conn.executescript(PROJECTIONS_SQL)
    conn.execute("INSERT INTO semantic_state_v1(scope, generation, model) VALUES ('', 0, 'synthetic:256')")
    conn.execute("INSERT INTO semantic_state_v1(scope, generation, logged) VALUES ('private', 1, 1)")
    rows = []
    for n in range(records):
        rows.append(file_row(pool, rng, f"private/r{n:07}.md", passages))
        if len(rows) == 5000:
            conn.executemany("INSERT INTO semantic_records_v1 VALUES (?,?,?,?)", rows)
            rows = []
    conn.executemany("INSERT INTO semantic_records_v1 VALUES (?,?,?,?)", rows)
    conn.commit()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--passages", type=int, default=13)
    parser.add_argument("--edits", type=int, default=10, help="single-file edits, each followed by a search")
    parser.add_argument("--batch", type=int, default=50, help="files changed by the batched edit")
    parser.add_argument("--cut-log", action="store_true", help="cut the log at every change (a full listing)")
    args = parser.parse_args()
    if args.cut_log:
        projection.LOGGED = -1
    semantic_filter.passing = lambda _c, _s, held, _q: np.ones(len(held.paths), bool)  # type: ignore[assignment]
    hybrid._passage_rows = lambda _conn, places: dict(places)  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.sqlite"
        started = time.perf_counter()
        build(db, args.records, args.passages)
        built = time.perf_counter() - started
        conn = sqlite3.connect(db)
        rng = np.random.default_rng(1)
        queries = rng.standard_normal((41, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        out: dict[str, object] = {
            "records": args.records,
            "passages": args.records * args.passages,
            "buildSeconds": round(built, 1),
            "databaseMB": round(db.stat().st_size / 1e6, 1),
        }
        started = time.perf_counter()
        hybrid.neighbours(conn, str(db), "private", queries[0], GrepQuery("x"), 50)
        out["firstLoadSeconds"] = round(time.perf_counter() - started, 2)
        held = semantic_held._held[(str(db), "private")]
        out["firstStageInMemoryMB"] = round(held.matrix.nbytes / 1e6, 1)
        out["heldInMemoryMB"] = round(held.nbytes / 1e6, 1)
        for candidates in (300, 1000):
            took = []
            for vector in queries[1:]:
                started = time.perf_counter()
                hybrid.neighbours(conn, str(db), "private", vector, GrepQuery("x"), 50, candidates=candidates)
                took.append((time.perf_counter() - started) * 1000)
            out[f"neighboursMs{candidates}"] = {
                "p50": round(statistics.median(took), 1),
                "p95": round(statistics.quantiles(took, n=20)[18], 1),
            }
        out.update(edits(conn, db, args, queries))
        conn.close()
    print(json.dumps(out, indent=2))


def edits(
    conn: sqlite3.Connection, db: Path, args: argparse.Namespace, queries: np.ndarray
) -> dict[str, object]:
    """The first search after each edit, then after one batch of `--batch` files."""
    rng = np.random.default_rng(5)
    pool = unit_pool()
    writer = sqlite3.connect(db, isolation_level=None)

    def change(count: int) -> None:
        paths = [f"private/r{n:07}.md" for n in rng.choice(args.records, count, replace=False)]
        writer.execute("BEGIN IMMEDIATE")
        writer.executemany(
            "INSERT OR REPLACE INTO semantic_records_v1 VALUES (?,?,?,?)",
            [file_row(pool, rng, p, int(rng.integers(args.passages - 3, args.passages + 4))) for p in paths],
        )
        projection._stamp(writer, "private", paths)  # type: ignore[arg-type]
        writer.execute("COMMIT")

    def search(at: int) -> float:
        started = time.perf_counter()
        hybrid.neighbours(conn, str(db), "private", queries[at % len(queries)], GrepQuery("x"), 50)
        return (time.perf_counter() - started) * 1000

    after: list[float] = []
    next_ones: list[float] = []
    for at in range(args.edits):
        change(1)
        after.append(search(at))
        next_ones.append(search(at + 1))
    change(args.batch)
    batch = search(0)
    writer.close()
    return {
        "firstSearchAfterEditMs": {
            "p50": round(statistics.median(after), 1),
            "max": round(max(after), 1),
            "all": [round(t, 1) for t in after],
        },
        "secondSearchAfterEditMs": {"p50": round(statistics.median(next_ones), 1)},
        f"firstSearchAfter{args.batch}FileEditMs": round(batch, 1),
        "deadRowsHeld": semantic_held._held[(str(db), "private")].dead_rows,
    }


if __name__ == "__main__":
    main()
