"""The query stage of search by meaning alone, at a size too big to embed here (issue 27).

    python bench/semantic_stage.py --records 100000 --passages 13

Builds a scratch database (in a temporary folder) with the projection's two vector
tables filled with random unit vectors, `--passages` per file, then times
`hybrid.neighbours` (first stage over one vector a file, second over the candidates'
passages, as held in memory, then the closest few read and scored exactly) for 40
random query vectors. The filters are left out (every file passes) and
the passage row is not looked up: this is the vector work and the SQLite reads of the
vectors, not a whole search. Prints one JSON object.
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
from knowledge_desktop.engine.store.schema import PROJECTIONS_SQL  # noqa: E402

DIM = 256


def build(db: Path, records: int, passages: int) -> None:
    rng = np.random.default_rng(27)
    pool = rng.standard_normal((20_000, DIM)).astype(np.float32)
    pool = (pool / np.linalg.norm(pool, axis=1, keepdims=True)).astype(np.float16)
    conn = sqlite3.connect(db)
    conn.executescript(PROJECTIONS_SQL)
    conn.execute("INSERT INTO semantic_state_v1(scope, generation, model) VALUES ('', 0, 'synthetic:256')")
    conn.execute("INSERT INTO semantic_state_v1(scope, generation) VALUES ('private', 1)")
    rows = []
    for n in range(records):
        picked = pool[rng.integers(0, len(pool), passages)]
        mean = picked.astype(np.float32).mean(axis=0)
        mean /= np.linalg.norm(mean)
        rows.append((f"private/r{n:07}.md", "private", mean.astype(np.float16).tobytes(), picked.tobytes()))
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
    args = parser.parse_args()
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
        conn.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
