"""What the window's helpers use of the window: `WindowParts`, the base class of `MainWindow`.

The helpers (actions, adopt_action, as_of, live, observed, opening, write_actions) act
on the window: its runner, vault, panes, menus, status bar and signals. They used to
import `MainWindow` for its type while `main_window` imported them, a cycle. They take a
`WindowParts` instead: it declares the signals (defined here, so they are the window's)
and, for the type checker only, the attributes and methods the helpers use. The helpers
the window holds (its opener, commands, writes, relay) are named by the little of them
other helpers use (`OpenerPart`, ...), so this module imports none of the helpers. The
contract "the window's helpers do not import the window" in pyproject.toml keeps it so.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget, QLabel

    from knowledge_desktop.engine.changes import ChangeSet
    from knowledge_desktop.engine.fs.watch import VaultWatcher
    from knowledge_desktop.engine.vault import Vault
    from knowledge_desktop.ui.history import History
    from knowledge_desktop.ui.panes.catalog import CatalogPane
    from knowledge_desktop.ui.panes.diagnostics import DiagnosticsPane
    from knowledge_desktop.ui.panes.record import RecordPane
    from knowledge_desktop.ui.panes.repository import RepositoryPane
    from knowledge_desktop.ui.panes.search import SearchPane
    from knowledge_desktop.ui.tasks import Runner

Opened = tuple["Vault", "VaultWatcher | None", "ChangeSet | None", dict[str, Any] | None]
"""What opening a vault hands the window: the vault, its watcher, the first scan's
ChangeSet and counts (both None when the vault was indexed before: the window shows
the index at once and checks the folder for changes afterwards)."""


class OpenerPart(Protocol):
    """What other helpers use of the window's `VaultOpener` (ui/opening.py)."""

    def choose(self) -> None: ...
    def open_demo(self) -> None: ...
    def recent_vaults(self) -> list[str]: ...
    def last_vault(self) -> Path | None: ...
    def open(self, path: Path) -> None: ...
    def hide_progress(self) -> None: ...
    def begin(self, message: str) -> threading.Event: ...
    def report(self, stage: str, done: int, total: int) -> None: ...


class CommandsPart(Protocol):
    """What other helpers use of the window's `WindowActions` (ui/actions.py): the menu
    entries they put their own next to."""

    @property
    def export(self) -> QAction: ...
    @property
    def edit(self) -> QAction: ...


class Refreshable(Protocol):
    def refresh(self) -> None: ...


class WritesPart(Protocol):
    """What other helpers use of the window's `WriteActions` (ui/write_actions.py)."""

    @property
    def activity(self) -> Refreshable: ...


class RelayPart(Protocol):
    """What other helpers use of the window's `LiveRelay` (ui/live.py): the signals that
    carry a watcher's and an opening's news to the window's thread."""

    @property
    def changed(self) -> SignalInstance: ...
    @property
    def state_changed(self) -> SignalInstance: ...
    @property
    def failed(self) -> SignalInstance: ...
    @property
    def gone(self) -> SignalInstance: ...
    @property
    def progress(self) -> SignalInstance: ...


class WindowParts(QMainWindow):
    loaded = Signal()
    load_failed = Signal(str)
    current_changed = Signal(str)
    change_applied = Signal(object)

    if TYPE_CHECKING:
        runner: Runner
        vault: Vault | None
        watch: bool
        watcher: VaultWatcher | None
        watch_state: QLabel
        settings: QSettings
        current_path: str | None
        history: History
        docks: dict[str, QDockWidget]
        catalog: CatalogPane
        search: SearchPane
        record: RecordPane
        diagnostics: DiagnosticsPane
        repository: RepositoryPane
        opener: OpenerPart
        commands: CommandsPart
        writes: WritesPart
        relay: RelayPart

        def open_vault(self, path: Path) -> None: ...
        def after_fresh(self, vault: Vault) -> None: ...
        def adopt(self, result: Opened) -> None: ...
        def watching(self, vault: Vault, watcher: VaultWatcher) -> None: ...
        def apply_change(self, change: ChangeSet) -> None: ...
        def open_record(self, key: str, line: int = 0) -> None: ...
        def go_back(self) -> None: ...
        def go_forward(self) -> None: ...
        def visited(self, key: str) -> None: ...
        def focus_pane(self, title: str) -> None: ...
        def focus_search(self) -> None: ...
        def quick_switch(self) -> None: ...
        def record_source(self) -> None: ...
        def open_external(self) -> None: ...
        def reveal_file(self) -> None: ...
        def copy_field(self, name: str) -> None: ...
        def export_diagnostics(self) -> None: ...
        def show_error(self, message: str) -> None: ...
