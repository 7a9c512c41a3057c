"""What the vault's history answers: `Vault.history`, one object for the CLI and the window.

Issue 15: checkpoints of publications and observed outside edits in the app's own bare
repository (`.knowledge/history.git`), the user's own Git read-only, a record's versions,
a version's bytes, diffs, and the checkpoint outbox. The pieces live in
`engine/write/checkpoints.py` and `engine/history/`; this class only holds the vault's
paths and store so that callers need not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knowledge_desktop.engine.store.db import Store
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
        return checkpoints.history(self.state_dir, self.store.reader(), record_id, limit)

    def checkpoints(self, *, pending_only: bool = False, limit: int = 50) -> dict[str, Any]:
        """The outbox and recent commits (`knowledge checkpoints`)."""
        return checkpoints.listing(
            self.state_dir, self.store.reader(), pending_only=pending_only, limit=limit
        )

    def retry(self) -> dict[str, Any]:
        """Commit pending checkpoints now (Activity › Retry); the outbox afterwards."""
        self.publisher.retry_checkpoints()
        return self.checkpoints(pending_only=True)
