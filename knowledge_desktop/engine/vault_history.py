"""What the vault's history answers: `Vault.history`, one object for the CLI and the window.

Issue 15: checkpoints of publications and observed outside edits in the app's own bare
repository (`.knowledge/history.git`), the user's own Git read-only, a record's versions,
a version's bytes, diffs, and the checkpoint outbox. The pieces live in
`engine/write/checkpoints.py` and `engine/history/`; this class only holds the vault's
paths and store so that callers need not.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.errors import QueryError, StateError
from knowledge_desktop.engine.history import baseline, observed, trees
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.versions import record_at
from knowledge_desktop.engine.write import checkpoints
from knowledge_desktop.engine.write.publish import Publisher

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future


def _failures() -> tuple[type[BaseException], ...]:
    return (*hrepo.git_errors(), sqlite3.Error, StateError)


class VaultHistory:
    def __init__(self, root: Path, state_dir: Path, store: Store, publisher: Publisher) -> None:
        self.root = root
        self.state_dir = state_dir
        self.store = store
        self.publisher = publisher
        self._commit_lock = threading.Lock()
        """One observed checkpoint or baseline at a time in this process."""
        self._packing: Future[baseline.Packed | None] | None = None
        """The baseline's blobs being packed by a parse worker (`baseline_beside`)."""

    def versions(self, record_id: str, limit: int = 50, until: str | None = None) -> list[dict[str, Any]]:
        """The record's versions, newest first: rows of `knowledge history` (commit, at,
        author, operation, source, revision, hash, path, plus reason when one was given).
        With `until` (a checkpoint commit: a past view's), only the versions up to it."""
        rows = checkpoints.history(self.state_dir, self.store, record_id, limit, until)
        user = self.user_versions(record_id, limit)["versions"]
        if until is not None:
            found = (
                self.store.reader()
                .execute("SELECT MAX(at) FROM checkpoint_paths WHERE commit_id=?", (until,))
                .fetchone()
            )
            cutoff = str(found[0]) if found and found[0] else ""
            user = [r for r in user if str(r["at"]) <= cutoff]
        return _merge_newest_first(rows, user)[:limit]

    def checkpoints(self, *, pending_only: bool = False, limit: int = 50) -> dict[str, Any]:
        """The outbox and recent commits (`knowledge checkpoints`), and the observed paths
        waiting for their checkpoint (`observed`: {paths, reason, enabled})."""
        result = checkpoints.listing(
            self.state_dir, self.store.reader(), pending_only=pending_only, limit=limit
        )
        conn = self.store.reader()
        result["observed"] = {**observed.pending(conn), "enabled": observed.enabled(conn)}
        return result

    def retry(self) -> dict[str, Any]:
        """Commit pending checkpoints now (Activity › Retry), observed ones included; the
        outbox afterwards."""
        self.publisher.retry_checkpoints()
        self.flush_observed()
        return self.checkpoints(pending_only=True)

    # -- the user's own Git, past versions and diffs (issue 15, §1 last bullet and §2) -----
    def _past(self) -> record_at.PastReader:
        return record_at.PastReader(self.root, self.state_dir, self.store.reader())

    def user_versions(self, record_id: str, limit: int = 50) -> dict[str, Any]:
        """The record's commits in the user's own repository (read-only, renames followed):
        {"versions": rows like `versions` with source "user-git" and the commit's summary as
        "reason", "cut": why the bounded walk stopped early or None, "repository": its path
        or None when the vault is in no repository of the user's}."""
        found = self._past().user_history(record_id, limit)
        return {"versions": found.versions, "cut": found.cut, "repository": found.repository}

    def version_bytes(self, commit: str, path: str) -> bytes:
        """The bytes of vault-relative `path` at `commit` (a checkpoint or a user commit; a
        full id or a unique prefix of 7 or more hex digits)."""
        return self._past().version_bytes(commit, path)

    def show_at(self, record_id: str, at: str) -> dict[str, Any]:
        """The record as it was at `at` (commit, YYYY-MM-DD meaning that day's end in UTC, or
        an ISO date-time): `Vault.show`'s shape plus "at", "commit", "source", "path"."""
        past = self._past()
        record_id = past.id_of(record_id)
        return record_at.view(past.at(record_id, at), record_id)

    def diff(self, record_id: str, from_: str | None = None, to: str | None = None) -> str:
        """A unified diff of the record's file between two moments (commits, dates or "now").
        Defaults: `to` is now (the file on disk); `from_` is the newest version older than
        `to` whose bytes differ from it."""
        past = self._past()
        record_id = past.id_of(record_id)
        after = past.now(record_id) if to in (None, "now") else past.at(record_id, to)
        if from_ is not None:
            before = past.now(record_id) if from_ == "now" else past.at(record_id, from_)
            return record_at.unified(before, after, record_id)
        after_hash = hashlib.sha256(after.data).hexdigest()
        for row in self.versions(record_id, limit=1000):
            if row["hash"] == after_hash or (after.source != "now" and str(row["at"]) > after.at):
                continue
            return record_at.unified(past.at(record_id, str(row["commit"])), after, record_id)
        raise QueryError(f"no earlier version of {record_id} than {after.commit or 'now'} is known")

    # -- the baseline and observed checkpoints (issue 15, §1) -----------------------------
    def baseline_beside(self, pool: Executor) -> None:
        """Queue the baseline's reading and packing of every file (`baseline.pack_files`)
        on a cold scan's parse workers, behind its last files, when the vault has no
        checkpoint yet: they run while the scan's own process writes the projections,
        and `ensure_baseline` then only makes the tree and the commit (issue 26: 2 s
        of CPU off `knowledge scan`'s own process at 10k records). Never fails the scan:
        when this cannot queue, `ensure_baseline` reads the files itself."""
        if self._packing is not None or self.publisher.read_only or hrepo.unavailable_reason() is not None:
            return
        if hrepo.has_commits(self.state_dir):
            return
        try:
            self._packing = pool.submit(baseline.pack_files, str(self.root), str(self.state_dir))
        except RuntimeError:  # a pool shut down or broken: the scan's own map says so
            return

    def ensure_baseline(
        self, progress: baseline.Progress | None = None, cancel: threading.Event | None = None
    ) -> str | None:
        """Commit the first checkpoint, every file already in the vault, if there is none
        yet; the commit id, or None (there is one, `cancel` was set, or the repository
        failed: the next checkpoint makes it then). Seconds at 100k files: call it on a
        worker. When there is one, the newest checkpoint's big folders are read into
        memory instead (`trees.warm`), so the first publication in one stays quick."""
        packing, self._packing = self._packing, None
        if self.publisher.read_only or hrepo.unavailable_reason() is not None:
            return None
        packed = None
        if packing is not None:
            try:
                packed = packing.result()
            except Exception:  # a worker's failure of any kind: the files are read here
                packed = None
        with self._commit_lock:
            try:
                repo = hrepo.open_repo(self.state_dir, create=True)
                commit = baseline.ensure(
                    self.root, repo, self.store, progress=progress, cancel=cancel, packed=packed
                )
                if commit is None and (cancel is None or not cancel.is_set()):
                    head = hrepo.head(repo)
                    if head is not None:  # the next checkpoint in a big folder then splices
                        trees.warm(repo, head.tree)
            except _failures():
                return None  # the first checkpoint that succeeds makes it
        return None if commit is None else str(commit.id)

    def maintain(self) -> int:
        """Commit the checkpoints a run's publications left pending (docs/history.md,
        "Batched checkpoints"), then pack the checkpoint repository's loose objects once
        enough have piled up (as `git gc --auto` does): seconds now and then, so a host
        calls it on a worker after publications. How many objects were packed; 0 also when
        the repository failed (packing is tried again next time)."""
        if self.publisher.read_only:
            return 0
        self.publisher.retry_checkpoints()  # a run's batch left pending by its last publication
        with self._commit_lock:
            try:
                repo = hrepo.open_repo(self.state_dir, create=False)
                return 0 if repo is None else hrepo.maybe_pack(repo)
            except _failures():
                return 0

    def note_observed(self, paths: list[str]) -> None:
        """Note the paths a scan or the watcher changed (from `Vault.reconcile`). Never
        fails the reconcile: a path that could not be noted is caught by the next scan."""
        if self.publisher.read_only:
            return
        try:
            observed.note(self.state_dir, self.store, paths)
        except (sqlite3.Error, StateError, OSError):
            return

    def observed_due(self, now: float | None = None) -> float | None:
        """Seconds until the next observed checkpoint may be made (0.0: now), or None when
        nothing waits: a host schedules `flush_observed` then (at most one every 5 s)."""
        return observed.due(self.store.reader(), time.time() if now is None else now)

    def flush_observed(self) -> dict[str, Any]:
        """Commit one observed checkpoint of every noted path (a worker's job: 1,000 files
        take about a second). `{"state": "committed", "commit", "paths"}`, `"unchanged"`,
        `"nothing"`, `"off"` or `"pending"` with the reason (paths stay noted)."""
        if self.publisher.read_only:
            return {"state": "nothing"}
        if not observed.enabled(self.store.reader()):
            return {"state": "off"}
        self.publisher.retry_checkpoints()  # the app's own bytes first, by their author
        with self._commit_lock:
            try:
                return observed.flush(self.root, self.state_dir, self.store)
            except (sqlite3.Error, StateError) as exc:
                return {"state": "pending", "reason": f"the observed checkpoint failed: {exc}"}

    @property
    def observed_enabled(self) -> bool:
        """Whether outside edits get observed checkpoints (a per-vault setting, on by default)."""
        return observed.enabled(self.store.reader())

    @observed_enabled.setter
    def observed_enabled(self, on: bool) -> None:
        observed.set_enabled(self.store, on)


def _merge_newest_first(
    checkpoints: list[dict[str, Any]], user: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The two lists, each newest first, merged by time without reordering either: the
    checkpoints keep their commit order (a baseline made during the first publication is
    stamped a moment after that publication's own time, yet comes before it)."""
    out: list[dict[str, Any]] = []
    i = j = 0
    while i < len(checkpoints) or j < len(user):
        take_user = i >= len(checkpoints) or (
            j < len(user) and str(user[j]["at"]) > str(checkpoints[i]["at"])
        )
        if take_user:
            out.append(user[j])
            j += 1
        else:
            out.append(checkpoints[i])
            i += 1
    return out
