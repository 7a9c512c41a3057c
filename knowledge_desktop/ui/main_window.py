"""The main window: five panes over one open vault, and the ways to get around.

Layout: the catalog and search results share the left dock, the record is
the central widget, backlinks sit on the right, timeline and diagnostics
share the bottom. The window owns the vault, the navigation history and the
record in focus; panes ask to open records through `open_requested` and the
window tells every pane what is in focus (`Pane.set_current`), and hands
them each ChangeSet (spaced out during a burst, see `apply_change`).

Its commands, menus and toolbar are built in ui/actions.py; opening a vault,
the progress shown meanwhile and the freshness check live in ui/opening.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QThreadPool, QTimer, QUrl
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QMouseEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QTabWidget,
    QWidget,
)

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.fs.inside import LeavesVault, real_path
from knowledge_desktop.engine.fs.watch import VaultWatcher, WatchState
from knowledge_desktop.engine.heap import return_free_heap
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_state import incident_finding
from knowledge_desktop.ui.actions import PANE_TITLES, WindowActions
from knowledge_desktop.ui.as_of import AsOfView
from knowledge_desktop.ui.dialogs import show_crash
from knowledge_desktop.ui.history import WELCOME, History
from knowledge_desktop.ui.live import EventLog, LiveReads, LiveRelay, describe_state, vault_gone
from knowledge_desktop.ui.observed import ObservedCheckpoints
from knowledge_desktop.ui.opening import VaultOpener, dropped_folder
from knowledge_desktop.ui.panes.backlinks import BacklinksPane
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.catalog import CatalogPane
from knowledge_desktop.ui.panes.diagnostics import DiagnosticsPane
from knowledge_desktop.ui.panes.record import RecordPane
from knowledge_desktop.ui.panes.repository import RepositoryPane
from knowledge_desktop.ui.panes.search import SearchPane
from knowledge_desktop.ui.panes.timeline import TimelinePane
from knowledge_desktop.ui.process import drop_source_lines, tune_for_window
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.welcome import Welcome
from knowledge_desktop.ui.widgets.focus import first_focusable
from knowledge_desktop.ui.window_parts import Opened, WindowParts
from knowledge_desktop.ui.write_actions import WriteActions

HEAP_QUIET_MS = 10_000
CHANGE_PANES_MS = 500
"""Shortest time between two ChangeSet deliveries to the panes other than the record."""


class MainWindow(WindowParts):
    """The window. Its signals, and what its helpers use of it, are declared by
    `WindowParts` (ui/window_parts.py), which the helpers take instead of this class."""

    def __init__(
        self,
        pool: QThreadPool | None = None,
        settings: QSettings | None = None,
        *,
        watch: bool = True,
        event_log: Path | None = None,
    ) -> None:
        super().__init__()
        tune_for_window()
        drop_source_lines()  # read by PySide6 while this module's imports ran (ui/process.py)
        # ChangeSets for the panes other than the record wait here during a burst (see apply_change).
        self._held_changes: list[ChangeSet] = []
        self._pane_cooldown = QTimer(self)
        self._pane_cooldown.setSingleShot(True)
        self._pane_cooldown.setInterval(CHANGE_PANES_MS)
        self._pane_cooldown.timeout.connect(self._deliver_held_changes)
        # Once the panes are quiet after a change, freed heap goes back to the system
        # (engine/heap.py); on a worker, since it takes tens of ms on a large heap.
        self._heap_timer = QTimer(self)
        self._heap_timer.setSingleShot(True)
        self._heap_timer.setInterval(HEAP_QUIET_MS)
        self._heap_timer.timeout.connect(self._return_free_heap)
        self.watch = watch
        self.event_log = EventLog(event_log) if event_log is not None else None
        self.watcher: VaultWatcher | None = None
        self._retired: list[Vault] = []
        self.relay: LiveRelay = LiveRelay(self)
        self.relay.changed.connect(self._on_live_change)
        self.relay.state_changed.connect(self._on_watch_state)
        self.relay.failed.connect(self.show_error)
        self.relay.gone.connect(lambda vault, message: vault_gone(self, vault, message))
        self.relay.repaired.connect(self._on_repaired)
        self.settings = settings or QSettings()
        self.runner = Runner(pool or QThreadPool.globalInstance(), self)
        self.runner.failed.connect(self.show_error)
        self.runner.crashed.connect(self.show_crash)
        self.runner.busy_changed.connect(self._on_busy)
        self.vault: Vault | None = None
        self.current_path: str | None = None
        self.history = History()
        self.setWindowTitle("Knowledge Desktop")
        self.setAcceptDrops(True)
        self.resize(1280, 820)

        self.catalog = CatalogPane(self.runner)
        self.search = SearchPane(self.runner)
        self.record = RecordPane(self.runner)
        self.backlinks = BacklinksPane(self.runner)
        self.timeline = TimelinePane(self.runner)
        self.diagnostics = DiagnosticsPane(self.runner)
        self.repository = RepositoryPane(self.runner, self.settings, self.backlinks.documentation)
        # Panes hear of a change in this order, and their queries queue for the workers
        # in it: the record on screen first, the slow whole-vault views last.
        self.panes: list[Pane] = [
            self.record,
            self.catalog,
            self.backlinks,
            self.search,
            self.diagnostics,
            self.timeline,
            self.repository,
        ]
        for pane in self.panes:
            pane.open_requested.connect(self.open_record)
            pane.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.record.tag_requested.connect(self.show_tag)
        self.setCentralWidget(self.record)
        self.docks: dict[str, QDockWidget] = {}
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        self._dock(self.catalog, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock(self.search, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock(self.backlinks, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock(self.repository, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock(self.timeline, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock(self.diagnostics, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["Catalog"], self.docks["Search"])
        self.tabifyDockWidget(self.docks["Timeline"], self.docks["Diagnostics"])
        self.tabifyDockWidget(self.docks["Backlinks"], self.docks["Repository"])
        for title in PANE_TITLES:
            # A tab or the pane's own heading names each; a title bar would say it twice.
            self.docks[title].setTitleBarWidget(QWidget())
        self.docks["Catalog"].raise_()
        self.docks["Backlinks"].raise_()
        self.docks["Diagnostics"].raise_()

        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setToolTip("Records, notes, unrecognized files and diagnostics by severity")
        self.watch_state = QLabel("")
        self.watch_state.setTextFormat(Qt.TextFormat.PlainText)
        self.opener: VaultOpener = VaultOpener(self)
        self.statusBar().addPermanentWidget(self.watch_state)
        self.statusBar().addPermanentWidget(self.summary)
        self.commands: WindowActions = WindowActions(self)
        self.writes: WriteActions = WriteActions(self)  # Withdraw…, Correct…, Merge…: ui/write_actions.py
        # The Diagnostics pane's "N plain notes — Adopt…" row opens File › Adopt Notes….
        self.diagnostics.adopt_requested.connect(self.writes.adopt.action.trigger)
        self.catalog.adopt_requested.connect(self.writes.adopt.action.trigger)  # its mostly-notes hint
        self.past = AsOfView(self)  # File › Open As Of…, its banner, Compare with Now: ui/as_of.py
        self.observed = ObservedCheckpoints(self)  # checkpoints of outside edits: ui/observed.py
        self.welcome = Welcome(self)  # the first start's page in the record pane: ui/welcome.py
        self._update_actions()
        self._restore_settings()
        # Mouse back/forward buttons are caught on this window's QWindow, which sees each event
        # once before any widget: an application-wide filter would run Python on every event.
        self.winId()
        handle = self.windowHandle()
        if handle is not None:
            handle.installEventFilter(self)

    # -- layout ---------------------------------------------------------------------
    def _dock(self, pane: Pane, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(pane.title, self)
        dock.setObjectName(f"dock-{pane.title.lower()}")
        dock.setWidget(pane)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        self.docks[pane.title] = dock

    def _size_docks(self) -> None:
        """Side docks take a share of the window, so a narrow window keeps room for the record."""
        width, height = self.width(), self.height()
        self.resizeDocks(
            [self.docks["Catalog"], self.docks["Backlinks"]],
            [max(220, width * 26 // 100), max(200, width * 22 // 100)],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks([self.docks["Timeline"]], [max(160, height * 28 // 100)], Qt.Orientation.Vertical)

    # -- opening vaults ---------------------------------------------------------------
    def open_vault(self, path: Path) -> None:
        """Open the vault at `path` on a worker (see ui/opening.py); the one open now stays until then."""
        self.opener.open(path)

    def after_fresh(self, vault: Vault) -> None:
        """The vault matches its folder: prepare what the first search and the first live edit need."""
        # Index the search text now, in the background, so no search waits for it.
        self.opener.index_text(vault)
        self._heap_timer.start()

    def _return_free_heap(self) -> None:
        if self.runner.running:
            self._heap_timer.start()  # panes still loading: wait until they are quiet
            return
        self.runner.submit(return_free_heap, lambda _: None, key="return-heap")

    def adopt(self, result: Opened) -> None:
        """A vault was opened: it replaces the one shown, in every pane."""
        vault, watcher, change, counts = result
        self._close_vault()
        self.vault = vault
        self.runner.guard = vault.repairing
        relay = self.relay
        vault.on_repaired = lambda incident, change: relay.repaired.emit(
            vault, incident_finding(incident).message, change
        )
        if watcher is not None:
            self.watching(vault, watcher)
        self.current_path = None
        self.history = History()
        for pane in self.panes:
            pane.set_vault(vault)
        self.setWindowTitle(f"{vault.root.name}{' (read-only)' * vault.read_only} — Knowledge Desktop")
        if counts is not None:
            self._show_counts(counts)
        else:
            self.runner.submit(vault.counts, self._show_counts, key="counts")
        if getattr(vault, "as_of", None) is None:  # a past view's folder is a temporary one
            self.opener.remember(vault.root)
        self._update_actions()
        if self.watch:
            # Load what live updates need now, beside the freshness check, so the
            # first outside edit lands as fast as the rest.
            self.runner.submit(vault.warm_up, lambda _: None, key="warm-up", background=True)
        if change is not None:
            note = " (read-only folder: index kept in the cache directory)" if vault.read_only else ""
            self.statusBar().showMessage(f"Opened {vault.root} — {change.parsed} files read{note}", 8000)
            if self.event_log is not None and not change.empty:
                self.event_log.write(change)
            self.after_fresh(vault)
        self.loaded.emit()

    def watching(self, vault: Vault, watcher: VaultWatcher) -> None:
        """`watcher` follows `vault`, the vault shown: live edits, exact searches, the
        live label. With the vault when it was read in full; after the first paint
        when it was shown from its index (ui/opening.py)."""
        self.watcher = watcher
        self.search.live = LiveReads(vault, watcher, self.relay)
        self._on_watch_state(vault, watcher.state)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_folder(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        folder = dropped_folder(event)
        if folder is None:
            event.ignore()  # a file, a web link, text: not something to open as a vault
            return
        event.acceptProposedAction()
        self.open_vault(folder)

    # -- live changes ---------------------------------------------------------------
    def _on_live_change(self, vault: Vault, change: ChangeSet) -> None:
        if vault is self.vault:
            self.apply_change(change)

    def _on_repaired(self, vault: Vault, message: str, change: ChangeSet) -> None:
        """The engine met a damaged state.sqlite, set it aside and rebuilt the index: say so,
        and every pane reloads from the rebuilt index (no reopening needed)."""
        if vault is not self.vault:
            return
        self.statusBar().showMessage(message, 20000)
        self.apply_change(change)

    def _on_watch_state(self, vault: Vault, state: WatchState) -> None:
        if vault is not self.vault or self.watcher is None:  # (None: stopped, see live.vault_gone)
            return
        text, tip = describe_state(state)
        self.watch_state.setText(text)
        self.watch_state.setToolTip(tip)

    def apply_change(self, change: ChangeSet) -> None:
        """A reconcile changed the projections: every pane updates what it shows."""
        if change.empty or self.vault is None:
            return
        current = self.current_path
        if current is not None and current in change.paths and not (self.vault.root / current).exists():
            self.history.replace(current, None)
        # The record on screen follows at once; the other panes and the counts at most
        # every CHANGE_PANES_MS: during a burst (a git checkout) each reload of a
        # whole-vault view costs the UI thread tens of ms, once per ChangeSet otherwise.
        self.record.apply_change(change)
        self._held_changes.append(change)
        if not self._pane_cooldown.isActive():
            self._deliver_held_changes()
        if self.event_log is not None:
            self.event_log.write(change)
        self._update_actions()
        self._heap_timer.start()
        self.change_applied.emit(change)

    @property
    def settled(self) -> bool:
        """Nothing left to do: every worker request answered, no change held for the panes."""
        return self.runner.running == 0 and not self._held_changes

    def _deliver_held_changes(self) -> None:
        held, self._held_changes = self._held_changes, []
        vault = self.vault
        if not held or vault is None:
            return
        for pane in self.panes:
            if pane is not self.record:
                for change in held:  # keyed requests: only the last of each pane runs
                    pane.apply_change(change)
        self.runner.submit(vault.counts, self._show_counts, key="counts")
        self._pane_cooldown.start()

    def _show_counts(self, counts: dict[str, Any]) -> None:
        sev = counts["diagnostics"]
        # Every catalogued file is a record, a note or unrecognized (issue 25 §1).
        notes = counts.get("notes", counts["files"] - counts["records"] - counts["unrecognized"])
        noted = f"{notes:,} note{'' if notes == 1 else 's'} · " if notes else ""
        self.summary.setText(
            f"{_counted(counts['records'], 'record')} · {noted}{counts['unrecognized']:,} unrecognized"
            f" · {_counted(sev['error'], 'error')} · {_counted(sev['warning'], 'warning')}"
            f" · {sev['info']:,} info"
        )

    # -- navigation -------------------------------------------------------------------
    def open_record(self, key: str, line: int = 0) -> None:
        """Open a record by id or vault-relative path (ids shared by several files open the first)."""
        vault = self.vault
        if vault is None or not key:
            return
        self.runner.submit(
            lambda: vault.find(key), lambda rows: self._opened(key, rows, line), key="open-record"
        )

    def _opened(self, key: str, rows: list[dict[str, Any]], line: int) -> None:
        if not rows:
            self.statusBar().showMessage(f"No record or file {key!r} in this vault", 8000)
            return
        path = str(rows[0]["path"])
        self.history.push(path)  # a repeat of the current entry is not stored (the welcome
        self._focus(path, line)  # page may stand between: then the record is a new step)

    def _focus(self, path: str, line: int = 0) -> None:
        self.current_path = path
        for pane in self.panes:
            pane.set_current(path)
        if line:
            self.record.reveal_line(line)
        self._update_actions()
        self.current_changed.emit(path)

    def go_back(self) -> None:
        self._go(self.history.back())

    def go_forward(self) -> None:
        self._go(self.history.forward())

    def _go(self, path: str | None) -> None:
        if path == WELCOME:
            self.welcome.show()
            self._update_actions()
        elif path:
            self._focus(path)

    def visited(self, key: str) -> None:
        """Something other than a record came on screen (the welcome page): a step of Back."""
        self.history.push(key)
        self._update_actions()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.windowHandle()
            and event.type() == QEvent.Type.MouseButtonPress
            and isinstance(event, QMouseEvent)
        ):
            if event.button() == Qt.MouseButton.BackButton:
                self.go_back()
                return True
            if event.button() == Qt.MouseButton.ForwardButton:
                self.go_forward()
                return True
        return super().eventFilter(watched, event)

    def focus_pane(self, title: str) -> None:
        if title == "Record":
            pane: QWidget = self.record
        else:
            dock = self.docks[title]
            dock.show()
            dock.raise_()
            pane = dock.widget()
        focus = getattr(pane, "focus_target", None)
        target = focus() if callable(focus) else pane
        if not target.isVisibleTo(pane):
            # The pane shows a message in place of its list: focus its first control instead,
            # so the shortcut never leaves the focus in the pane the user left.
            target = first_focusable(pane) or pane
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def show_tag(self, tag: str) -> None:
        """A `#tag` was clicked in a note: the catalog lists what carries it."""
        self.catalog.show_tag(tag)
        self.focus_pane("Catalog")
        self.statusBar().showMessage(f"Catalog filtered by #{tag}", 8000)

    def focus_search(self) -> None:
        self.focus_pane("Search")

    def quick_switch(self) -> None:
        if self.vault is not None:
            self.search.quick_switch(self)

    def record_source(self) -> None:
        self.record.show_source()

    # -- acting on the record in focus ------------------------------------------------------
    def _current_file(self) -> Path | None:
        if self.vault is None or self.current_path is None:
            return None
        try:  # a listed link to outside: an editor would open whatever it points at
            real_path(self.vault.root, self.current_path)
        except LeavesVault:
            self.statusBar().showMessage(f"Not opened: {self.current_path} leads outside the vault", 8000)
            return None
        return self.vault.root / self.current_path

    def open_external(self) -> None:
        file = self._current_file()
        if file is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(file)))

    def reveal_file(self) -> None:
        file = self._current_file()
        if file is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(file.parent)))

    def copy_field(self, name: str) -> None:
        text = self.record.copy_text(name)
        if text:
            QGuiApplication.clipboard().setText(text)
            self.statusBar().showMessage(f"Copied {name}: {text}", 5000)

    def export_diagnostics(self) -> None:
        if self.vault is not None:
            self.diagnostics.export_dialog(self)

    def _update_actions(self) -> None:
        self.commands.update(
            has_record=self.current_path is not None,
            can_back=self.history.can_back(),
            can_forward=self.history.can_forward(),
            has_vault=self.vault is not None,
        )

    def _on_busy(self, running: int) -> None:
        if not running:
            while self._retired:
                self._retired.pop().close()
        if running:
            self.statusBar().setCursor(Qt.CursorShape.BusyCursor)
        else:
            self.statusBar().unsetCursor()

    # -- messages ------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def show_crash(self, trace: str) -> None:
        self.load_failed.emit(trace)
        show_crash(self, trace)

    # -- settings and closing ----------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        self._sized = isinstance(state, QByteArray) and self.restoreState(state)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:
            # First run: share the width out once the window has its real size.
            self._sized = True
            QTimer.singleShot(0, self._size_docks)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for pane in self.panes:
            save = getattr(pane, "save_settings", None)
            if callable(save):
                save(self.settings)
        self.settings.sync()
        self.past.close_live()
        self.repository.close_watchers()
        self._close_vault()
        self.runner.close()
        self._on_busy(0)
        super().closeEvent(event)

    def _close_vault(self) -> None:
        """Stop watching the open vault (joins the watcher thread) and close it."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.search.live = None
        self._held_changes.clear()  # they describe the vault going away
        self._pane_cooldown.stop()
        self.opener.stop_text()
        if self.vault is not None:
            # Workers may still be reading it; it is closed once they are all done.
            self._retired.append(self.vault)
            self.vault.on_repaired = None
            self.vault = None
            self.runner.guard = None
            self._on_busy(self.runner.running)


def _counted(count: int, noun: str) -> str:
    """`1 record`, `2 records`: the status bar reads as a sentence."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
