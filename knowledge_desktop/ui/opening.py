"""Opening a vault: the worker that reads it, the progress shown meanwhile, and the freshness check.

A vault never indexed is read in full on a worker, with a progress bar and a
Cancel button in the status bar; the window gets the vault once it is read.
A vault indexed before is shown at once from its index; its watcher starts
after that, on a worker, and then the folder is compared with the index: what
changed meanwhile arrives as an ordinary ChangeSet. Opening another folder, or
Cancel, stops a read still running; the vault open before stays open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressBar, QToolButton

from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.fs.watch import VaultWatcher
from knowledge_desktop.engine.vault import TEXT_CHUNK, Vault
from knowledge_desktop.ui.live import start_watching
from knowledge_desktop.ui.render.values import literal
from knowledge_desktop.ui.window_parts import Opened

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts

MAX_RECENT = 10
"""Folders File > Open Recent lists."""
OFFLOAD_FROM = 100
"""Changed files from which a reconcile parses in worker processes (see engine/workers.py)."""

TEXT_PROGRESS_FROM = 2000
"""Records from which the search text build shows its progress (fewer take a moment)."""


class VaultOpener(QObject):
    """Opens vaults for one window, showing progress and a Cancel button in its status bar."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self._cancel = threading.Event()
        self._text_cancel = threading.Event()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop reading this vault; nothing is changed")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        window.statusBar().addPermanentWidget(self.progress)
        window.statusBar().addPermanentWidget(self.cancel_button)
        window.relay.progress.connect(self._on_progress)

    def open(self, path: Path) -> None:
        """Read `path` on a worker; the window takes the vault over once it is ready."""
        window = self.window
        cancel = self.begin(f"Opening {path}…")
        relay = window.relay
        watch = window.watch

        def work() -> Opened:
            vault = Vault.open(path)
            vault.parse_in_workers(OFFLOAD_FROM)
            vault.text_in_background = True  # `index_text` builds it; searches never wait for it
            watcher = None
            try:
                # A damaged page met here is repaired by the engine, as for any pane's query.
                if vault.repairing(vault.reconciler.indexed):
                    # Shown at once from its index. Starting the watcher (half a second at
                    # 100k files) waits until the window is painted: see `_watch_then_check`.
                    return vault, None, None, None
                # Watch first, then scan: an edit made during the scan is queued, not missed.
                watcher = start_watching(vault, relay) if watch else None
                change = vault.repairing(lambda: vault.reconcile(progress=self.report, cancel=cancel))
                return vault, watcher, change, vault.counts()
            except BaseException:
                if watcher is not None:
                    watcher.stop()
                vault.close()
                raise

        def loaded(result: Opened) -> None:
            self.hide_progress()
            window.adopt(result)
            if result[2] is None:
                self._watch_then_check(result[0], cancel)

        window.runner.submit(
            work,
            loaded,
            lambda message: self._failed(message, cancel),
            key="open-vault",
            on_dropped=_close_opened,
        )

    def begin(self, message: str) -> threading.Event:
        """A new open (a folder, or a vault as of a past date, ui/as_of.py) starts: an open
        still running stops; the new one's Cancel event, which the Cancel button sets."""
        self.window.statusBar().showMessage(message)
        self._cancel.set()
        self._cancel = threading.Event()
        return self._cancel

    def _watch_then_check(self, vault: Vault, cancel: threading.Event) -> None:
        """Start watching a vault shown from its index, then compare it with its folder.

        On a worker, after the window took the vault: the watcher's start walks every
        folder (half a second at 100k files), which the first paint no longer waits
        for. The watcher is in place before the freshness check begins, so an edit
        made meanwhile is either seen by the check or queued by the watcher; one made
        before the watcher started is seen by the check."""
        window = self.window
        if not window.watch:
            self._check_freshness(vault, cancel)
            return

        def started(watcher: VaultWatcher) -> None:
            if vault is not window.vault:  # another vault, or a past view, came meanwhile
                watcher.stop()
                return
            window.watching(vault, watcher)
            self._check_freshness(vault, cancel)

        failed = self._on_failure(
            vault, cancel, "Opening cancelled", f"Watching {vault.root} for changes failed"
        )
        window.runner.submit(
            lambda: start_watching(vault, window.relay),
            started,
            failed,
            key="watch",
            background=True,
            on_dropped=lambda watcher: watcher.stop(),
        )

    def _check_freshness(self, vault: Vault, cancel: threading.Event) -> None:
        """Compare an indexed vault with its folder; what changed meanwhile arrives as a ChangeSet."""
        window = self.window

        def done(change: ChangeSet) -> None:
            self.hide_progress()
            if vault is not window.vault:
                return
            window.apply_change(change)
            changed = len(change.paths)
            plural = "" if changed == 1 else "s"
            what = f"{changed} file{plural} changed since last time" if changed else "index up to date"
            window.statusBar().showMessage(f"Opened {vault.root} — {what}", 8000)
            window.after_fresh(vault)

        failed = self._on_failure(
            vault,
            cancel,
            "Check for changes cancelled; showing the index as last saved",
            f"Checking {vault.root} for changes failed",
        )

        window.statusBar().showMessage(f"Opened {vault.root} — checking for changes…")
        window.runner.submit(
            lambda: vault.reconcile(progress=self.report, cancel=cancel),
            done,
            failed,
            key="freshness",
            background=True,
        )

    def index_text(self, vault: Vault) -> None:
        """Index the search text of what changed (all of it, the first time) on a worker.

        In chunks, with a progress bar and Cancel in the status bar; a search
        typed meanwhile answers from what is indexed and says it is partial
        (`Vault.grep`). A cancelled build keeps its chunks; the rest is indexed
        the next time the vault is opened.
        """
        window = self.window
        self._text_cancel.set()  # a build still running for the vault before stops
        cancel = self._text_cancel = threading.Event()

        def done(_lag: bool) -> None:
            self.hide_progress()
            if vault is window.vault:
                window.search.refresh()  # a search shown meanwhile may have been partial

        failed = self._on_failure(
            vault,
            cancel,
            "Search text indexing stopped; searches show partial results until the vault is opened again",
            f"Indexing the search text of {vault.root} failed",
        )

        window.runner.submit(
            lambda: vault.index_keywords(progress=self.report, cancel=cancel, chunk=TEXT_CHUNK),
            done,
            failed,
            key="index-keywords",
            background=True,
        )

    def stop_text(self) -> None:
        """Stop a search text build (the vault is going away); what is indexed stays."""
        self._text_cancel.set()

    def report(self, stage: str, done: int, total: int) -> None:
        """Called on a worker: the progress crosses to the status bar by a queued signal."""
        self.window.relay.progress.emit(stage, done, total)

    def _on_failure(
        self, vault: Vault, cancel: threading.Event, cancelled: str, failure: str
    ) -> Callable[[str], None]:
        """What a background step over `vault` does when it stops: says it was
        cancelled, or shows why it failed (nothing once another vault is shown)."""

        def failed(message: str) -> None:
            self.hide_progress()
            if vault is not self.window.vault:
                return
            if cancel.is_set():
                self.window.statusBar().showMessage(cancelled, 10000)
            else:
                self.window.show_error(f"{failure}: {message}")

        return failed

    def choose(self) -> None:
        """Ask for a folder (starting beside the vault open now) and open it.

        Beside the demo is the app's data folder, where nobody keeps a vault: from the
        demo (a new user looking for their own vault) it starts in the home folder."""
        from knowledge_desktop.ui.demo import is_demo

        vault = self.window.vault
        start = str(vault.root.parent) if vault and not is_demo(vault.root) else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self.window, "Open Vault", start)
        if folder:
            self.open(Path(folder))

    def open_demo(self) -> None:
        """The person's copy of the demo vault, never the install folder's (ui/demo.py)."""
        from knowledge_desktop.ui.demo import demo_copy

        try:
            path = demo_copy()
        except OSError as exc:
            self.window.show_error(f"Could not copy the demo vault into your data folder: {exc}")
            return
        self.open(path)

    # -- the folders opened before, newest first (File > Open Recent, and the next start) --
    def recent_vaults(self) -> list[str]:
        value = self.window.settings.value("recentVaults", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def remember(self, root: Path) -> None:
        recent = [str(root)] + [p for p in self.recent_vaults() if p != str(root)]
        self.window.settings.setValue("recentVaults", recent[:MAX_RECENT])
        self.window.settings.setValue("lastVault", str(root))

    def last_vault(self) -> Path | None:
        value = self.window.settings.value("lastVault")
        return Path(str(value)) if value else None

    def cancel(self) -> None:
        """Stop a vault that is still being read (the one open before stays open), or
        the search text build."""
        self._cancel.set()
        self._text_cancel.set()

    def hide_progress(self) -> None:
        self.progress.hide()
        self.cancel_button.hide()

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        if stage == "reading" and total >= 200:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat("Reading %v of %m files")
        elif stage == "indexing":
            self.progress.setRange(0, 0)  # no count: a busy bar
            self.progress.setFormat("Indexing…")
        elif stage == "text" and total >= TEXT_PROGRESS_FROM and done < total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat("Search text: %v of %m records")
        elif stage not in ("reading", "text") and total >= 200 and done < total:
            # another long step (an as-of view's checkout): counted, and it can be cancelled
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat(f"{stage.capitalize()}: %v of %m")
        else:
            return
        self.progress.show()
        self.cancel_button.setVisible(stage != "indexing")

    def _failed(self, message: str, cancel: threading.Event) -> None:
        window = self.window
        self.hide_progress()
        window.load_failed.emit(message)
        if cancel.is_set():
            window.statusBar().showMessage("Opening cancelled; nothing was changed", 10000)
            return
        window.statusBar().showMessage(message, 10000)
        QMessageBox.warning(window, "Cannot open vault", literal(message))


def _close_opened(result: Opened) -> None:
    """A vault opened for nobody (another folder was opened meanwhile, or the window closed)."""
    vault, watcher, _change, _counts = result
    if watcher is not None:
        watcher.stop()
    vault.close()


def dropped_folder(event: QDropEvent) -> Path | None:
    """The local folder a drag carries first, if it carries one."""
    urls = event.mimeData().urls()
    if urls and urls[0].isLocalFile() and Path(urls[0].toLocalFile()).is_dir():
        return Path(urls[0].toLocalFile())
    return None
