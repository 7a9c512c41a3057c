"""Observed checkpoints from the window (issue 15 §1, "Outside edits are checkpointed too").

The engine notes the files each scan or watcher reconcile changed; the window decides
*when* they are committed, so that a burst (a `git checkout`, a sync client) becomes
one commit, not hundreds. After each publication, `maintain` runs on a worker (the
checkpoints a run left pending, then packing). After each ChangeSet the window applied,
it asks the engine how long until the next observed checkpoint may be made
(`observed_due`), and starts a single-shot timer for that long; while the timer runs,
further changes only add to what the engine noted. When it fires, `flush_observed` runs on a background worker
(it may take a while), and the window asks again in case more was noted meanwhile.

File › Checkpoint Outside Edits turns this on and off (`observed_enabled`). A vault
shown as of a past date, or a read-only one, is never checkpointed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.vault import Vault

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts


class ObservedCheckpoints(QObject):
    """One pending timer at a time; one flush at a time."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.flush)
        self.asking = False
        self.flushing = False
        self.packing = False
        self.again = False
        self.action = QAction("Checkpoint &Outside Edits", window)
        self.action.setCheckable(True)
        self.action.setStatusTip("Record edits made outside the app in the vault's history")
        self.action.triggered.connect(self.set_enabled)  # the person's click only, not setChecked
        self.action.setEnabled(False)
        file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
        assert isinstance(file_menu, QMenu)
        file_menu.insertAction(window.commands.export, self.action)
        window.change_applied.connect(self.changed)
        window.loaded.connect(self._vault_opened)

    def vault(self) -> Vault | None:
        """The vault whose outside edits may be checkpointed now, if any."""
        vault = self.window.vault
        if vault is None or vault.read_only or vault.as_of is not None:
            return None
        return vault

    def _vault_opened(self) -> None:
        self.timer.stop()  # it was for the vault before
        self.asking = self.flushing = False
        vault = self.vault()
        self.action.setEnabled(vault is not None)
        if vault is not None:
            history = vault.history
            self.window.runner.submit(
                lambda: bool(history.observed_enabled),
                lambda on: self.action.setChecked(on) if vault is self.window.vault else None,
                lambda _message: self.action.setEnabled(False),  # the engine cannot say: leave it
            )
            self._first_checkpoint(vault)

    def _first_checkpoint(self, vault: Vault) -> None:
        """Record the vault's first checkpoint (every file as found: seconds at 100k) on a
        background worker, so that neither a publish nor the next flush makes it inline;
        then commit what scans noted while the vault was closed."""

        def done(_commit: str | None) -> None:
            # quietly: the status bar is the scan's and the searches' (History shows it)
            if vault is self.window.vault:
                self.changed(None)

        self.window.runner.submit(
            vault.history.ensure_baseline, done, lambda _message: self.changed(None), background=True
        )

    def set_enabled(self, on: bool) -> None:
        vault = self.vault()
        if vault is None:
            return
        history = vault.history

        def work() -> None:
            history.observed_enabled = on

        self.window.runner.submit(work, lambda _none: self.changed(None))
        if not on:
            self.timer.stop()

    def changed(self, change: ChangeSet | None) -> None:
        """A ChangeSet was applied: schedule the next observed checkpoint unless one is;
        after a publication, let the engine pack the checkpoint repository on a background
        worker when enough loose objects piled up (the publish path leaves it)."""
        vault = self.vault()
        if vault is not None and change is not None and change.source == "publish":
            self._maintain(vault)
        if vault is None or self.timer.isActive() or self.asking or self.flushing:
            return
        self.asking = True
        history, now = vault.history, time.time()

        def answered(due: float | None) -> None:
            self.asking = False
            if due is not None and vault is self.window.vault and not self.flushing:
                self.timer.start(max(0, round(due * 1000)))

        def failed(message: str) -> None:
            self.asking = False
            self.window.show_error(f"Outside edits cannot be checkpointed now: {message}")

        self.window.runner.submit(lambda: history.observed_due(now), answered, failed, key="observed-due")

    def _maintain(self, vault: Vault) -> None:
        """`maintain` on a background worker: it commits the checkpoints a run's
        publications left pending, then packs. A publication while it runs asks for one
        more pass, so a run's last checkpoint is not left waiting."""
        if self.packing:
            self.again = True
            return
        self.packing, self.again = True, False

        def packed(_count: object) -> None:
            self.packing = False
            if self.again and vault is self.window.vault:
                self._maintain(vault)

        self.window.runner.submit(vault.history.maintain, packed, packed, background=True)

    def flush(self) -> None:
        """Commit what the engine noted, on a background worker; then look again."""
        vault = self.vault()
        if vault is None or self.flushing:
            return
        self.flushing = True

        def done(_none: object) -> None:
            self.flushing = False
            if vault is self.window.vault:
                self.window.writes.activity.refresh()
                self.changed(None)  # edits noted during the flush get their own checkpoint

        def failed(message: str) -> None:
            self.flushing = False
            self.window.show_error(f"Checkpointing outside edits failed: {message}")

        self.window.runner.submit(vault.history.flush_observed, done, failed, background=True)
