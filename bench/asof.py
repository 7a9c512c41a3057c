"""As-of benchmark: opening the view of a 10k vault as it was at a checkpoint (issue 15, §4:
≤ 15 s, with progress and cancel).

    python bench/asof.py [--records 10000] [--seed 1] [--vault DIR] [--runs 1] [--json]

It generates the vault with `bench/generate_vault.py` (or reuses `bench/vaults/<n>-<seed>/`),
gives it a `.knowledge/` (`Vault.open`, no scan), and commits the whole tree as one
checkpoint straight to `.knowledge/history.git` with pygit2 (what the checkpoint engine's
baseline holds). Then, each in a fresh Python process:

* open: `open_as_of(vault, commit)` with a progress callback, then `close()`; the time to
  materialize the files (last "files" progress) and the total, and that every file was
  reported and the temporary folders are gone after close;
* cancel: the same with `cancel` set once half of the files are written out; the time from
  the cancel to `Cancelled`, and that nothing is left in the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from scan import ensure_vault, machine  # noqa: E402

CHILD = r"""
import json, os, sys, tempfile, threading, time
from pathlib import Path
tmp = Path(sys.argv[3]); tmp.mkdir(parents=True, exist_ok=True)
tempfile.tempdir = str(tmp)
from knowledge_desktop.engine.asof import open_as_of
from knowledge_desktop.engine.errors import Cancelled
root, commit, mode = sys.argv[1], sys.argv[2], sys.argv[4]
cancel = threading.Event()
marks = {}
counts = {"files": 0}
t0 = time.perf_counter()
def progress(phase, done, total):
    if phase == "files":
        counts["files"] += 1
        counts["total"] = total
        if done == total:
            marks["files"] = time.perf_counter() - t0
        if mode == "cancel" and done == total // 2 and not cancel.is_set():
            marks["cancel_at"] = time.perf_counter() - t0
            cancel.set()
    else:
        marks.setdefault("first_" + phase, time.perf_counter() - t0)
out = {}
try:
    vault = open_as_of(root, commit, progress=progress, cancel=cancel)
    out["open_s"] = time.perf_counter() - t0
    out["records"] = vault.counts().get("records")
    t1 = time.perf_counter()
    vault.close()
    out["close_s"] = time.perf_counter() - t1
except Cancelled:
    out["cancelled_after_s"] = time.perf_counter() - t0 - marks["cancel_at"]
out["marks"] = marks
out["progress_calls"] = counts
out["left_in_tmp"] = sorted(os.listdir(tmp))
print(json.dumps(out))
"""


def prepare(vault: Path) -> str:
    """`.knowledge/` and one checkpoint commit of the whole vault; its id (reused when made)."""
    import pygit2
    from pygit2.enums import FileMode

    from knowledge_desktop.engine.vault import Vault

    Vault.open(vault).close()
    path = vault / ".knowledge" / "history.git"
    repo = (
        pygit2.Repository(str(path))
        if path.exists()
        else pygit2.init_repository(str(path), bare=True, initial_head="checkpoints")
    )
    ref = "refs/heads/checkpoints"
    if ref in repo.references:
        return str(repo.references[ref].target)
    index = pygit2.Index()
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = [d for d in dirnames if d != ".knowledge"]
        for name in filenames:
            file = Path(dirpath) / name
            rel = file.relative_to(vault).as_posix()
            index.add(pygit2.IndexEntry(rel, repo.create_blob(file.read_bytes()), FileMode.BLOB))
    sig = pygit2.Signature("bench", "bench@localhost", int(time.time()), 0)
    tree = index.write_tree(repo)
    return str(repo.create_commit(ref, sig, sig, "baseline\n\nOperation: observed\n", tree, []))


def child(vault: Path, commit: str, mode: str, tmp: Path) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(vault), commit, str(tmp), mode],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"asof: child failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    vault = args.vault or BENCH / "vaults" / f"{args.records}-{args.seed}"
    ensure_vault(vault, args.records, args.seed, regenerate=False)
    commit = prepare(vault)
    tmp = BENCH / "vaults" / "asof-tmp"
    runs = [child(vault, commit, "open", tmp) for _ in range(args.runs)]
    cancel = child(vault, commit, "cancel", tmp)
    result = {"machine": machine(), "vault": str(vault), "commit": commit, "open": runs, "cancel": cancel}
    if args.json:
        print(json.dumps(result, indent=2))
    for n, run in enumerate(runs, 1):
        print(
            f"open #{n}: {run['open_s']:.2f} s (files written by {run['marks'].get('files', 0):.2f} s,"
            f" {run['progress_calls']['files']} file progress calls), close {run['close_s']:.2f} s,"
            f" records {run['records']}, left behind {run['left_in_tmp']}",
            file=sys.stderr if args.json else sys.stdout,
        )
    print(
        f"cancel at half the files: Cancelled {cancel['cancelled_after_s'] * 1000:.0f} ms later,"
        f" left behind {cancel['left_in_tmp']}",
        file=sys.stderr if args.json else sys.stdout,
    )


if __name__ == "__main__":
    main()
