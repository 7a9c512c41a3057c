"""Keeping the window current while other programs edit the vault.

The engine's `VaultWatcher` batches file events and calls back on its own
thread; there we run the one reconcile path (`Vault.reconcile(paths,
source="watcher")`), so neither parsing nor SQLite ever touches the UI
thread. Each non-empty ChangeSet then crosses to the UI thread through a
queued signal and the window hands it to every pane.

`EventLog` appends one JSON line per ChangeSet the window applied, for
diagnosis and for measuring edit-to-pane latency from outside the process.

`LiveReads` makes the window's searches exact the way the MCP server makes its
calls exact (issue 28 §5, `engine/live_vault.py`): on the worker, before the
query, `VaultWatcher.sync` delivers every change saved before it, and when the
watcher cannot vouch for that the worker walks the vault instead.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, Signal

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.errors import StateMissing, VaultGone
from knowledge_desktop.engine.fs.watch import VaultWatcher, WatchState
from knowledge_desktop.engine.live_vault import Freshness, sync_dir_of
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.process import background_thread

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import RelayPart, WindowParts

log = logging.getLogger(__name__)

T = TypeVar("T")


class LiveRelay(QObject):
    """Carries watcher results to the UI thread (it lives there; emits come from the watcher)."""

    changed = Signal(object, object)  # (Vault, ChangeSet)
    state_changed = Signal(object, object)  # (Vault, WatchState)
    failed = Signal(str)
    gone = Signal(object, str)  # (Vault, message): its folder or its state went away while open
    repaired = Signal(object, str, object)  # (Vault, message, ChangeSet): a damaged state rebuilt
    progress = Signal(str, int, int)  # stage, done, total — from the worker opening a vault


def start_watching(vault: Vault, relay: RelayPart, **options: object) -> VaultWatcher:
    """Start a watcher whose batches reconcile `vault` and report through `relay`.

    Called on a worker before the first full scan, so nothing written during
    the scan is missed (the watcher queues it for the next batch).
    """

    def apply(paths: set[str] | None) -> None:
        background_thread()
        change = vault.repairing(lambda: vault.reconcile(paths, source="watcher"))
        if not change.empty:
            relay.changed.emit(vault, change)

    def failed(exc: BaseException) -> None:
        if isinstance(exc, (VaultGone, StateMissing)):
            relay.gone.emit(vault, str(exc))  # not a passing failure: live updates end here
            return
        log.warning("watcher callback failed", exc_info=exc)
        relay.failed.emit(f"Updating from disk failed: {exc}")

    watcher = VaultWatcher(
        vault.root,
        on_paths=apply,
        on_rescan=lambda: apply(None),
        on_state=lambda state: relay.state_changed.emit(vault, state),
        on_error=failed,
        sync_dir=sync_dir_of(vault),
        **options,  # type: ignore[arg-type]
    )
    watcher.start()
    return watcher


class LiveReads:
    """Brings the window's vault up to date before a read that must see every file saved
    before it (a search, a lookup on Enter, the quick switcher's suggestions).

    Reconciling stays the watcher's job: `sync` only makes it deliver now what it would
    have delivered after its quiet gap, and the panes hear of it as of any live change.
    When the watcher cannot vouch (it polls, the marker did not come through), the
    worker walks the vault, as an MCP call does, and its changes reach the panes too.
    A stopped watcher (the vault went away, another one was opened, a past view is
    shown) means the window no longer keeps this vault live: nothing is done.
    """

    def __init__(self, vault: Vault, watcher: VaultWatcher, relay: RelayPart) -> None:
        self.vault = vault
        self.watcher = watcher
        self.relay = relay

    def fresh(self) -> Freshness | None:
        """Call on a worker, never on the UI thread: it waits for the watcher's callback."""
        background_thread()
        if self.watcher.state.mode == "stopped":
            return None
        reason = self.watcher.sync()
        if reason is None:
            return Freshness("live")
        vault = self.vault
        change = vault.repairing(lambda: vault.reconcile(source="watcher"))
        if not change.empty:
            self.relay.changed.emit(vault, change)
        return Freshness("walked", reason)


def fresh_then(live: LiveReads | None, read: Callable[[], T]) -> Callable[[], T]:
    """`read`, preceded on its worker by `live.fresh()` when the vault is kept live."""
    if live is None:
        return read

    def work() -> T:
        live.fresh()
        return read()

    return work


def describe_state(state: WatchState) -> tuple[str, str]:
    """Status-bar text and tooltip for a watcher state."""
    if state.mode == "watching":
        return "● Live", "Changes made by other programs appear as they are saved."
    if state.mode == "polling":
        return "◌ Checking every few seconds", (
            f"{state.reason} The vault is re-checked periodically instead of being watched."
        )
    return "", ""


def vault_gone(window: WindowParts, vault: Vault, message: str) -> None:
    """The open vault's folder (or its state folder) went away: stop watching it, keep the
    panes as they were, and say so where it stays visible (the status bar, the live label)."""
    if vault is not window.vault:
        return
    if window.watcher is not None:
        window.watcher.stop()
        window.watcher = None
    window.watch_state.setText("⚠ Not live")
    window.watch_state.setToolTip(message)
    window.statusBar().showMessage(message)


class EventLog:
    """One JSON line per applied ChangeSet: `{"t", "paths", "added", "changed", "removed", "source"}`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, change: ChangeSet) -> None:
        line = json.dumps(
            {
                "t": time.time(),
                "paths": change.paths,
                "added": change.added,
                "changed": change.changed,
                "removed": change.removed,
                "source": "scan" if change.source == "scan" else "watcher",
            },
            ensure_ascii=False,
        )
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
