"""Search by meaning (issue 27): quality on the labelled demo set, and cost on a generated vault.

    python bench/semantic.py                    # recall@5 and MRR, keyword / semantic / hybrid
    python bench/semantic.py --records 10000    # + build time, size, query p50/p95, one edit

Quality: every query of tests/data/semantic_eval.json against a copy of the bundled demo
vault (resources/demo-vault); recall@5 is the share of a query's relevant records in its
first five results, averaged over queries; MRR the mean of 1/rank of the first relevant one.

Cost (`--records N`): a copy of the generated vault `bench/vaults/<N>-1/` is scanned and
its text indexed (not counted), then the passages embedded (`Vault.index_meaning`, timed);
the size is the vector table's pages (dbstat); queries are timed warm in this process;
the incremental figure is one edited record's re-embedding. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_desktop.engine.query.grep_query import GrepQuery  # noqa: E402
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


def cost(records: int) -> dict[str, object]:
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
        with Vault.open(copy) as vault:
            started = time.perf_counter()
            vault.reconcile()
            scan = time.perf_counter() - started
            vault.index_keywords()
            started = time.perf_counter()
            settled = vault.index_meaning()
            build = time.perf_counter() - started
            conn = vault.store.reader()
            chunks = conn.execute("SELECT count(*) FROM semantic_chunks_v1").fetchone()[0]
            size = conn.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name IN ('semantic_chunks_v1',"
                " 'semantic_chunks_path', 'semantic_chunks_scope')"
            ).fetchone()[0]
            words = [
                "field notes survey",
                "who leads the project",
                "budget freeze",
                "weekly sync",
                "offline maps",
                "harbour",
                "a meeting about money",
                "new hire onboarding",
            ]
            timings: dict[str, list[float]] = {m: [] for m in MODES}
            for mode in MODES:
                vault.search(GrepQuery(words[0], limit=10), mode)  # load the matrix once
                for _ in range(5):
                    for text in words:
                        started = time.perf_counter()
                        vault.search(GrepQuery(text, limit=10), mode)
                        timings[mode].append((time.perf_counter() - started) * 1000)
            target = next(copy.rglob("*.md"))
            target.write_text(target.read_text("utf-8") + "\nOne more paragraph, edited.\n", "utf-8")
            vault.reconcile()
            vault.index_keywords()
            started = time.perf_counter()
            vault.index_meaning()
            edit = time.perf_counter() - started
    return {
        "records": records,
        "scanSeconds": round(scan, 2),
        "embeddedFiles": settled,
        "chunks": chunks,
        "buildSeconds": round(build, 2),
        "vectorTableMB": round((size or 0) / 1e6, 1),
        "queryMs": {
            m: {
                "p50": round(statistics.median(t), 1),
                "p95": round(statistics.quantiles(t, n=20)[18], 1),
            }
            for m, t in timings.items()
        },
        "oneEditSeconds": round(edit, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, help="also measure cost on a generated vault of N records")
    args = parser.parse_args()
    out: dict[str, object] = {"quality": quality()}
    if args.records:
        out["cost"] = cost(args.records)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
