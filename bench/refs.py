"""Resolving an extension's opaque ref (engine/api/refs.py): by scanning candidate ids (one
HMAC each) against `RefBook`'s index lookup of the refs it issued.

    python bench/refs.py [--ids 100000] [--lookups 2000]

Prints JSON: scanMs (worst case: the last candidate), issueMs (issuing refs for every id in
one transaction), lookupP50Ms / lookupP95Ms (RefBook.lookup of random issued refs).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from knowledge_desktop.engine.api.refs import RefBook, make_ref, resolve
from knowledge_desktop.engine.store.db import Store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ids", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=2000)
    args = parser.parse_args()
    ids = [f"pg_{i:010d}" for i in range(args.ids)]
    key = b"k" * 32
    start = time.perf_counter()
    assert resolve(key, make_ref(key, "entity", ids[-1]), ids) == ids[-1]
    scan_ms = (time.perf_counter() - start) * 1000
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "state.sqlite")
        book = RefBook(store, "bench", key)
        start = time.perf_counter()
        refs = book.issue("entity", ids)
        issue_ms = (time.perf_counter() - start) * 1000
        rng = random.Random(1)
        times = []
        for _ in range(args.lookups):
            i = rng.randrange(len(ids))
            t = time.perf_counter()
            assert book.lookup(refs[i]) == ids[i]
            times.append((time.perf_counter() - t) * 1000)
        store.close()
    times.sort()
    print(
        json.dumps(
            {
                "ids": args.ids,
                "scanMs": round(scan_ms, 1),
                "issueMs": round(issue_ms, 1),
                "lookupP50Ms": round(statistics.median(times), 3),
                "lookupP95Ms": round(times[int(len(times) * 0.95)], 3),
            }
        )
    )


if __name__ == "__main__":
    main()
