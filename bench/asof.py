"""As-of benchmark: opening the view of a 10k vault as it was at a checkpoint (issue 15, §4:
≤ 15 s, with progress and cancel).

    python bench/asof.py [--records 10000] [--seed 1] [--vault DIR] [--changed 1000] [--runs 1] [--json]

It generates the vault with `bench/generate_vault.py` (or reuses `bench/vaults/<n>-<seed>/`),
opens and scans it (the live state the window has), and commits the whole tree as one
checkpoint straight to `.knowledge/history.git` with pygit2 (what the checkpoint engine's
baseline holds), with `--changed` Markdown files holding other bytes than now (a line added
to the body), so the past differs from the present. Then, each in a fresh Python process:

* seeded: `open_as_of(folder, commit)` with a progress callback, then `close()` — the
  temporary state is copied from the live one and only the changed files are parsed; the
  time to materialize the files (last "files" progress) and the total, and that every file
  was reported and the temporary folders are gone after close;
* cold: the same with `seed=False` (every file parsed, as when there is no live state);
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
seed = mode != "cold"
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
    vault = open_as_of(root, commit, progress=progress, cancel=cancel, seed=seed)
    out["open_s"] = time.perf_counter() - t0
    out["records"] = vault.counts().get("records")
    t1 = time.perf_counter()
    vault.close()
    out["close_s"] = time.perf_counter() - t1
except Cancelled:
    out["cancelled_after_s"] = time.perf_counter() - t0 - marks["cancel_at"]
out["marks"] = marks
out["progress_calls"] = counts
out["left_in_tmp"] = sorted(n for n in os.listdir(tmp) if not n.startswith("pymp-"))  # the pool's own
print(json.dumps(out))
"""


def prepare(vault: Path, changed: int) -> str:
    """A scanned state and one checkpoint commit of the whole vault, `changed` Markdown files
    differing from now; its id (reused when made for the same `changed`)."""
    import pygit2
    from pygit2.enums import FileMode

    from knowledge_desktop.engine.vault import Vault

    with Vault.open(vault) as live:
        live.reconcile()
    path = vault / ".knowledge" / "history.git"
    repo = (
        pygit2.Repository(str(path))
        if path.exists()
        else pygit2.init_repository(str(path), bare=True, initial_head="checkpoints")
    )
    ref = "refs/heads/checkpoints"
    message = f"baseline, {changed} files changed\n\nOperation: observed\n"
    if ref in repo.references and repo[repo.references[ref].target].message == message:
        return str(repo.references[ref].target)
    index = pygit2.Index()
    to_change = changed
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = [d for d in dirnames if d != ".knowledge"]
        for name in filenames:
            file = Path(dirpath) / name
            rel = file.relative_to(vault).as_posix()
            data = file.read_bytes()
            if to_change and rel.endswith(".md") and data.startswith(b"---"):
                data += b"\nA line this file had at the checkpoint.\n"
                to_change -= 1
            index.add(pygit2.IndexEntry(rel, repo.create_blob(data), FileMode.BLOB))
    sig = pygit2.Signature("bench", "bench@localhost", int(time.time()), 0)
    tree = index.write_tree(repo)
    parents = [repo.references[ref].target] if ref in repo.references else []
    return str(repo.create_commit(ref, sig, sig, message, tree, parents))


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
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--changed", type=int, default=1000, help="files that differ at the checkpoint")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    vault = args.vault or BENCH / "vaults" / f"{args.records}-{args.seed}"
    ensure_vault(vault, args.records, args.seed, regenerate=False)
    commit = prepare(vault, args.changed)
    tmp = BENCH / "vaults" / "asof-tmp"
    runs = [(mode, child(vault, commit, mode, tmp)) for _ in range(args.runs) for mode in ("seeded", "cold")]
    cancel = child(vault, commit, "cancel", tmp)
    result = {
        "machine": machine(),
        "vault": str(vault),
        "commit": commit,
        "changed": args.changed,
        "open": [{"mode": mode, **run} for mode, run in runs],
        "cancel": cancel,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    for mode, run in runs:
        print(
            f"open ({mode}, {args.changed} files differ): {run['open_s']:.2f} s (files written by"
            f" {run['marks'].get('files', 0):.2f} s, {run['progress_calls']['files']} file progress calls),"
            f" close {run['close_s']:.2f} s, records {run['records']}, left behind {run['left_in_tmp']}",
            file=sys.stderr if args.json else sys.stdout,
        )
    print(
        f"cancel at half the files: Cancelled {cancel['cancelled_after_s'] * 1000:.0f} ms later,"
        f" left behind {cancel['left_in_tmp']}",
        file=sys.stderr if args.json else sys.stdout,
    )


if __name__ == "__main__":
    main()
