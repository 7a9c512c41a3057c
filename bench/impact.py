"""Impact benchmark: withdrawing a page with 1,000 dependents (issue 14 target: its impact in
≤ 200 ms).

    python bench/impact.py --vault bench/vaults/1000-1 [--dependents 1000] [--runs 7]

Engine only, on a copy of the vault. A hub page is added with `--dependents`
records depending on it: half name it in `entities`, the other half depend on
one of those (`dependencies`), so the walk goes two levels deep. After a scan,
in this process:

- *impact*: `query.impact.impact(conn, [hub])` alone, the walk a receipt lists
  (first run cold, then the median of the rest);
- *plan*: the whole withdraw planner (fence read from disk, guard-aware
  lifecycle, the revised file) plus the impact, as the publish path runs them
  before journaling;
- *withdraw*: the whole publish of the withdrawal, receipt included (one run).

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from knowledge_desktop.engine.query.impact import impact
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.lifecycle import withdraw
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Fence
from knowledge_desktop.engine.write.requests import make_request

HEAD = (
    "---\nformat: knowledge-record-v1\nid: {id}\nrevision: 1\nkind: {kind}\ntitle: {title}\n"
    "recorded_at: 2026-09-28T18:30:00.000Z\nupdated_at: 2026-09-28T18:30:00.000Z\n"
    "scope: private\nlifecycle: active\n"
)
CLAIM = (
    "claim_kind: fact\nassertion_origin: source\nattribution: bench\n"
    "evidence:\n  - url: https://example.org/bench\n"
)


def add_hub(root: Path, dependents: int) -> None:
    folder = root / "private" / "bench-impact"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "private/people/bench-hub.md").write_text(
        HEAD.format(id="pg_bench_hub", kind="page", title="Bench Hub") + "type: person\n---\nThe hub.\n"
    )
    direct = dependents // 2
    for n in range(dependents):
        head = HEAD.format(id=f"cl_bench_{n}", kind="claim", title=f"Bench claim {n}") + CLAIM
        link = "entities: [pg_bench_hub]\n" if n < direct else f"dependencies: [cl_bench_{n - direct}]\n"
        (folder / f"c{n}.md").write_text(f"{head}{link}---\nClaim {n}.\n")


def fence_of(vault: Vault, record_id: str) -> Fence:
    (row,) = vault.find(record_id)
    sha = hashlib.sha256((vault.root / row["path"]).read_bytes()).hexdigest()
    return Fence(record_id, row["revision"], sha)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--dependents", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".knowledge"))
        add_hub(root, args.dependents)
        with Vault.open(root) as vault:
            started = time.perf_counter()
            vault.reconcile()
            scan_s = time.perf_counter() - started
            vault.warm_up()
            conn = vault.store.reader()
            walks: list[float] = []
            found = 0
            for _ in range(args.runs):
                started = time.perf_counter()
                found = len(impact(conn, ["pg_bench_hub"]))
                walks.append((time.perf_counter() - started) * 1000)
            plans: list[float] = []
            for n in range(args.runs):
                request = make_request("withdraw", {"n": n})
                ctx = WriteContext(
                    vault.root, vault.store, vault.reconciler, vault.reconcile, request, vault.vault_id, "now"
                )
                started = time.perf_counter()
                plan = plan_withdraw(ctx, fence_of(vault, "pg_bench_hub"), "bench")
                impact(conn, plan.impact_of)
                plans.append((time.perf_counter() - started) * 1000)
            fence = fence_of(vault, "pg_bench_hub")
            started = time.perf_counter()
            receipt = withdraw(vault.write, f"{fence.record_id}:{fence.revision}:{fence.sha256}", "bench")
            publish_ms = (time.perf_counter() - started) * 1000
    print(
        json.dumps(
            {
                "vault": str(args.vault),
                "dependents": args.dependents,
                "found": found,
                "receiptImpact": len(receipt["impact"]["items"]),
                "scanSeconds": round(scan_s, 1),
                "impactMs": {"cold": round(walks[0], 1), "median": round(statistics.median(walks[1:]), 1)},
                "planMs": {"cold": round(plans[0], 1), "median": round(statistics.median(plans[1:]), 1)},
                "withdrawMs": round(publish_ms, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
