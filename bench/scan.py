"""Scan benchmark: cold full scan and warm reopen of generated vaults.

    python bench/scan.py --sizes 1000 10000 [--seed 1] [--warm-runs 3] [--keep DIR] [--json]
    python bench/scan.py --notes --sizes 6500 10000 100000   # Obsidian-style notes instead
    python bench/scan.py --sizes 10000 --index-text   # the cold figure with the search text

With `--notes` the vaults are plain Obsidian-style notes (`bench/notes_vault.py`:
wikilinks by name, embeds, tags, daily notes, root notes, duplicate names),
cached under `notes-<n>-<seed>/`, and "records/s" counts notes.

For each size it generates a vault with `bench/generate_vault.py` (or reuses
the one cached under `bench/vaults/<n>-<seed>/`, which is git-ignored),
deletes its `.knowledge/` folder, and then measures, each time in a fresh
Python process so imports and in-process caches are cold:

* cold scan: `Vault.open` + `reconcile()` on the vault without state;
* with `--index-text`, the cold figure includes `Vault.index_keywords()`
  after the reconcile: the search text a first search would otherwise index
  (a bulk reconcile indexes it itself, issue 26, and this then finds nothing);
* warm reopen: `Vault.open` + `reconcile()` on the unchanged vault, repeated
  (`--warm-runs`, default 3); the median is reported, and every run must
  parse nothing (`ChangeSet.parsed == 0`).

Times are taken inside the child around the engine calls (interpreter start
and imports are reported separately). The OS page cache is not dropped: the
files were just written or read, so "cold" means cold in Python terms.

`--json` writes the results as JSON to stdout (the table then goes to
stderr). `--keep DIR` keeps the generated vaults in DIR instead of
`bench/vaults/`; the state left by the last warm run stays in each vault's
`.knowledge/` for inspection, and is deleted again by the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import generate_vault  # noqa: E402

DEFAULT_VAULTS = BENCH / "vaults"

# Run with `python -c`, so the engine's forkserver workers do not re-import a
# main module. Prints one JSON object.
CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.store.schema import PROJECTION_VERSION
t1 = time.perf_counter()
path, want_counts, want_text = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
t2 = time.perf_counter()
vault = Vault.open(path)
t3 = time.perf_counter()
change = vault.reconcile()
if want_text:  # what a first search would index (nothing when the scan did it)
    tt = time.perf_counter()
    vault.index_keywords()
    text_s = time.perf_counter() - tt
else:
    text_s = None
t4 = time.perf_counter()
counts = vault.counts() if want_counts else None
rebuilt = vault.store.rebuilt
vault.close()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "textS": text_s,
    "importS": t1 - t0,
    "openS": t3 - t2,
    "reconcileS": t4 - t3,
    "openReconcileS": t4 - t2,
    "change": {"statChecked": change.stat_checked, "read": change.read,
               "parsed": change.parsed, "added": len(change.added),
               "changed": len(change.changed), "removed": len(change.removed),
               "elapsedMs": change.elapsed_ms},
    "counts": counts,
    "projectionVersion": PROJECTION_VERSION,
    "projectionsRebuilt": rebuilt,
    "maxRssMiB": usage.ru_maxrss / 1024,
    "cpuS": usage.ru_utime + usage.ru_stime,
}))
"""


def machine() -> dict[str, Any]:
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(usable)
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError):
        pass
    return {
        "nproc": int(nproc) if nproc.isdigit() else nproc,
        "cpuCount": os.cpu_count(),
        "cpuModel": model or platform.processor() or "unknown",
        "memGiB": mem,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
    }


def ensure_vault(folder: Path, n: int, seed: int, regenerate: bool, notes: bool = False) -> dict[str, Any]:
    """Reuse a cached vault made by this generator version, else generate it."""
    if notes:
        import notes_vault

        if (folder / generate_vault.MARKER).exists() and not regenerate:
            return {"generated": False, "seconds": None, "bytes": None}
        summary = notes_vault.generate_notes(folder, n, seed, force=True)
        return {"generated": True, "seconds": summary["seconds"], "bytes": summary.get("bytes")}
    marker = generate_vault.read_marker(folder)
    if (
        not regenerate
        and marker is not None
        and marker.get("generator") == generate_vault.GENERATOR_VERSION
        and marker.get("records") == n
        and marker.get("seed") == seed
    ):
        return {"generated": False, "seconds": None, "bytes": marker.get("bytes")}
    if folder.exists():
        if marker is None and any(folder.iterdir()):
            raise SystemExit(f"scan: {folder} exists and was not made by the generator")
        shutil.rmtree(folder)
    summary = generate_vault.generate(folder, n, seed)
    return {"generated": True, "seconds": summary["seconds"], "bytes": summary["bytes"]}


def run_child(python: str, vault: Path, counts: bool, text: bool = False) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    started = time.perf_counter()
    proc = subprocess.run(
        [python, "-c", CHILD, str(vault), "1" if counts else "0", "1" if text else "0"],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"scan: the child process failed ({proc.returncode}) on {vault}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["processWallS"] = wall
    if proc.stderr.strip():
        result["stderr"] = proc.stderr.strip()[-2000:]
    return result


def bench_size(
    n: int,
    seed: int,
    vaults: Path,
    warm_runs: int,
    python: str,
    regenerate: bool,
    log: Any,
    notes: bool = False,
    text: bool = False,
) -> dict[str, Any]:
    folder = vaults / (f"notes-{n}-{seed}" if notes else f"{n}-{seed}")
    log(f"[{n}] vault {folder}")
    gen = ensure_vault(folder, n, seed, regenerate, notes)
    if gen["generated"]:
        log(f"[{n}] generated in {gen['seconds']:.2f} s")
    state = folder / ".knowledge"
    if state.exists():
        shutil.rmtree(state)
    log(f"[{n}] cold scan …")
    cold = run_child(python, folder, counts=True, text=text)
    warm: list[dict[str, Any]] = []
    for i in range(warm_runs):
        log(f"[{n}] warm reopen {i + 1}/{warm_runs} …")
        warm.append(run_child(python, folder, counts=False))
    cold_s = cold["openReconcileS"]
    warm_times = [w["openReconcileS"] for w in warm]
    warm_parsed = [w["change"]["parsed"] for w in warm]
    return {
        "records": n,
        "seed": seed,
        "vault": str(folder),
        "vaultBytes": gen["bytes"],
        "generated": gen["generated"],
        "generateS": gen["seconds"],
        "cold": {
            "openS": cold["openS"],
            "reconcileS": cold["reconcileS"],
            "openReconcileS": cold_s,
            "textS": cold["textS"],
            "recordsPerS": n / cold_s if cold_s else None,
            "importS": cold["importS"],
            "processWallS": cold["processWallS"],
            # Main process only: the engine's forkserver workers are not our children.
            "maxRssMiB": cold["maxRssMiB"],
            "mainCpuS": cold["cpuS"],
            "change": cold["change"],
            "counts": cold["counts"],
            "projectionVersion": cold["projectionVersion"],
            "stderr": cold.get("stderr"),
        },
        "warm": {
            "runs": warm_runs,
            "openReconcileS": warm_times,
            "medianS": statistics.median(warm_times) if warm_times else None,
            "openS": [w["openS"] for w in warm],
            "reconcileS": [w["reconcileS"] for w in warm],
            "parsed": warm_parsed,
            "parsedAllZero": all(p == 0 for p in warm_parsed),
            "read": [w["change"]["read"] for w in warm],
            "statChecked": [w["change"]["statChecked"] for w in warm],
            "maxRssMiB": max((w["maxRssMiB"] for w in warm), default=None),
            # True when the store dropped its projections on open (the engine's code
            # fingerprint changed since the cold scan, e.g. someone edited the engine).
            "projectionsRebuilt": [w["projectionsRebuilt"] for w in warm],
            "projectionVersions": sorted({w["projectionVersion"] for w in warm}),
            "stderr": [w["stderr"] for w in warm if w.get("stderr")] or None,
        },
    }


def table(results: list[dict[str, Any]]) -> str:
    head = [
        "records",
        "cold open+reconcile(+text) s",
        "records/s",
        "warm median s",
        "warm parsed",
        "warm read",
        "cold RSS MiB",
        "valid/invalid/unrec.",
        "notes",
        "diag err/warn",
    ]
    rows = [head]
    for r in results:
        c, w = r["cold"], r["warm"]
        counts = c["counts"] or {}
        diags = counts.get("diagnostics", {})
        rows.append(
            [
                f"{r['records']:,}",
                f"{c['openReconcileS']:.2f} (open {c['openS']:.2f}"
                + (f", text {c['textS']:.2f}" if c["textS"] is not None else "")
                + f", main CPU {c['mainCpuS']:.1f})",
                f"{c['recordsPerS']:,.0f}",
                f"{w['medianS']:.3f}" if w["medianS"] is not None else "-",
                ",".join(str(p) for p in w["parsed"]) + (" ok" if w["parsedAllZero"] else " !"),
                ",".join(str(p) for p in w["read"]),
                f"{c['maxRssMiB']:.0f}",
                f"{counts.get('valid', '?')}/{counts.get('invalid', '?')}/{counts.get('unrecognized', '?')}",
                f"{counts.get('notes', 0):,}",
                f"{diags.get('error', '?')}/{diags.get('warning', '?')}",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.rjust(widths[i]) for i, cell in enumerate(row)) for row in rows]
    lines.insert(1, "  ".join("-" * wd for wd in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument(
        "--keep",
        metavar="DIR",
        type=Path,
        default=None,
        help="keep generated vaults in DIR (default: bench/vaults/)",
    )
    parser.add_argument(
        "--regenerate", action="store_true", help="generate vaults again even when a cached one matches"
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter for the measured processes")
    parser.add_argument("--json", action="store_true", help="write JSON results to stdout")
    parser.add_argument("--notes", action="store_true", help="Obsidian-style notes vaults instead of records")
    parser.add_argument(
        "--index-text",
        action="store_true",
        help="the cold figure includes the search text (what a first search would index)",
    )
    args = parser.parse_args(argv)
    out = sys.stderr if args.json else sys.stdout

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    vaults = (args.keep or DEFAULT_VAULTS).resolve()
    vaults.mkdir(parents=True, exist_ok=True)
    info = machine()
    results = [
        bench_size(
            n,
            args.seed,
            vaults,
            args.warm_runs,
            args.python,
            args.regenerate,
            log,
            args.notes,
            args.index_text,
        )
        for n in args.sizes
    ]
    print(
        f"\nmachine: {info['nproc']} CPUs ({info['cpuModel']}), {info['memGiB']} GiB, "
        f"Python {info['python']}, SQLite {info['sqlite']}, {info['platform']}",
        file=out,
    )
    print(table(results), file=out)
    for r in results:
        if r["generated"]:
            print(f"generated {r['records']:,} records in {r['generateS']:.2f} s", file=out)
        if not r["warm"]["parsedAllZero"]:
            print(f"WARNING: warm reopen of {r['records']:,} parsed files: {r['warm']['parsed']}", file=out)
        if any(r["warm"]["projectionsRebuilt"]) or r["warm"]["projectionVersions"] not in (
            [],
            [r["cold"]["projectionVersion"]],
        ):
            print(
                f"WARNING: the engine's projection version changed during the "
                f"{r['records']:,} run (engine code edited?): projections were rebuilt, so "
                "the warm figures are not warm",
                file=out,
            )
        for where, text in (("cold", r["cold"]["stderr"]), ("warm", r["warm"]["stderr"])):
            if text:
                print(f"note: {where} run of {r['records']:,} wrote to stderr: {text}", file=out)
    if args.json:
        json.dump({"machine": info, "results": results}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
