"""Publish benchmark: one write through the publish path until the projections show it.

    python bench/publish.py --vault bench/vaults/1000-1 [--writes 40]
    python bench/publish.py --vault /tmp/copy-of-100000-1 --in-place   # an indexed vault, no copy

Engine only, in this process, on a copy of the vault unless `--in-place`. The
vault is opened, reconciled and its graph loaded first (as the window does
after opening). Then, for each write, the fence is read (`show`, not timed) and
the write is timed from the call to its receipt — the receipt comes after the
written file was reconciled, so at that moment every projection (catalog,
links, dates, diagnostics, the search queue) shows it:

- *edit-body*: a random page's body replaced (`Vault.edit_body`);
- *save*: a random page saved whole with one frontmatter key changed;
- *new*: a new page created (`Vault.new_record`).

Each figure is split by the publish path's steps (`write.publish.STEP`): plan
and checks until the intent is journaled, the file replacement, the
reconcile, and the publication (guards, provenance, receipt). Prints one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from percentile import pct  # bench/percentile.py, beside this script

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import publish


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": pct(values, 0.5),
        "p95": pct(values, 0.95),
        "max": pct(values, 1),
        "mean": round(statistics.fmean(values), 1),
    }


class Steps:
    """Times between the publish path's steps for the write running now."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def __call__(self, name: str) -> None:
        self.marks.append((name.split(":", maxsplit=1)[0], time.perf_counter()))


def timed(action: Callable[[], dict[str, Any]], steps: Steps) -> tuple[float, dict[str, float]]:
    steps.marks.clear()
    started = time.perf_counter()
    action()
    total = (time.perf_counter() - started) * 1000
    split: dict[str, float] = {}
    last = started
    for name, at in steps.marks:
        label = {
            "journaled": "plan+journal",
            "replaced": "replace",
            "reconciled": "reconcile",
            "published": "publish",
        }.get(name, name)
        split[label] = split.get(label, 0.0) + (at - last) * 1000
        last = at
    return total, split


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--writes", type=int, default=40, help="writes of each kind")
    parser.add_argument("--in-place", action="store_true", help="write into --vault itself (no copy)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scratch = None
    root = args.vault
    if not args.in_place:
        scratch = Path(tempfile.mkdtemp(prefix="kd-publish-"))
        root = scratch / "vault"
        shutil.copytree(args.vault, root, symlinks=True)
    steps = Steps()
    publish.STEP = steps
    out: dict[str, Any] = {"vault": str(args.vault), "writes": args.writes}
    try:
        started = time.perf_counter()
        vault = Vault.open(root)
        change = vault.reconcile()
        vault.warm_up()
        out["openSeconds"] = round(time.perf_counter() - started, 1)
        out["records"] = vault.counts()["records"]
        out["readOnOpen"] = change.read
        pages = [
            (pid, path)
            for pid, path in vault.store.reader().execute(
                "SELECT id, path FROM catalog WHERE kind='page' AND valid=1 AND duplicate=0"
                " AND lifecycle='active' AND type='note'"
            )
        ]
        figures: dict[str, list[float]] = {"edit-body": [], "save": [], "new": []}
        splits: dict[str, list[dict[str, float]]] = {k: [] for k in figures}
        for n in range(args.writes):
            pid, _path = rng.choice(pages)
            shown = vault.show(pid)
            fence = f"{pid}:{shown['revision']}:{shown['hash']}"
            total, split = timed(lambda f=fence, n=n: vault.edit_body(f, f"Edited body {n}.\n"), steps)
            figures["edit-body"].append(total)
            splits["edit-body"].append(split)

            pid, path = rng.choice(pages)
            shown = vault.show(pid)
            fence = f"{pid}:{shown['revision']}:{shown['hash']}"
            text = (root / path).read_text("utf-8")
            if "\nx_bench: " in text:
                text = re.sub(r"\nx_bench: \d+\n", f"\nx_bench: {n}\n", text, count=1)
            else:
                text = text.replace("\n---\n", f"\nx_bench: {n}\n---\n", 1)
            total, split = timed(lambda f=fence, t=text: vault.save_page(f, t), steps)
            figures["save"].append(total)
            splits["save"].append(split)

            record = (
                f"---\nkind: page\ntitle: Bench note {n} {rng.random():.6f}\ntype: note\n---\nA new note.\n"
            )
            total, split = timed(lambda r=record: vault.new_record(r), steps)
            figures["new"].append(total)
            splits["new"].append(split)
        out["ms"] = {k: summary(v) for k, v in figures.items()}
        out["meanStepMs"] = {
            k: {step: round(statistics.fmean(s.get(step, 0.0) for s in v), 1) for step in v[0]}
            for k, v in splits.items()
        }
        vault.close()
    finally:
        publish.STEP = None
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
