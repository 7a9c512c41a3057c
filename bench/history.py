"""Checkpoint benchmark (issue 15, §4): the four figures of the checkpoint engine.

    python bench/history.py --vault100k DIR --vault10k DIR [--work DIR] [--only publish,observed,...]

DIR are vaults made by `bench/generate_vault.py` (their files are edited: use copies).
The checkpoint repository and `state.sqlite` live under `--work`, not in the vault, so
no scan is needed: these figures time the checkpoint engine's functions directly, on
a repository whose first commit is the vault's baseline (every file), as a vault's is.

- `publish`: a one-file publication's checkpoint at 100k records: the commit built
  path by path (`write.checkpoints._commit`), its index rows and the publish path's
  packing check (`publish.PUBLISH_LOOSE_LIMIT`) — what `checkpoints.flush` adds after
  a publication is durable (median of 20; `first`: the folder's tree not yet held in
  memory unless this process wrote it), for a record in the 45,000-file `claims/`
  folder and in two smaller folders: the cost is mostly rewriting the changed
  folder's tree object (about 100 bytes an entry). Then one `pack_loose` of what
  piled up, as `maintain` does on a worker.
- `observed`: an observed checkpoint after 1,000 files changed outside the app, in the
  100k vault (`history.observed.flush`: read, commit, index).
- `history`: `history` of a record with 1,000 versions in a repository of 50,000
  commits (built directly with pygit2 and the index, 100 files in 2 folders).
- `size`: the repository after 10,000 single-record edits (each its own checkpoint,
  packed as it goes by `repo.maybe_pack`) in the 10k vault, against the vault's files.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.history import baseline, index, observed, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import checkpoints, publish
from knowledge_desktop.engine.write.journal import Entry, JournalFile


def fresh(work: Path, name: str) -> tuple[Path, Store, Any]:
    state_dir = work / name
    shutil.rmtree(state_dir, ignore_errors=True)
    state_dir.mkdir(parents=True)
    store = Store(state_dir / "state.sqlite")
    return state_dir, store, hrepo.open_repo(state_dir, create=True)


def disk_bytes(folder: Path, skip_hidden: bool) -> tuple[int, int]:
    """(apparent bytes, bytes on disk as `du` counts them) of the files under `folder`."""
    apparent = used = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        if skip_hidden:
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if skip_hidden and name.startswith("."):
                continue
            st = os.lstat(os.path.join(dirpath, name))
            apparent += st.st_size
            used += st.st_blocks * 512
    return apparent, used


def claims(root: Path) -> list[str]:
    return sorted(f"private/claims/{n}" for n in os.listdir(root / "private/claims"))


def entry(seq: int, record_id: str) -> Entry:
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return Entry(
        seq, f"rq-{seq}", "correct", "0" * 64, "bench", record_id, "published", {"at": at}, None, at, at, None
    )


def publish_one(
    repo: Any, store: Store, root: Path, rel: str, seq: int, loose_limit: int | None = None
) -> float:
    """One single-file publication's checkpoint (the file rewritten on disk first, untimed),
    packing when `loose_limit` loose objects (or their bytes) have piled up."""
    data = (root / rel).read_bytes() + f"\nEdit {seq}.\n".encode()
    (root / rel).write_bytes(data)
    record_id, revision = index.identity_of(data)
    files = [JournalFile(0, rel, record_id, revision, None, None, "0" * 64, data)]
    pending = [checkpoints.Pending(seq, entry(seq, record_id or ""), files)]
    started = time.perf_counter()
    commit_id, parent, rows = checkpoints._commit(repo, pending)
    with store.write(durable=True) as tx:
        index.record(tx, repo[commit_id], parent, rows)
    hrepo.maybe_pack(repo, loose_limit)
    return (time.perf_counter() - started) * 1000


def bench_publish_and_observed(
    vault: Path, work: Path, only: set[str], reuse: bool, warm: bool = False
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if reuse and (work / "h100k" / hrepo.REPO_DIR).exists():  # the baseline of an earlier run
        state_dir = work / "h100k"
        store, repo = Store(state_dir / "state.sqlite"), hrepo.open_repo(state_dir, create=False)
    else:
        state_dir, store, repo = fresh(work, "h100k")
        started = time.perf_counter()
        baseline.ensure(vault, repo, store)
        out["baselineS"] = round(time.perf_counter() - started, 2)
    paths = claims(vault)
    out["claimsFolderEntries"] = len(paths)
    if warm:  # as `VaultHistory.ensure_baseline` does on a worker after opening
        started = time.perf_counter()
        out["warmFolders"] = trees.warm(repo, hrepo.head(repo).tree)
        out["warmMs"] = round((time.perf_counter() - started) * 1000, 1)
    rng = random.Random(1)
    if "publish" in only:
        seq = 0
        out["publishCheckpointMs"] = {}
        for folder in ("claims", "people", "events"):
            names = sorted(os.listdir(vault / "private" / folder))
            runs = []
            for _ in range(20):
                seq += 1
                rel = f"private/{folder}/{rng.choice(names)}"
                runs.append(publish_one(repo, store, vault, rel, seq, publish.PUBLISH_LOOSE_LIMIT))
            out["publishCheckpointMs"][f"{folder} ({len(names)} files in the folder)"] = {
                "median": round(statistics.median(runs), 1),
                "max": round(max(runs), 1),
                "first": round(runs[0], 1),
                "maxAfterFirst": round(max(runs[1:]), 1),
            }
        started = time.perf_counter()
        packed = hrepo.pack_loose(repo)  # what `maintain` then does on a worker
        out["packAfterS"] = {"objects": packed, "seconds": round(time.perf_counter() - started, 2)}
    if "observed" in only:
        burst = rng.sample(paths, 1000)
        for rel in burst:
            with open(vault / rel, "ab") as handle:
                handle.write(b"\nChanged outside the app.\n")
        observed.note(state_dir, store, burst)
        started = time.perf_counter()
        result = observed.flush(vault, state_dir, store)
        out["observedBurst1000S"] = round(time.perf_counter() - started, 2)
        out["observedState"] = result["state"]
        out["observedPaths"] = result.get("paths")
    store.close()
    return out


def bench_history(work: Path, commits: int = 50_000, every: int = 50) -> dict[str, Any]:
    """Built in /dev/shm when there is one (a loose object costs ~1.6 ms on this VM's disk,
    ~0.06 ms in memory), then copied to `work`, where `history` is timed."""
    scratch = Path("/dev/shm") if Path("/dev/shm").is_dir() else work
    state_dir, store, repo = fresh(scratch, "hhist-build")
    target = "private/claims/target.md"
    parent = None
    rows: list[tuple[Any, str | None, list[index.PathRow]]] = []
    started = time.perf_counter()
    for n in range(commits):
        path = target if n % every == 0 else f"private/{('claims', 'pages')[n % 2]}/f{n % 100:03}.md"
        record_id = "cl_target" if path == target else f"cl_{n % 100}"
        data = f"---\nid: {record_id}\nrevision: {n + 1}\n---\nVersion {n}.\n".encode()
        tree, moved = trees.apply(repo, None if parent is None else parent.tree, {path: data})
        commit = hrepo.make_commit(
            repo, tree, parent, "bench", 1_700_000_000 + n, "edit\n\nOperation: correct\n"
        )
        blob = moved[path][1]
        rows.append(
            (commit, None if parent is None else str(parent.id), [index.row_for(path, str(blob), data)])
        )
        parent = commit
        if len(rows) >= 1000:
            with store.write() as tx:
                for c, p, r in rows:
                    index.record(tx, c, p, r)
            rows = []
            hrepo.maybe_pack(repo)
    with store.write() as tx:
        for c, p, r in rows:
            index.record(tx, c, p, r)
    build_s = time.perf_counter() - started
    store.close()
    if scratch != work:
        shutil.rmtree(work / "hhist", ignore_errors=True)
        shutil.copytree(state_dir, work / "hhist")
        shutil.rmtree(state_dir)
        state_dir = work / "hhist"
    store = Store(state_dir / "state.sqlite")  # a fresh connection, as a new process has
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        versions = checkpoints.history(state_dir, store, "cl_target", 1000)
        timings.append((time.perf_counter() - started) * 1000)
    store.close()
    return {
        "commits": commits,
        "versions": len(versions),
        "buildS": round(build_s, 1),
        "historyMs": {"first": round(timings[0], 1), "median": round(statistics.median(timings), 1)},
    }


def bench_size(vault: Path, work: Path, edits: int = 10_000) -> dict[str, Any]:
    _state_dir, store, repo = fresh(work, "hsize")
    baseline.ensure(vault, repo, store)
    files = sorted(
        str(p.relative_to(vault)) for p in (vault / "private").rglob("*.md") if not p.name.startswith(".")
    )
    rng = random.Random(2)
    timings = [publish_one(repo, store, vault, rng.choice(files), seq) for seq in range(1, edits + 1)]
    store.close()
    repo_apparent, repo_used = disk_bytes(Path(repo.path), skip_hidden=False)
    vault_apparent, vault_used = disk_bytes(vault, skip_hidden=True)
    packs = len(list((Path(repo.path) / "objects" / "pack").glob("*.pack")))
    return {
        "edits": edits,
        "files": len(files),
        "repoMB": round(repo_used / 2**20, 1),
        "vaultMB": round(vault_used / 2**20, 1),
        "ratio": round(repo_used / vault_used, 2),
        "ratioApparent": round(repo_apparent / vault_apparent, 2),
        "packs": packs,
        "commitMs": {
            "median": round(statistics.median(timings), 1),
            "p99": round(sorted(timings)[int(len(timings) * 0.99)], 1),
            "max (a repack)": round(max(timings), 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault100k", type=Path)
    parser.add_argument("--vault10k", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/history-bench"))
    parser.add_argument("--only", default="publish,observed,history,size")
    parser.add_argument("--reuse", action="store_true", help="keep the 100k baseline of an earlier run")
    parser.add_argument("--warm", action="store_true", help="read the big folders first, as opening does")
    args = parser.parse_args()
    only = set(args.only.split(","))
    out: dict[str, Any] = {}
    if only & {"publish", "observed"} and args.vault100k:
        out["100k"] = bench_publish_and_observed(args.vault100k, args.work, only, args.reuse, args.warm)
    if "history" in only:
        out["history"] = bench_history(args.work)
    if "size" in only and args.vault10k:
        out["size"] = bench_size(args.vault10k, args.work)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
