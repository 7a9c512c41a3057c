"""What every pane shares with the window.

A pane is a QWidget that shows one view of the open vault. The window tells
it three things — the vault changed (`set_vault`), the vault's files changed
(`apply_change`, with the engine's ChangeSet), the record in focus moved
(`set_current`) — and listens for one: `open_requested(key, line)` when the
user asks to open a record (key is a record id or a vault-relative path;
line is a one-based line of the file to show, 0 for none).

A pane names in `reads` the projections it shows; a change that touched none
of them (`ChangeSet.touched`) leaves the pane alone instead of costing a
worker query and a model update.

All engine calls go through `self.runner.submit` so they run on a worker;
a pane never calls the vault on the UI thread.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from knowledge_desktop.engine.changes import ALL_PROJECTIONS, ChangeSet, Projection
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.tasks import Runner


class Pane(QWidget):
    open_requested = Signal(str, int)
    status_message = Signal(str)

    title = "Pane"
    reads: frozenset[Projection] = ALL_PROJECTIONS
    """The projections this pane shows: it refetches only when a change touches one."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.vault: Vault | None = None
        self.current: str | None = None

    def set_vault(self, vault: Vault | None) -> None:
        """A vault was opened (or closed): forget everything and load afresh."""
        self.vault = vault
        self.current = None
        self.refresh()

    def apply_change(self, change: ChangeSet) -> None:
        """Files changed on disk and the projections were updated: update in place."""
        if change.touches(*self.reads):
            self.refresh()

    def set_current(self, path: str | None) -> None:
        """The record in focus (vault-relative path) changed."""
        self.current = path

    def refresh(self) -> None:
        """Reload what the pane shows from the vault."""
