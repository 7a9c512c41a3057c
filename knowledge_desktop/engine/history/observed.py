"""Observed checkpoints: outside edits committed too (issue 15, §1, beyond the spec).

A scan or the watcher that changed files notes their paths durably (`note`, in
`observed_outbox`); `flush` commits one "observed" checkpoint of every noted path's
current bytes (a vanished file leaves the tree), at most once every `MIN_INTERVAL`
seconds as a host schedules it (`due`). No commit is made when the tree did not change
(the app's own publication already committed those bytes). The author is "unknown"
unless the journal published exactly those bytes. A per-vault setting turns it off.
"""

from __future__ import annotations

import errno
import hashlib
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.fs.inside import LeavesVault, NotRegularFile, read_inside
from knowledge_desktop.engine.history import baseline, index, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.lazy import lazy_module
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES
from knowledge_desktop.engine.store.db import Store

if TYPE_CHECKING:
    import pygit2
else:
    pygit2 = lazy_module("pygit2")  # imported by the first history read (engine/lazy.py)

MIN_INTERVAL = 5.0
"""Seconds between two observed checkpoints: a burst of edits becomes one commit."""
ENABLED_KEY, LAST_KEY, REASON_KEY = "observed", "observed_last", "observed_reason"


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM history_meta WHERE key=?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_meta(store: Store, key: str, value: str | None) -> None:
    with store.write() as tx:
        if value is None:
            tx.execute("DELETE FROM history_meta WHERE key=?", (key,))
        else:
            tx.execute(
                "INSERT INTO history_meta(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )


def enabled(conn: sqlite3.Connection) -> bool:
    return _meta(conn, ENABLED_KEY) != "off"


def set_enabled(store: Store, on: bool) -> None:
    """Turn observed checkpoints on or off; off forgets the paths noted so far."""
    _set_meta(store, ENABLED_KEY, "on" if on else "off")
    if not on:
        with store.write() as tx:
            tx.execute("DELETE FROM observed_outbox")


def note(state_dir: Path, store: Store, paths: list[str]) -> None:
    """Note the paths a scan or the watcher found changed. Before the first checkpoint
    nothing is noted: the baseline will record the disk as it is then."""
    if not paths or not hrepo.has_commits(state_dir) or not enabled(store.reader()):
        return
    now = utc_now_text()
    with store.write(durable=True) as tx:
        tx.executemany("INSERT INTO observed_outbox(path, noted_at) VALUES (?, ?)", [(p, now) for p in paths])


def pending(conn: sqlite3.Connection) -> dict[str, Any]:
    """How many paths wait for an observed checkpoint, and why the last attempt failed."""
    (count,) = conn.execute("SELECT COUNT(DISTINCT path) FROM observed_outbox").fetchone()
    return {"paths": int(count), "reason": _meta(conn, REASON_KEY) if count else None}


def due(conn: sqlite3.Connection, now: float) -> float | None:
    """Seconds until the next observed checkpoint may be made (0: now), or None when no
    path waits (or observed checkpoints are off)."""
    if not enabled(conn) or conn.execute("SELECT 1 FROM observed_outbox LIMIT 1").fetchone() is None:
        return None
    last = _meta(conn, LAST_KEY)
    return max(0.0, (float(last) if last else 0.0) + MIN_INTERVAL - now)


class Unreadable(Exception):
    """One file that cannot be checkpointed (over the size limit, no permission, an I/O
    error): it is left out of this checkpoint with its reason, the others go in."""


def _read(root: Path, path: str) -> bytes | None:
    """The file's bytes now; None when it is gone, not a file, or leads out of the vault."""
    try:
        return read_inside(root, path, MAX_FILE_BYTES)
    except (FileNotFoundError, NotADirectoryError, LeavesVault, NotRegularFile):
        return None
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP):
            return None
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
            raise  # the disk, not the file: the checkpoint waits with its reason
        raise Unreadable(f"{path}: {exc.strerror or exc}") from None


def flush(root: Path, state_dir: Path, store: Store) -> dict[str, Any]:
    """Commit one observed checkpoint of every noted path. `{"state": "committed",
    "commit"}`, `"unchanged"`, `"nothing"`, or `"pending"` with the reason (the paths
    stay noted); files that cannot be read are left out and listed in `"skipped"` with
    their reasons (one oversized file must not hold back everyone else's edits)."""
    conn = store.reader()
    noted = conn.execute("SELECT seq, path FROM observed_outbox ORDER BY seq").fetchall()
    if not noted:
        return {"state": "nothing"}
    top = int(noted[-1][0])
    paths = sorted({str(r[1]) for r in noted})
    reason = hrepo.unavailable_reason()
    if reason is not None:
        return {"state": "pending", "reason": reason}
    try:
        result = _commit(root, state_dir, store, paths)
    except hrepo.git_errors() as exc:
        reason = f"the observed checkpoint failed: {exc}"
        _set_meta(store, REASON_KEY, reason)
        return {"state": "pending", "reason": reason}
    with store.write(durable=True) as tx:
        tx.execute("DELETE FROM observed_outbox WHERE seq<=?", (top,))
        tx.execute("DELETE FROM history_meta WHERE key=?", (REASON_KEY,))
        tx.execute(
            "INSERT INTO history_meta(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (LAST_KEY, repr(time.time())),
        )
    return result


def _commit(root: Path, state_dir: Path, store: Store, paths: list[str]) -> dict[str, Any]:
    repo = hrepo.open_repo(state_dir, create=True)
    if baseline.ensure(root, repo, store) is not None:
        return {"state": "unchanged"}  # the baseline recorded the disk as it is now
    parent = hrepo.head(repo)
    changes: dict[str, bytes | None] = {}
    skipped: list[dict[str, str]] = []
    before = trees.blob_ids(repo, parent.tree, paths)
    for path in paths:  # only what differs from the last checkpoint (a rebuild notes every file)
        try:
            data = _read(root, path)
        except Unreadable as exc:
            skipped.append({"path": path, "reason": str(exc)})
            continue
        if (before[path] is not None) if data is None else pygit2.hash(data) != before[path]:
            changes[path] = data
    if not changes:
        return {"state": "unchanged", "skipped": skipped} if skipped else {"state": "unchanged"}
    tree, moved = trees.apply(repo, parent.tree, changes)
    authors = _authors(store.reader(), [d for d in changes.values() if d is not None])
    rows: list[index.PathRow] = []
    for path, (_, after) in sorted(moved.items()):
        data = changes[path]
        row = index.row_for(path, None if after is None else str(after), data)
        row.author = authors.get(row.sha256 or "", "unknown") if data is not None else None
        rows.append(row)
    known = {r.author or "unknown" for r in rows if r.blob is not None}
    author = known.pop() if len(known) == 1 else "unknown"
    records = sorted({r.record_id for r in rows if r.record_id})
    message = (
        f"observed: {len(rows)} file(s) changed outside the app\n\n"
        f"Operation: observed\nRecords: {', '.join(records)}\nPaths: {len(rows)}\nActor: {author}\n"
    )
    commit = hrepo.make_commit(repo, tree, parent, author, int(time.time()), message)
    with store.write(durable=True) as tx:
        index.record(tx, commit, str(parent.id), rows)
    hrepo.maybe_pack(repo)
    result: dict[str, Any] = {"state": "committed", "commit": str(commit.id), "paths": len(rows)}
    if skipped:
        result["skipped"] = skipped
    return result


def _authors(conn: sqlite3.Connection, datas: list[bytes]) -> dict[str, str]:
    """sha256 → the actor of the newest publication that wrote exactly those bytes."""
    hashes = sorted({hashlib.sha256(d).hexdigest() for d in datas})
    out: dict[str, str] = {}
    for start in range(0, len(hashes), 500):
        chunk = hashes[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for sha, actor in conn.execute(
            "SELECT f.new_sha256, j.actor FROM journal_files f JOIN journal j ON j.seq=f.seq"
            f" WHERE j.state='published' AND j.actor IS NOT NULL AND f.new_sha256 IN ({marks})"
            " ORDER BY f.seq",
            chunk,
        ):
            out[str(sha)] = str(actor)
    return out
