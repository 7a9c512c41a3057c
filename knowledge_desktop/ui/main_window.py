"""The main window: five panes over one open vault, and the ways to get around.

Layout: the catalog and search results share the left dock, the record is
the central widget, backlinks sit on the right, timeline and diagnostics
share the bottom. The window owns the vault, the navigation history and the
record in focus; panes ask to open records through `open_requested` and the
window tells every pane what is in focus (`Pane.set_current`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QThreadPool, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QMouseEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QStyle,
    QTabWidget,
    QToolButton,
    QWidget,
)

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.fs.watch import VaultWatcher, WatchState
from knowledge_desktop.engine.heap import return_free_heap
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.dialogs import show_about, show_crash
from knowledge_desktop.ui.history import History
from knowledge_desktop.ui.live import EventLog, LiveRelay, describe_state, start_watching
from knowledge_desktop.ui.panes.backlinks import BacklinksPane
from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.panes.catalog import CatalogPane
from knowledge_desktop.ui.panes.diagnostics import DiagnosticsPane
from knowledge_desktop.ui.panes.record import RecordPane
from knowledge_desktop.ui.panes.search import SearchPane
from knowledge_desktop.ui.panes.timeline import TimelinePane
from knowledge_desktop.ui.process import tune_for_window
from knowledge_desktop.ui.tasks import Runner

MAX_RECENT = 10
HEAP_QUIET_MS = 10_000
CHANGE_PANES_MS = 500
"""Shortest time between two ChangeSet deliveries to the panes other than the record."""
OFFLOAD_FROM = 100
"""Changed files from which a reconcile parses in worker processes (see engine/workers.py)."""

Opened = tuple[Vault, VaultWatcher | None, ChangeSet | None, dict[str, Any] | None]
"""What opening a vault hands the window: the vault, its watcher, the first scan's
ChangeSet and counts (both None when the vault was indexed before: the window shows
the index at once and checks the folder for changes afterwards)."""


class MainWindow(QMainWindow):
    loaded = Signal()
    load_failed = Signal(str)
    current_changed = Signal(str)
    change_applied = Signal(object)

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
        # ChangeSets for the panes other than the record wait here during a burst
        # (see apply_change).
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
        self._opening = threading.Event()
        self.relay = LiveRelay(self)
        self.relay.changed.connect(self._on_live_change)
        self.relay.state_changed.connect(self._on_watch_state)
        self.relay.failed.connect(self.show_error)
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
        # Panes hear of a change in this order, and their queries queue for the workers
        # in it: the record on screen first, the slow whole-vault views last.
        self.panes: list[Pane] = [
            self.record,
            self.catalog,
            self.backlinks,
            self.search,
            self.diagnostics,
            self.timeline,
        ]
        for pane in self.panes:
            pane.open_requested.connect(self.open_record)
            pane.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.setCentralWidget(self.record)
        self.docks: dict[str, QDockWidget] = {}
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        self._dock(self.catalog, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock(self.search, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock(self.backlinks, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock(self.timeline, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dock(self.diagnostics, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["Catalog"], self.docks["Search"])
        self.tabifyDockWidget(self.docks["Timeline"], self.docks["Diagnostics"])
        for title in ("Catalog", "Search", "Backlinks", "Timeline", "Diagnostics"):
            # A tab or the pane's own heading names each; a title bar would say it twice.
            self.docks[title].setTitleBarWidget(QWidget())
        self.docks["Catalog"].raise_()
        self.docks["Diagnostics"].raise_()

        self.summary = QLabel("")
        self.summary.setToolTip("Records, unrecognized files and diagnostics by severity")
        self.watch_state = QLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop reading this vault; nothing is changed")
        self.cancel_button.clicked.connect(self.cancel_open)
        self.cancel_button.hide()
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self.relay.progress.connect(self._on_progress)
        self.statusBar().addPermanentWidget(self.watch_state)
        self.statusBar().addPermanentWidget(self.summary)
        self._build_actions()
        self._restore_settings()
        # Mouse back/forward buttons are caught on this window's QWindow, which sees
        # each input event once before any widget does. (An application-wide filter
        # would run Python — and wait for the interpreter lock — on every event of
        # every object, which stalls the window whenever a worker is busy.)
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

    def _action(
        self, text: str, slot: Any, shortcut: QKeySequence | str | list[Any] | None = None, tip: str = ""
    ) -> QAction:
        action = QAction(text, self)
        if isinstance(shortcut, list):
            action.setShortcuts(shortcut)
        elif shortcut is not None:
            action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({keys})" if keys else tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        key = QKeySequence.StandardKey
        # Not the platform's Open (Ctrl+O): that one belongs to the quick switcher, as in code editors.
        self.act_open = self._action("&Open Vault…", self.choose_vault, "Ctrl+Shift+O", "Open a vault folder")
        self.act_demo = self._action("Open &Demo Vault", self.open_demo, None, "Open the bundled demo vault")
        self.act_export = self._action(
            "&Export Diagnostics…",
            self.export_diagnostics,
            "Ctrl+E",
            "Write the diagnostics as HTML, JSON, CSV or Markdown",
        )
        self.act_quit = self._action("&Quit", self.close, _keys("Ctrl+Q", key.Quit))
        self.act_back = self._action("&Back", self.go_back, _keys("Alt+Left", key.Back), "Go back")
        self.act_forward = self._action(
            "&Forward", self.go_forward, _keys("Alt+Right", key.Forward), "Go forward"
        )
        self.act_search = self._action("&Search…", self.focus_search, "Ctrl+K", "Search the vault by keyword")
        self.act_switch = self._action(
            "&Quick Switcher…",
            self.quick_switch,
            [QKeySequence("Ctrl+P"), QKeySequence("Ctrl+O")],
            "Jump to a record by title or alias",
        )
        self.act_edit = self._action(
            "Open in &External Editor",
            self.open_external,
            "Ctrl+Shift+E",
            "Open the record's file in your editor",
        )
        self.act_reveal = self._action(
            "&Reveal in File Manager", self.reveal_file, None, "Show the record's folder in the file manager"
        )
        self.act_copy_id = self._action("Copy &Id", lambda: self.copy_field("id"), "Ctrl+Shift+I")
        self.act_copy_path = self._action("Copy &Path", lambda: self.copy_field("path"), "Ctrl+Shift+C")
        self.act_copy_citation = self._action("Copy C&itation", lambda: self.copy_field("citation"))
        self.act_source = self._action(
            "Show &Source", self.record_source, "Ctrl+U", "Show the record's Markdown with line numbers"
        )
        self.act_about = self._action("&About Knowledge Desktop", lambda: show_about(self))

        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.act_open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addAction(self.act_demo)
        file_menu.addSeparator()
        file_menu.addAction(self.act_export)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        go = bar.addMenu("&Go")
        for action in (self.act_back, self.act_forward, self.act_search, self.act_switch):
            go.addAction(action)
        record = bar.addMenu("&Record")
        for action in (
            self.act_source,
            self.act_edit,
            self.act_reveal,
            self.act_copy_id,
            self.act_copy_path,
            self.act_copy_citation,
        ):
            record.addAction(action)
        view = bar.addMenu("&View")
        for title, dock in self.docks.items():
            action = dock.toggleViewAction()
            action.setText(f"{title} pane")
            view.addAction(action)
        for index, title in enumerate(("Catalog", "Search", "Backlinks", "Timeline", "Diagnostics"), 1):
            self._action(f"Focus {title}", lambda _=False, t=title: self.focus_pane(t), f"Alt+{index}")
        self._action("Focus Record", lambda: self.focus_pane("Record"), "Alt+0")
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.act_about)
        toolbar = self.addToolBar("Navigation")
        toolbar.setObjectName("toolbar-navigation")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        style = self.style()
        pixmap = QStyle.StandardPixmap
        icons = {
            self.act_back: pixmap.SP_ArrowBack,
            self.act_forward: pixmap.SP_ArrowForward,
            self.act_switch: pixmap.SP_FileDialogContentsView,
            self.act_search: pixmap.SP_FileDialogDetailedView,
            self.act_open: pixmap.SP_DirOpenIcon,
        }
        for action, icon in icons.items():
            action.setIcon(style.standardIcon(icon))
        for action in (self.act_back, self.act_forward, self.act_switch, self.act_search):
            toolbar.addAction(action)
        self._update_actions()

    # -- opening vaults ---------------------------------------------------------------
    def open_vault(self, path: Path) -> None:
        self.statusBar().showMessage(f"Opening {path}…")
        self._opening.set()  # an open still running for another folder stops
        cancel = self._opening = threading.Event()
        relay = self.relay
        watch = self.watch

        def progress(stage: str, done: int, total: int) -> None:
            relay.progress.emit(stage, done, total)

        def work() -> Opened:
            vault = Vault.open(path)
            vault.parse_in_workers(OFFLOAD_FROM)
            # Watch first, then scan: an edit made during the scan is queued, not missed.
            watcher = start_watching(vault, relay) if watch else None
            try:
                if vault.reconciler.indexed():
                    # Show the index at once; the freshness check follows as a live change.
                    return vault, watcher, None, None
                change = vault.reconcile(progress=progress, cancel=cancel)
                counts = vault.counts()
            except BaseException:
                if watcher is not None:
                    watcher.stop()
                vault.close()
                raise
            return vault, watcher, change, counts

        def loaded(
            result: tuple[Vault, VaultWatcher | None, ChangeSet | None, dict[str, Any] | None],
        ) -> None:
            self._on_loaded(result)
            if result[2] is None:
                self._check_freshness(result[0], progress, cancel)

        self.runner.submit(work, loaded, lambda message: self._on_failed(message, cancel), key="open-vault")

    def _check_freshness(
        self, vault: Vault, progress: Callable[[str, int, int], None], cancel: threading.Event
    ) -> None:
        """Compare an indexed vault with its folder; what changed meanwhile arrives as a ChangeSet."""

        def done(change: ChangeSet) -> None:
            self._hide_progress()
            if vault is not self.vault:
                return
            self.apply_change(change)
            changed = len(change.paths)
            plural = "" if changed == 1 else "s"
            what = f"{changed} file{plural} changed since last time" if changed else "index up to date"
            self.statusBar().showMessage(f"Opened {vault.root} — {what}", 8000)
            self._after_fresh(vault)

        def failed(message: str) -> None:
            self._hide_progress()
            if vault is not self.vault:
                return
            if cancel.is_set():
                self.statusBar().showMessage(
                    "Check for changes cancelled; showing the index as last saved", 10000
                )
            else:
                self.show_error(f"Checking {vault.root} for changes failed: {message}")

        self.statusBar().showMessage(f"Opened {vault.root} — checking for changes…")
        self.runner.submit(
            lambda: vault.reconcile(progress=progress, cancel=cancel), done, failed, key="freshness"
        )

    def _after_fresh(self, vault: Vault) -> None:
        # Index the search text now, so the first search does not pay for it.
        self.runner.submit(vault.index_keywords, lambda _: None, key="index-keywords")
        if self.watch:
            # Load what live updates need now, so the first outside edit lands as fast as the rest.
            self.runner.submit(vault.warm_up, lambda _: None, key="warm-up")
        self._heap_timer.start()

    def _return_free_heap(self) -> None:
        if self.runner.running:
            self._heap_timer.start()  # panes still loading: wait until they are quiet
            return
        self.runner.submit(return_free_heap, lambda _: None, key="return-heap")

    def _hide_progress(self) -> None:
        self.progress.hide()
        self.cancel_button.hide()

    def cancel_open(self) -> None:
        """Stop a vault that is still being read; the one open before stays open."""
        self._opening.set()

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        if stage == "reading" and total >= 200:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat("Reading %v of %m files")
        elif stage == "indexing":
            self.progress.setRange(0, 0)  # no count: a busy bar
            self.progress.setFormat("Indexing…")
        else:
            return
        self.progress.show()
        self.cancel_button.setVisible(stage == "reading")

    def _on_loaded(self, result: Opened) -> None:
        vault, watcher, change, counts = result
        self._hide_progress()
        self._close_vault()
        self.vault = vault
        self.watcher = watcher
        if watcher is not None:
            self._on_watch_state(vault, watcher.state)
        self.current_path = None
        self.history = History()
        for pane in self.panes:
            pane.set_vault(vault)
        self.setWindowTitle(f"{vault.root.name} — Knowledge Desktop")
        if counts is not None:
            self._show_counts(counts)
        else:
            self.runner.submit(vault.counts, self._show_counts, key="counts")
        self._remember_vault(vault.root)
        self._update_actions()
        if change is not None:
            note = " (read-only folder: index kept in the cache directory)" if vault.read_only else ""
            self.statusBar().showMessage(f"Opened {vault.root} — {change.parsed} files read{note}", 8000)
            if self.event_log is not None and not change.empty:
                self.event_log.write(change)
            self._after_fresh(vault)
        self.loaded.emit()

    def _on_failed(self, message: str, cancel: threading.Event | None = None) -> None:
        self._hide_progress()
        self.load_failed.emit(message)
        if cancel is not None and cancel.is_set():
            self.statusBar().showMessage("Opening cancelled; nothing was changed", 10000)
            return
        self.statusBar().showMessage(message, 10000)
        QMessageBox.warning(self, "Cannot open vault", message)

    def choose_vault(self) -> None:
        start = str(self.vault.root.parent) if self.vault else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open Vault", start)
        if folder:
            self.open_vault(Path(folder))

    def open_demo(self) -> None:
        self.open_vault(demo_vault_path())

    def recent_vaults(self) -> list[str]:
        value = self.settings.value("recentVaults", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _remember_vault(self, root: Path) -> None:
        recent = [str(root)] + [p for p in self.recent_vaults() if p != str(root)]
        self.settings.setValue("recentVaults", recent[:MAX_RECENT])
        self.settings.setValue("lastVault", str(root))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_vaults()
        for folder in recent:
            action = self.recent_menu.addAction(folder)
            action.triggered.connect(lambda _=False, f=folder: self.open_vault(Path(f)))
        if not recent:
            self.recent_menu.addAction("No recent vaults").setEnabled(False)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _dropped_folder(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        folder = _dropped_folder(event)
        if folder is None:
            event.ignore()  # a file, a web link, text: not something to open as a vault
            return
        event.acceptProposedAction()
        self.open_vault(folder)

    # -- live changes ---------------------------------------------------------------
    def _on_live_change(self, vault: Vault, change: ChangeSet) -> None:
        if vault is self.vault:
            self.apply_change(change)

    def _on_watch_state(self, vault: Vault, state: WatchState) -> None:
        if vault is not self.vault:
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
        self.summary.setText(
            f"{counts['records']} records · {counts['unrecognized']} unrecognized · "
            f"{sev['error']} errors · {sev['warning']} warnings · {sev['info']} info"
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
        if path != self.current_path:
            self.history.push(path)
        self._focus(path, line)

    def _focus(self, path: str, line: int = 0) -> None:
        self.current_path = path
        for pane in self.panes:
            pane.set_current(path)
        if line:
            self.record.reveal_line(line)
        self._update_actions()
        self.current_changed.emit(path)

    def go_back(self) -> None:
        path = self.history.back()
        if path:
            self._focus(path)

    def go_forward(self) -> None:
        path = self.history.forward()
        if path:
            self._focus(path)

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
            target = _first_focusable(pane) or pane
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

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
        has_record = self.current_path is not None
        for action in (
            self.act_edit,
            self.act_reveal,
            self.act_copy_id,
            self.act_copy_path,
            self.act_copy_citation,
            self.act_source,
        ):
            action.setEnabled(has_record)
        self.act_back.setEnabled(self.history.can_back())
        self.act_forward.setEnabled(self.history.can_forward())
        self.act_export.setEnabled(self.vault is not None)

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

    def last_vault(self) -> Path | None:
        value = self.settings.value("lastVault")
        return Path(str(value)) if value else None

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        for pane in self.panes:
            save = getattr(pane, "save_settings", None)
            if callable(save):
                save(self.settings)
        self.settings.sync()
        self._close_vault()
        self.runner.close()
        self._on_busy(0)
        super().closeEvent(event)

    def _close_vault(self) -> None:
        """Stop watching the open vault (joins the watcher thread) and close it."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self._held_changes.clear()  # they describe the vault going away
        self._pane_cooldown.stop()
        if self.vault is not None:
            # Workers may still be reading it; it is closed once they are all done.
            self._retired.append(self.vault)
            self.vault = None
            self._on_busy(self.runner.running)


def _dropped_folder(event: QDropEvent) -> Path | None:
    """The local folder a drag carries first, if it carries one."""
    urls = event.mimeData().urls()
    if urls and urls[0].isLocalFile() and Path(urls[0].toLocalFile()).is_dir():
        return Path(urls[0].toLocalFile())
    return None


def _keys(own: str, standard: QKeySequence.StandardKey) -> list[QKeySequence]:
    """`own` and the platform's bindings for `standard`, each once, Backspace left out.

    A key listed twice on one action makes Qt call the shortcut ambiguous and do
    nothing (Alt+Left is both ours and the platform's Back), and Backspace means
    "delete" to anyone typing in a list's filter or a search box.
    """
    keys: list[QKeySequence] = []
    for sequence in [QKeySequence(own), *QKeySequence.keyBindings(standard)]:
        text = sequence.toString()
        if "Backspace" not in text and text not in {k.toString() for k in keys}:
            keys.append(sequence)
    return keys


def _first_focusable(pane: QWidget) -> QWidget | None:
    """The first widget inside `pane`, in Tab order, that Tab would stop at."""
    widget = pane.nextInFocusChain()
    while widget is not None and widget is not pane:
        if (
            pane.isAncestorOf(widget)
            and widget.isVisibleTo(pane)
            and widget.isEnabled()
            and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        ):
            return widget
        widget = widget.nextInFocusChain()
    return None
