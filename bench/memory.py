"""Memory benchmark: resident memory of a process that holds a vault open.

    python bench/memory.py --records 100000 [--seed 1] [--workdir DIR] [--json]
    python bench/memory.py --vault PATH [--keep-state] [--json]

What a desktop session costs is the memory of the process that keeps the
vault open, so every figure is taken inside a fresh child process from
/proc/self/status: VmRSS (resident now) and VmHWM (the peak resident size
since the process started). Two children run one after the other:

* cold: `Vault.open` + `reconcile()` on a vault without `.knowledge/`, then
  one incremental `reconcile([path])` of a record whose bytes changed;
* warm: a new process reopens the state the cold child left,
  `reconcile()` (parses nothing), then the same incremental reconcile. The
  first incremental change is what loads the in-memory catalog from the
  parse cache, so the warm figures after it are the steady state of an
  open vault.

The cold scan parses in forkserver worker processes, which are not children
of the measured process; a sampling thread in the cold child therefore sums
VmRSS over its whole process tree (forkserver and workers included) every
0.2 s and reports the largest sum seen.

`--records N` uses the generator's cached vault `bench/vaults/<N>-<seed>/`
(generating it when missing) but never opens that folder: it copies the
Markdown, without `.knowledge/`, into `--workdir` (default: a folder under
the system temp dir, deleted afterwards unless `--workdir` is given).
`--vault PATH` measures PATH in place and deletes its `.knowledge/` first so
the cold phase is cold; `--keep-state` keeps an existing state and skips the
cold child. The record edited for the incremental step is restored at the
end of each child. Output is one JSON object (`--json`) or a short table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import generate_vault  # noqa: E402
from scan import ensure_vault, machine  # noqa: E402

# Run with `python -c` so forkserver workers do not re-import a main module.
CHILD = r"""
import gc, json, os, sys, threading, time
from pathlib import Path

def status(pid="self"):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return out

def tree_rss():
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    parents[int(name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    me = os.getpid()
    total = 0.0
    for pid in parents:
        p, hops = pid, 0
        while p not in (0, 1, me) and hops < 16:
            p, hops = parents.get(p, 0), hops + 1
        if p == me or pid == me:
            total += status(pid).get("VmRSS", 0.0)
    return total

tree_peak = [0.0]
stop = threading.Event()
def sample():
    while not stop.wait(0.2):
        tree_peak[0] = max(tree_peak[0], tree_rss())

def mark(label, marks):
    marks[label] = {"VmRSS": round(status().get("VmRSS", 0), 1), "VmHWM": round(status().get("VmHWM", 0), 1)}

t0 = time.perf_counter()
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.store.schema import PROJECTION_VERSION
root, edit, phase = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
marks = {}
mark("imported", marks)
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
started = time.perf_counter()
vault = Vault.open(root)
full = vault.reconcile()
full_s = time.perf_counter() - started
mark("afterFullReconcile", marks)
gc.collect()
mark("afterFullReconcileGc", marks)
original = (root / edit).read_bytes()
try:
    (root / edit).write_bytes(original + b"\nOne more sentence for the memory benchmark.\n")
    started = time.perf_counter()
    inc = vault.reconcile([edit], "watcher")
    inc_s = time.perf_counter() - started
    mark("afterIncremental", marks)
    gc.collect()
    mark("afterIncrementalGc", marks)
finally:
    (root / edit).write_bytes(original)
vault.reconcile([edit], "watcher")
stop.set()
sampler.join()
mark("end", marks)
rebuilt = vault.store.rebuilt
vault.close()
print(json.dumps({
    "phase": phase,
    "projectionVersion": PROJECTION_VERSION,
    "projectionsRebuilt": rebuilt,
    "fullReconcile": {"seconds": round(full_s, 2), "read": full.read, "parsed": full.parsed},
    "incremental": {"seconds": round(inc_s, 3), "parsed": inc.parsed,
                    "affected": len(inc.affected_paths)},
    "marksMiB": marks,
    "treePeakRssMiB": round(tree_peak[0], 1),
}))
"""


def pick_record(root: Path) -> str:
    """A claim to edit for the incremental step (deterministic: the first by name)."""
    claims = sorted((root / "private" / "claims").glob("*.md"))
    if not claims:
        claims = sorted(root.glob("*/**/*.md"))
    if not claims:
        raise SystemExit(f"memory: no Markdown records under {root}")
    return claims[0].relative_to(root).as_posix()


def run_child(python: str, vault: Path, edit: str, phase: str) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    started = time.perf_counter()
    proc = subprocess.run(
        [python, "-c", CHILD, str(vault), edit, phase],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        check=False,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"memory: the {phase} child failed ({proc.returncode}) on {vault}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["processWallS"] = round(time.perf_counter() - started, 1)
    return result


def copy_markdown(source: Path, target: Path) -> None:
    """Copy a vault without its state, so the cached original is never opened."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".knowledge"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--records", type=int, help="use the generated vault of this many records (a copy)")
    where.add_argument("--vault", type=Path, help="measure this vault folder in place")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="where to copy a --records vault (kept)")
    parser.add_argument("--keep-state", action="store_true", help="with --vault: keep state, skip cold")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    scratch: Path | None = None
    if args.records is not None:
        cached = BENCH / "vaults" / f"{args.records}-{args.seed}"
        ensure_vault(cached, args.records, args.seed, regenerate=False)
        if args.workdir is None:
            scratch = Path(tempfile.mkdtemp(prefix="knowledge-memory-"))
            folder = scratch / "vault"
        else:
            folder = args.workdir
        log(f"copying {cached} (without .knowledge) to {folder} …")
        copy_markdown(cached, folder)
    else:
        folder = args.vault.resolve()
        if generate_vault.read_marker(folder) is None and not (folder / ".knowledge").exists():
            log(f"note: {folder} was not made by the generator")
    try:
        edit = pick_record(folder)
        result: dict[str, Any] = {"vault": str(folder), "edited": edit, "machine": machine()}
        if not args.keep_state:
            if (folder / ".knowledge").exists():
                shutil.rmtree(folder / ".knowledge")
            log("cold: open + full reconcile + one incremental reconcile …")
            result["cold"] = run_child(args.python, folder, edit, "cold")
        log("warm: reopen + reconcile + one incremental reconcile …")
        result["warm"] = run_child(args.python, folder, edit, "warm")
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for phase in ("cold", "warm"):
        if phase not in result:
            continue
        got = result[phase]
        marks = got["marksMiB"]
        print(
            f"{phase}: full reconcile {got['fullReconcile']['seconds']} s "
            f"(parsed {got['fullReconcile']['parsed']}), incremental {got['incremental']['seconds']} s"
        )
        for label, values in marks.items():
            print(f"  {label:<22} VmRSS {values['VmRSS']:>8.1f} MiB   VmHWM {values['VmHWM']:>8.1f} MiB")
        print(f"  process tree peak (sampled) {got['treePeakRssMiB']:.1f} MiB")


if __name__ == "__main__":
    main()
