"""What the vault's history answers: `Vault.history`, one object for the CLI and the window.

Issue 15: checkpoints of publications and observed outside edits in the app's own bare
repository (`.knowledge/history.git`), the user's own Git read-only, a record's versions,
a version's bytes, diffs, and the checkpoint outbox. The pieces live in
`engine/write/checkpoints.py` and `engine/history/`; this class only holds the vault's
paths and store so that callers need not.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.versions import record_at
from knowledge_desktop.engine.write import checkpoints
from knowledge_desktop.engine.write.publish import Publisher


class VaultHistory:
    def __init__(self, root: Path, state_dir: Path, store: Store, publisher: Publisher) -> None:
        self.root = root
        self.state_dir = state_dir
        self.store = store
        self.publisher = publisher

    def versions(self, record_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The record's versions, newest first: rows of `knowledge history` (commit, at,
        author, operation, source, revision, hash, path, plus reason when one was given)."""
        rows = checkpoints.history(self.state_dir, self.store.reader(), record_id, limit)
        rows += self.user_versions(record_id, limit)["versions"]
        rows.sort(key=lambda r: str(r["at"]), reverse=True)  # stable: same-second rows keep order
        return rows[:limit]

    def checkpoints(self, *, pending_only: bool = False, limit: int = 50) -> dict[str, Any]:
        """The outbox and recent commits (`knowledge checkpoints`)."""
        return checkpoints.listing(
            self.state_dir, self.store.reader(), pending_only=pending_only, limit=limit
        )

    def retry(self) -> dict[str, Any]:
        """Commit pending checkpoints now (Activity › Retry); the outbox afterwards."""
        self.publisher.retry_checkpoints()
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
