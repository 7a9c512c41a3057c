"""The first checkpoint: every file already in the vault (issue 15, §1).

So that each checkpoint's tree mirrors the whole vault, and a view of the vault as of a
checkpoint sees every file, not only those written since. Made once, before the first
other checkpoint; at 100k files it reads every file, so a host runs it on a worker
(`VaultHistory.ensure_baseline`), and its blobs are written straight into a pack
(`packwrite.py`) rather than as 100k loose files.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.fs.inside import read_inside
from knowledge_desktop.engine.fs.walk import FileEntry, walk
from knowledge_desktop.engine.history import index, packwrite, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.lazy import lazy_module
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES
from knowledge_desktop.engine.store.db import Store

if TYPE_CHECKING:
    import pygit2
else:
    pygit2 = lazy_module("pygit2")  # imported by the first history read (engine/lazy.py)

Progress = Callable[[str, int, int], None]
MESSAGE = "baseline: pre-existing files in the tree\n\nOperation: baseline\nPaths: {n}\n"


Packed = str
"""What `pack_files` hands back once the blobs are in a pack: each file's checkpoint index
row (path, blob id, record id, revision, sha256) as one JSON text, which crosses from the
worker and waits for `ensure` in 3 MB at 10k files rather than 7 MB of row objects."""


def pack_files(root: str, state_dir: str) -> Packed | None:
    """Write every file of the vault as a blob into a pack of the checkpoint repository
    (made if need be); None when it has a commit already (no baseline is due).

    Run in a parse worker beside a cold scan (`VaultHistory.baseline_beside`): the workers
    are idle while the scan's own process writes the projections, and reading, hashing and
    compressing every file is most of a baseline's cost (2 s of CPU at 10k records), which
    `ensure` then only turns into a tree and a commit; pygit2 (17 MB) is imported here, not
    in the scan's process while it holds the graph. A pack nothing refers to (no baseline
    made of it after all) is as harmless as a cancelled baseline's."""
    repo = hrepo.open_repo(Path(state_dir), create=True)
    if hrepo.head(repo) is not None:
        return None
    entries = [e for e in walk(Path(root)) if e.problem is None]
    rows = _pack(Path(root), repo.path, entries, {})
    assert rows is not None  # (no cancel was given)
    return json.dumps([[r.path, r.blob, r.record_id, r.revision, r.sha256] for r in rows])


def _pack(
    root: Path,
    git_dir: str,
    entries: list[FileEntry],
    overrides: Mapping[str, bytes | None],
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[index.PathRow] | None:
    """The blobs of `entries` written into a pack, and their index rows; None when
    `cancel` was set."""
    rows: list[index.PathRow] = []
    writer = packwrite.PackWriter(git_dir)
    try:
        for n, entry in enumerate(entries):
            if cancel is not None and cancel.is_set():
                return None
            if progress is not None and n % 500 == 0:
                progress("baseline", n, len(entries))
            if entry.path in overrides:
                data = overrides[entry.path]
            else:
                try:
                    data = read_inside(root, entry.path, MAX_FILE_BYTES)
                except OSError:
                    continue  # unreadable now: the next observed checkpoint records it
            if data is None:
                continue
            rows.append(index.row_for(entry.path, writer.add(data).hex(), data))
    finally:
        writer.close()  # a cancelled baseline leaves a pack that nothing refers to yet
    return rows


def ensure(
    root: Path,
    repo: Any,
    store: Store,
    *,
    overrides: Mapping[str, bytes | None] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    packed: Packed | None = None,
) -> Any:
    """Commit the baseline when the branch has no commit yet; the commit, or None when
    there already is one or `cancel` was set. `overrides`: bytes to record instead of the
    disk's (the bytes before a publication still waiting for its checkpoint; None leaves
    the path out), so that publication's checkpoint shows its own change. `packed`: the
    blobs `pack_files` already wrote (then the files are not read again)."""
    if hrepo.head(repo) is not None:
        return None
    overrides = overrides or {}
    entries: list[FileEntry] = []
    if packed is not None:
        rows = [index.PathRow(*row) for row in json.loads(packed)]
    else:
        entries = [e for e in walk(root) if e.problem is None]
        found = _pack(root, repo.path, entries, overrides, progress, cancel)
        if found is None:
            return None
        rows = found
    oid = pygit2.Oid
    blobs = {row.path: oid(hex=row.blob) for row in rows if row.blob is not None}
    tree, _ = trees.apply(repo, None, blobs)
    commit = hrepo.make_commit(repo, tree, None, "unknown", int(time.time()), MESSAGE.format(n=len(blobs)))
    with store.write(bulk=True) as tx:
        index.record(tx, commit, None, rows)
    hrepo.pack_loose(repo)
    if progress is not None:
        total = len(entries) or len(blobs)
        progress("baseline", total, total)
    return commit
