"""A common word's grep in process, as the MCP tool runs it, without MCP (issue 28 §3).

    python bench/grep_inproc.py --vault DIR [--calls 30] [--pages OUT.json]

Opens the vault as the extension `bench-agent` of bench/mcp_latency.py (run it once on
the vault first: it installs and grants the extension) with the watcher, as `knowledge
mcp` does, then times `Extension.grep` (what `knowledge_grep` calls) and the unfiltered
`Vault.grep`: each of 30 common words once ("cold": nothing read for the word is kept
yet), then three of them `--calls` times each ("warm"). The code timed is the one on
PYTHONPATH; alternate two codes on a busy machine. `--pages` writes the pages of a few
queries (offsets, modes, a kind filter, lifecycle all, replacements) to compare codes.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

WARM = ["still", "group", "model"]
COLD = [
    "should",
    "review",
    "whether",
    "decide",
    "after",
    "changed",
    "support",
    "pilot",
    "customer",
    "design",
    "launch",
    "simplified",
    "because",
    "quarterly",
    "sales",
    "partner",
    "vendor",
    "gateway",
    "security",
    "release",
    "policy",
    "mobile",
    "board",
    "estimated",
    "replaced",
    "onboarding",
    "prototyped",
    "outdated",
    "engineering",
    "contract",
]


def percentiles(times: list[float]) -> str:
    ordered = sorted(times)
    p50 = ordered[len(ordered) // 2] * 1000
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000
    return f"p50 {p50:.1f} / p95 {p95:.1f} ms ({len(ordered)} calls)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", required=True)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--pages", help="write the pages of a few queries here (JSON)")
    args = parser.parse_args()

    from knowledge_desktop.api.extension import open_extension
    from knowledge_desktop.engine.query.grep_query import GrepQuery

    started = time.perf_counter()
    ext = open_extension(args.vault, "bench-agent", live=True)
    print(f"open {time.perf_counter() - started:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True)
    ext.grep("warm")
    timed: dict[str, list[float]] = {"cold, extension": [], "warm, extension": [], "warm, vault": []}

    def clock(name: str, call: Any, *arguments: Any) -> None:
        at = time.perf_counter()
        call(*arguments)
        timed[name].append(time.perf_counter() - at)

    for word in COLD:
        clock("cold, extension", ext.grep, word)
    for word in WARM:
        for _ in range(args.calls):
            clock("warm, extension", ext.grep, word)
        for _ in range(args.calls):
            clock("warm, vault", ext.vault.grep, GrepQuery(word), "private")
    for name, times in timed.items():
        print(f"{name}: {percentiles(times)}")
    print(f"load {os.getloadavg()[0]:.1f}")
    if args.pages:
        queries = [
            GrepQuery("still"),
            GrepQuery("still", offset=480, limit=50),
            GrepQuery("group model", mode="any", limit=50),
            GrepQuery("review the", mode="phrase", limit=50),
            GrepQuery("design", kind="claim", limit=50, offset=100),
            GrepQuery("replaced", limit=50, offset=500),
            GrepQuery("security", lifecycle="all", limit=50),
        ]
        pages = []
        for q in queries:
            found = ext.vault.grep(q, "private", replaced=True)
            hits = [(h["id"], h["score"], (h.get("via") or {}).get("id")) for h in found["hits"]]
            pages.append({"total": found["total"], "hits": hits})
        seen = [[repr(h) for h in ext.grep(w).hits] for w in WARM + COLD[:5]]
        with open(args.pages, "w", encoding="utf-8") as out:
            json.dump({"pages": pages, "extension": seen}, out)
    ext.close()


if __name__ == "__main__":
    main()
