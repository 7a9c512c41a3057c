"""Cold `knowledge scan` of one vault: where its CPU goes, its own process's and its workers'.

    python bench/scan_cli.py VAULT [--runs 2]            # `knowledge scan VAULT --json` in a child
    python bench/scan_cli.py VAULT --phases [--runs 2]   # the same steps in this process, timed

Each run first deletes the vault's `state.sqlite*` and `history.git` (a cold scan: the
index and the first checkpoint). The first form runs the command in a child and reads the
CPU of the child and of every process below it (its parse workers, started from a
forkserver, are not children that `getrusage` counts) from `/proc` every 50 ms; it prints
the wall, the scan process's CPU, its workers' CPU, the peak RSS (`getrusage`), the size of
`state.sqlite` and the 1-minute load. `--phases` times, in a fresh Python child each run,
`Vault.reconcile(baseline=True)` and `history.ensure_baseline()` (what `knowledge scan`
runs) with `time.process_time`, so the scan's own CPU is split by step. On a shared
machine the CPU figures are the comparable ones; the walls follow the load. Linux only.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path


def cold(root: Path) -> None:
    state = root / ".knowledge"
    for path in state.glob("state.sqlite*"):
        path.unlink()
    shutil.rmtree(state / "history.git", ignore_errors=True)


def cpu_by_pid() -> dict[int, tuple[int, float]]:
    """Every process's (parent, user + system seconds)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            out[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return out


def run_command(root: Path) -> str:
    started = time.perf_counter()
    child = subprocess.Popen(["knowledge", "scan", str(root), "--json"], stdout=subprocess.PIPE)
    seen: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            table = cpu_by_pid()
            for pid, (_parent, cpu) in table.items():
                up = pid
                while up in table and up != child.pid:
                    up = table[up][0]
                if up == child.pid:
                    seen[pid] = max(seen.get(pid, 0.0), cpu)
            stop.wait(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out = child.communicate()[0]
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    payload = json.loads(out)
    own = seen.pop(child.pid, 0.0)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return (
        f"wall {wall:.2f} s, scan CPU {own:.2f} s, workers CPU {sum(seen.values()):.2f} s, "
        f"peak RSS {rss:.0f} MiB, reconcile {payload['elapsedMs'] / 1000:.2f} s"
    )


def run_phases(root: Path) -> str:
    from knowledge_desktop.engine.vault import Vault

    c0 = time.process_time()
    with Vault.open(root) as vault:
        c1 = time.process_time()
        older = "baseline" not in inspect.signature(vault.reconcile).parameters  # (before 26aa1eb)
        vault.reconcile() if older else vault.reconcile(baseline=True)
        c2 = time.process_time()
        vault.history.ensure_baseline()
        c3 = time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    steps = f"open {c1 - c0:.2f} s, reconcile {c2 - c1:.2f} s, baseline {c3 - c2:.2f} s"
    return f"CPU: {steps}; peak RSS {rss:.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--phases", action="store_true", help="time the steps in a Python child")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # (that child)
    args = parser.parse_args()
    if args.one:
        print(run_phases(args.vault))
        return
    for _ in range(args.runs):
        cold(args.vault)
        if args.phases:  # a fresh process each run: cold imports, its own peak RSS
            command = [sys.executable, __file__, str(args.vault), "--phases", "--one"]
            line = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
        else:
            line = run_command(args.vault)
        size = sum(p.stat().st_size for p in (args.vault / ".knowledge").glob("state.sqlite*"))
        load = Path("/proc/loadavg").read_text().split()[0]
        print(f"{line}, state {size / 1e6:.1f} MB, load {load}", flush=True)


if __name__ == "__main__":
    main()
