"""Window benchmark: catalog on open, and search results after the last keystroke.

    python bench/ui.py --vault bench/vaults/100000-1 [--queries 40]

Runs the real window offscreen in this process on an already indexed vault
(open it once with `knowledge scan` first). It reports:

- *catalog shown*: seconds from `open_vault` to the catalog pane showing its
  tree (partitions with counts, first branch expanded);
- *search*: each query is typed into the search box one character every
  60 ms (a fast typist); the time from the last keystroke to the result list
  showing that query's hits, debounce included. Queries are drawn from words
  of the vault's titles (common and rare) in one to three words.

Prints one JSON object. The event-loop heartbeat's worst stall is included.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from percentile import pct  # bench/percentile.py, beside this script

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "max": pct(values, 1), "n": len(values)}


def pick_queries(vault: Any, count: int, rng: random.Random) -> list[str]:
    rows = vault.store.reader().execute("SELECT title FROM catalog WHERE title IS NOT NULL LIMIT 20000")
    words: Counter[str] = Counter()
    for (title,) in rows:
        words.update(w.lower() for w in re.findall(r"[A-Za-z]{4,}", title))
    ranked = [w for w, _ in words.most_common()]
    common, rare = ranked[:40], ranked[len(ranked) // 2 :] or ranked
    queries = []
    for n in range(count):
        pool = common if n % 2 == 0 else rare
        size = 1 + n % 3
        queries.append(" ".join(rng.choice(pool) for _ in range(size)))
    return queries


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from heartbeat import Heartbeat  # bench/heartbeat.py, beside this script
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"kd-ui-bench-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, watch=False)
    window.resize(1400, 900)
    window.show()
    heartbeat = Heartbeat()

    def pump_until(condition: Any, timeout: float) -> bool:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            app.processEvents()
            if condition():
                return True
            time.sleep(0.0005)
        return False

    marks: dict[str, float] = {}
    catalog = window.catalog
    show_tree = catalog._show_tree

    def timed_tree(*a: Any, **k: Any) -> None:
        show_tree(*a, **k)
        marks.setdefault("tree", time.perf_counter())

    catalog._show_tree = timed_tree  # type: ignore[method-assign]
    search = window.search
    show_hits = search._show_hits
    shown: dict[str, float] = {}

    def timed_hits(query: Any, result: Any) -> None:
        show_hits(query, result)
        shown[query.query] = time.perf_counter()

    search._show_hits = timed_hits  # type: ignore[method-assign]

    heartbeat.start()
    started = time.perf_counter()
    window.open_vault(args.vault.resolve())
    if not pump_until(lambda: "tree" in marks, 600):
        print(json.dumps({"error": "catalog never showed"}))
        os._exit(1)
    result: dict[str, Any] = {
        "vault": str(args.vault),
        "catalogShownSeconds": round(marks["tree"] - started, 3),
    }
    pump_until(lambda: window.runner.running == 0, 600)
    result["settledSeconds"] = round(time.perf_counter() - started, 3)
    result["openWorstStallMs"] = round(heartbeat.worst_ms, 1)
    assert window.vault is not None
    window.vault.index_keywords()  # the window does this after open; make sure it is done

    rng = random.Random(args.seed)
    latencies: list[float] = []
    window.focus_pane("Search")
    heartbeat.reset()
    for query in pick_queries(window.vault, args.queries, rng):
        search.field.clear()
        pump_until(lambda: window.runner.running == 0, 30)
        shown.clear()
        last = 0.0
        for n in range(1, len(query) + 1):
            if n > 1:
                pump_until(lambda: False, 0.06)
            QTest.keyClicks(search.field, query[n - 1])  # as typed: textEdited, debounce
            last = time.perf_counter()
        if pump_until(lambda q=query: q in shown, 30):
            latencies.append((shown[query] - last) * 1000)
    result["searchAfterLastKeystrokeMs"] = summary(latencies)
    result["searchWorstStallMs"] = round(heartbeat.worst_ms, 1)
    print(json.dumps(result, indent=2), flush=True)
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
