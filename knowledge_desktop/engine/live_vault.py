"""A vault kept live by the watcher, for long-lived headless readers (issue 28 §1, §5): the
MCP server and the Python API object opened with `live=True`.

The window keeps its vault current with the watcher and the one reconcile path; this does
the same without Qt. The watcher's batches reconcile only the paths they name, on the
watcher's thread. Before each call, `fresh()` makes the answer exact: `VaultWatcher.sync`
proves, with a marker file it writes and waits for, that every change saved before the call
began has been delivered and reconciled. When the watcher cannot vouch for that — it polls
(a network filesystem, the inotify watch limit, dropped events), the state folder is outside
the vault, the marker did not come through in time — the call walks the vault as before,
and its `Freshness` says so and why.

The partitions' collections (folders with a marker) are kept between calls too
(`collections.CollectionCache`): the watcher also reports markers and folders, which the
walk rules drop, and a batch naming one forgets them before the call that follows answers,
as does every walk.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from knowledge_desktop.engine.errors import StateLocked, StateMissing, VaultGone
from knowledge_desktop.engine.fs.walk import classify_path, is_ignored_path
from knowledge_desktop.engine.fs.watch import VaultWatcher, WatchState
from knowledge_desktop.engine.vault import Vault

if TYPE_CHECKING:
    from knowledge_desktop.engine.api.collections import CollectionCache

log = logging.getLogger(__name__)

FreshnessMode = Literal["live", "walked"]


@dataclass(frozen=True, slots=True)
class Freshness:
    """How a call's answer was brought up to date with the vault's files: `live` (the
    watcher delivered every earlier change, only those were reconciled) or `walked` (every
    file was looked at, because of `reason`). Either way the answer reflects every file
    saved before the call began."""

    mode: FreshnessMode
    reason: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.reason:
            out["reason"] = self.reason
        return out


WALKED = Freshness("walked", "the vault is not kept live in this process")
"""The freshness of a reader that walks on every call (a short-lived Python object)."""


def sync_dir_of(vault: Vault) -> Path | None:
    """Where a watcher of `vault` writes its sync markers: the state folder, when it lies
    inside the vault (elsewhere the watcher would never see them), else None."""
    state_dir = vault.state_dir
    inside = not vault.state_outside and state_dir.parent == vault.root
    return state_dir if inside else None


class LiveVault:
    """Watches `vault` and brings it up to date before each call; see the module docstring.

    `watcher_options` go to `VaultWatcher` (tests force polling or a fake /proc with them).
    Use as a context manager, or `start()` then `close()`; closing does not close the vault.
    """

    def __init__(self, vault: Vault, **watcher_options: Any) -> None:
        self.vault = vault
        self._options = watcher_options
        self.watcher: VaultWatcher | None = None
        self.gone: str | None = None
        """Why live updates ended (the vault folder or its state went away while open)."""
        self._unsettled: str | None = None
        """Why the next call walks: a batch of the watcher failed, so its paths are not
        reconciled and the watcher will not report them again."""
        # imported here: the window imports this module, and the knowledge API is loaded
        # only when a reader of it opens (tests/ui/test_window_imports.py)
        from knowledge_desktop.engine.api.collections import CollectionCache

        self.collections: CollectionCache = CollectionCache()
        """The partitions' collections between calls, for the sessions reading this vault."""

    def start(self) -> None:
        """Start watching, then reconcile the whole vault once: a change made meanwhile is
        queued by the watcher, so nothing between the two is missed. When another process
        holds the state's write lock longer than SQLite waits (several servers and the window
        starting at once on a busy machine), starting goes on and the first call walks."""
        from knowledge_desktop.engine.api.collections import may_change_collections

        self.watcher = VaultWatcher(
            self.vault.root,
            on_paths=self._apply,
            on_rescan=lambda: self._apply(None),
            on_state=self._state_changed,
            on_error=self._failed,
            sync_dir=sync_dir_of(self.vault),
            notice=may_change_collections,
            **self._options,
        )
        self.watcher.start()
        try:
            self.vault.repairing(self.vault.reconcile)
        except StateLocked as exc:
            self._unsettled = f"the first look at the vault waited for another program ({exc})"

    def _apply(self, paths: set[str] | None) -> None:
        """Reconcile a batch of the watcher (None: every file), first forgetting the
        collections when the batch may have changed them."""
        if paths is None or self._touches_collections(paths):
            self.collections.forget()
        if paths is not None:
            paths = {p for p in paths if not is_ignored_path(p)}  # a marker is no vault file
            if not paths:
                return
        self.vault.repairing(lambda: self.vault.reconcile(paths, source="watcher"))

    def _touches_collections(self, paths: Iterable[str]) -> bool:
        """Whether a batch names something other than a vault file: a marker or a folder
        (a folder whose name looks like a file's is told by looking at it)."""
        root = self.vault.root
        return any(classify_path(p) is None or os.path.isdir(root / p) for p in paths)

    def _state_changed(self, state: WatchState) -> None:
        if state.mode == "polling":
            log.info("the vault is no longer watched: %s", state.reason)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, (VaultGone, StateMissing)):
            self.gone = str(exc)  # each call's own walk raises it to the caller
            return
        log.warning("reconciling what the watcher reported failed", exc_info=exc)
        self._unsettled = f"reconciling what the watcher reported failed ({exc})"

    def fresh(self) -> Freshness:
        """Bring the vault up to date with every change saved before this call."""
        if self.watcher is None:
            self.collections.forget()
            self.vault.reconcile()
            return WALKED
        reason = self.gone or self.watcher.sync()
        unsettled, self._unsettled = self._unsettled, None
        reason = reason or unsettled
        if reason is None:
            return Freshness("live")
        self.collections.forget()
        self.vault.reconcile()
        return Freshness("walked", reason)

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def __enter__(self) -> LiveVault:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
