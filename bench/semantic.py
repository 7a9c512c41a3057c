"""Search by meaning (issue 27): quality on the labelled demo set, and cost on a generated vault.

    python bench/semantic.py                    # recall@5 and MRR, keyword / semantic / hybrid
    python bench/semantic.py --records 10000    # + build time, size, query p50/p95, one edit

Quality: every query of tests/data/semantic_eval.json against a copy of the bundled demo
vault (resources/demo-vault); recall@5 is the share of a query's relevant records in its
first five results, averaged over queries; MRR the mean of 1/rank of the first relevant one.

Cost (`--records N`): a copy of the generated vault `bench/vaults/<N>-1/` is scanned and
its text indexed (not counted), then the passages embedded (`Vault.index_meaning`, timed);
the size is the vector table's pages (dbstat); queries are timed warm in this process;
the incremental figure is one edited record's re-embedding, then the search after it
(which reads again what it holds in memory of the changed files). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_desktop.engine.query import hybrid, semantic_held  # noqa: E402
from knowledge_desktop.engine.query.grep_query import GrepQuery, filter_parts  # noqa: E402
from knowledge_desktop.engine.query.inventory import now_text  # noqa: E402
from knowledge_desktop.engine.store.projections import keyword  # noqa: E402
from knowledge_desktop.engine.vault import Vault  # noqa: E402
from knowledge_desktop.resources import demo_vault_path  # noqa: E402

EVAL = ROOT / "tests" / "data" / "semantic_eval.json"
MODES = ("keyword", "semantic", "hybrid")


def evaluate(vault: Vault, labelled: dict[str, object], k: int = 5) -> dict[str, dict[str, float]]:
    """recall@k and MRR of each mode over the labelled queries."""
    out: dict[str, dict[str, float]] = {}
    queries = labelled["queries"]
    assert isinstance(queries, list)
    for mode in MODES:
        recalls: list[float] = []
        ranks: list[float] = []
        for item in queries:
            relevant = set(item["relevant"])
            found = vault.search(GrepQuery(item["query"], limit=20, at=str(labelled["at"])), mode)
            ids = [r["id"] for r in found["results"]]
            recalls.append(len(relevant & set(ids[:k])) / len(relevant))
            first = next((i for i, rid in enumerate(ids, 1) if rid in relevant), None)
            ranks.append(1.0 / first if first else 0.0)
        out[mode] = {
            f"recall@{k}": round(statistics.fmean(recalls), 3),
            "mrr": round(statistics.fmean(ranks), 3),
        }
    return out


def quality() -> dict[str, dict[str, float]]:
    labelled = json.loads(EVAL.read_text("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "demo"
        shutil.copytree(demo_vault_path(), copy, ignore=shutil.ignore_patterns(".knowledge"))
        with Vault.open(copy) as vault:
            vault.reconcile()
            return evaluate(vault, labelled)


def cost(
    records: int, vault_dir: Path | None, recall_queries: int, synthesise: bool = False
) -> dict[str, object]:
    """Build, size, latency, recall against the exact scan, one edit; on a copy of
    `bench/vaults/<records>-1`, or on `vault_dir` in place (its state kept, so a second
    run measures the queries without embedding again)."""
    if vault_dir is not None:
        return _cost(vault_dir, recall_queries, synthesise)
    source = ROOT / "bench" / "vaults" / f"{records}-1"
    if not source.is_dir():
        import subprocess

        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "generate_vault.py"),
                str(source),
                "--records",
                str(records),
            ],
            check=True,
        )
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "vault"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".knowledge"))
        return _cost(copy, recall_queries)


WORDS = [
    "field notes survey",
    "who leads the project",
    "budget freeze",
    "weekly sync",
    "offline maps",
    "harbour",
    "a meeting about money",
    "new hire onboarding",
]


def _cost(copy: Path, recall_queries: int, synthesise: bool = False) -> dict[str, object]:
    with Vault.open(copy) as vault:
        started = time.perf_counter()
        vault.reconcile()
        scan = time.perf_counter() - started
        vault.index_keywords()
        started = time.perf_counter()
        settled = synthesised(vault) if synthesise else vault.index_meaning()
        build = time.perf_counter() - started
        conn = vault.store.reader()
        chunks = conn.execute("SELECT count(*) FROM semantic_chunks_v1").fetchone()[0]
        files = conn.execute("SELECT count(*) FROM semantic_records_v1").fetchone()[0]
        size = conn.execute(
            "SELECT sum(pgsize) FROM dbstat"
            " WHERE name LIKE 'semantic_chunks%' OR name LIKE 'semantic_records%'"
        ).fetchone()[0]
        timings: dict[str, list[float]] = {m: [] for m in MODES}
        for mode in MODES:
            vault.search(GrepQuery(WORDS[0], limit=10), mode)  # load the first stage once
            for _ in range(5):
                for text in WORDS:
                    started = time.perf_counter()
                    vault.search(GrepQuery(text, limit=10), mode)
                    timings[mode].append((time.perf_counter() - started) * 1000)
        held = semantic_held.held_bytes(str(vault.store.path))
        overlap = None if synthesise else recall(vault, recall_queries)
        target = sorted(copy.rglob("*.md"))[0]
        before = target.read_text("utf-8")
        target.write_text(before + "\nOne more paragraph, edited.\n", "utf-8")
        try:
            vault.reconcile()
            vault.index_keywords()
            started = time.perf_counter()
            vault.index_meaning()
            edit = time.perf_counter() - started
            started = time.perf_counter()
            vault.search(GrepQuery(WORDS[0], limit=10), "semantic")
            after_edit = time.perf_counter() - started
        finally:
            target.write_text(before, "utf-8")
        vault.reconcile()
        vault.index_keywords()
        vault.index_meaning()
    return {
        "records": files,
        "scanSeconds": round(scan, 2),
        "embeddedFiles": settled,
        "chunks": chunks,
        "buildSeconds": round(build, 2),
        "vectorTablesMB": round((size or 0) / 1e6, 1),
        "heldInMemoryMB": round(held / 1e6, 1),
        "queryMs": {
            m: {
                "p50": round(statistics.median(t), 1),
                "p95": round(statistics.quantiles(t, n=20)[18], 1),
            }
            for m, t in timings.items()
        },
        "overlapAt10": overlap,
        "oneEditSeconds": round(edit, 3),
        "firstSearchAfterEditMs": round(after_edit * 1000, 1),
    }


def synthesised(vault: Vault) -> int:
    """Random unit vectors in the real tables instead of the model's, one per passage as
    the projection cuts them (to time the query stage of a vault too big to embed here);
    how many files. Leaves the tables alone when they already hold vectors."""
    import numpy as np

    from knowledge_desktop.engine.semantic.chunks import chunk_lines
    from knowledge_desktop.engine.semantic.model import embedder
    from knowledge_desktop.engine.store.projections import semantic as projection
    from knowledge_desktop.engine.store.schema import keyword_tables

    if vault.store.reader().execute("SELECT count(*) FROM semantic_records_v1").fetchone()[0]:
        return 0
    model = embedder()
    rng = np.random.default_rng(27)
    files = 0
    with vault.store.write(bulk=True) as tx:
        projection.adopt_model(tx, model)
        for scope in vault.scopes():
            fts, rows = keyword_tables(scope)[:2]
            found = tx.execute(
                f"SELECT r.path, r.sha256, r.body_line, f.body FROM {rows} r"
                f" JOIN {fts} f ON f.rowid = r.rowid"
            )
            for path, sha, body_line, body in found:
                parts = chunk_lines(str(body or "")) or [("", 0, 0)]
                vectors = rng.standard_normal((len(parts), model.dim)).astype(np.float32)
                vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float16)
                mean = vectors.astype(np.float32).mean(axis=0)
                tx.executemany(
                    "INSERT INTO semantic_chunks_v1(scope, path, sha256, chunk, line_start, line_end, text)"
                    " VALUES (?,?,?,?,?,?,?)",
                    [
                        (scope, path, sha, n, (body_line or 1) + a, (body_line or 1) + b, text[:240])
                        for n, (text, a, b) in enumerate(parts)
                    ],
                )
                tx.execute(
                    "INSERT INTO semantic_records_v1(path, scope, vector, passages) VALUES (?,?,?,?)",
                    (
                        path,
                        scope,
                        (mean / np.linalg.norm(mean)).astype(np.float16).tobytes(),
                        vectors.tobytes(),
                    ),
                )
                files += 1
            tx.execute("DELETE FROM semantic_pending_v1 WHERE scope=?", (scope,))
            projection._stamp(tx, scope)
    return files


def recall(vault: Vault, count: int, k: int = 10) -> dict[str, object]:
    """overlap@k of the two-stage neighbours with the exact scan of every passage, over
    the labelled queries and `count` random ones (four words of random passages), for
    several numbers of candidates, with the time of the neighbours call alone."""
    import random

    import numpy as np

    from knowledge_desktop.engine.semantic.model import embedder

    conn = vault.store.reader()
    db = str(vault.store.path)
    rng = random.Random(27)
    top = conn.execute("SELECT max(rowid) FROM semantic_chunks_v1").fetchone()[0] or 0
    texts = [str(q["query"]) for q in json.loads(EVAL.read_text("utf-8"))["queries"]]
    while len(texts) < 20 + count and top:
        row = conn.execute(
            "SELECT text FROM semantic_chunks_v1 WHERE rowid=?", (rng.randint(1, top),)
        ).fetchone()
        words = [w for w in (row[0].split() if row else []) if w.isalpha() and len(w) > 3]
        if len(words) >= 4:
            texts.append(" ".join(rng.sample(words, 4)))
    vectors = embedder().embed(texts)
    scopes = list(vault.scopes())
    exact: list[dict[str, float]] = [{} for _ in texts]
    for scope in scopes:  # one streaming pass over every passage for all the queries
        cursor = conn.execute("SELECT path, passages FROM semantic_records_v1 WHERE scope=?", (scope,))
        while files := cursor.fetchmany(5_000):
            matrix = np.frombuffer(b"".join(v for _p, v in files), dtype=np.float16).reshape(
                -1, vectors.shape[1]
            )
            paths = [p for p, v in files for _ in range(len(v) // (2 * vectors.shape[1]))]
            starts = [j for j in range(len(paths)) if j == 0 or paths[j] != paths[j - 1]]
            best = np.maximum.reduceat(matrix.astype(np.float32) @ vectors.T, starts, axis=0)
            for i in range(len(texts)):
                column = best[:, i].tolist()
                for at, score in zip(starts, column, strict=True):
                    if score > exact[i].get(paths[at], -2.0):
                        exact[i][paths[at]] = score
    out: dict[str, object] = {"queries": len(texts), "labelled": 20}
    for candidates in sorted({100, hybrid.CANDIDATES, 1000, 3000}):
        shares: list[float] = []
        close: list[float] = []
        took: list[float] = []
        for i, text in enumerate(texts):
            q = GrepQuery(text)
            ranked = sorted(exact[i].items(), key=lambda item: (-item[1], item[0]))[: k * 20]
            allowed = set().union(*(_passing(conn, s, [p for p, _ in ranked], q) for s in scopes))
            truth = [(p, score) for p, score in ranked if p in allowed][:k]
            started = time.perf_counter()
            near = [
                n
                for s in scopes
                for n in hybrid.neighbours(conn, db, s, vectors[i], q, k, candidates=candidates)
            ]
            took.append((time.perf_counter() - started) * 1000)
            found = sorted(near, key=lambda n: (-n.score, n.path))[:k]
            shares.append(len({n.path for n in found} & {p for p, _ in truth}) / max(1, len(truth)))
            # a neighbour scoring within 0.01 of the exact k-th is as good as a tie
            last = truth[-1][1] if truth else 0.0
            close.append(sum(1 for n in found if n.score >= last - 0.01) / max(1, len(truth)))
        out[str(candidates)] = {
            "overlapLabelled": round(statistics.fmean(shares[:20]), 3),
            "overlapRandom": round(statistics.fmean(shares[20:]), 3) if shares[20:] else None,
            "overlapRandomMin": round(min(shares[20:]), 2) if shares[20:] else None,
            "withinHundredthAll": round(statistics.fmean(close), 3),
            "neighboursMsP50": round(statistics.median(took), 1),
        }
    return out


def _passing(conn: sqlite3.Connection, scope: str, paths: list[str], q: GrepQuery) -> set[str]:
    """Which of `paths` grep's filters keep, asked of the rows table row by row: the
    reference the search's own mask (`semantic_filter`) is measured against."""
    rows = keyword.tables(scope)[1]
    parts = filter_parts(q, "r", q.at or now_text(), current=True, tags=keyword.tags_table(scope))
    where = " AND ".join(p.sql for p in parts)
    values = [v for p in parts for v in p.values]
    kept: set[str] = set()
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ",".join("?" * len(chunk))
        kept.update(
            p
            for (p,) in conn.execute(
                f"SELECT r.path FROM {rows} r WHERE r.path IN ({marks}) AND {where}", [*chunk, *values]
            )
        )
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, help="also measure cost on a generated vault of N records")
    parser.add_argument(
        "--vault",
        type=Path,
        help="measure cost on this generated vault in place (kept embedded between runs)",
    )
    parser.add_argument(
        "--recall-queries", type=int, default=50, help="random queries for overlap@10 (default 50)"
    )
    parser.add_argument(
        "--synthesise",
        action="store_true",
        help="random unit vectors instead of embedding (query cost only; no recall)",
    )
    args = parser.parse_args()
    out: dict[str, object] = {"quality": quality()}
    if args.records or args.vault:
        out["cost"] = cost(
            args.records or 0, args.vault, 0 if args.synthesise else args.recall_queries, args.synthesise
        )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
