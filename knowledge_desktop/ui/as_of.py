"""File › Open As Of…: the vault as it stood at a past date or checkpoint (issue 15 §3).

The person picks a date or one of the recent checkpoints (`AsOfDialog`). The engine
builds a read-only vault from that checkpoint's tree into a temporary state
(`engine.asof.open_as_of`) on a worker, with the status bar's progress and Cancel
(ui/opening.py, `VaultOpener.begin`/`report`). The window then shows it like any vault —
every pane works — under a banner naming the date, with Back to Now; write commands
are off because the vault is read-only.

The live vault stays open meanwhile (its watcher stopped), so "Compare with Now" can
diff a record between the as-of checkpoint and the file on disk, and the History tab
keeps reading the live history. Back to Now opens the live folder again (its index is
current, so it shows at once and checks for changes made meanwhile) and closes the
as-of vault, whose temporary state goes with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QRadioButton,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.history import History
from knowledge_desktop.ui.panes.record_history import DiffDialog, when
from knowledge_desktop.ui.render.word_diff import render_word_diff
from knowledge_desktop.ui.tasks import Runner

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts

CHOICES = 200


def engine_asof() -> Any:
    """The engine's as-of module, imported when first needed."""
    return importlib.import_module("knowledge_desktop.engine.asof")


class AsOfDialog(QDialog):
    """Pick a day (the vault as it stood at its end) or one recent checkpoint."""

    def __init__(self, runner: Runner, vault: Vault, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Open {vault.root.name} As Of")
        self.by_date = QRadioButton("As it was at the end of the day")
        self.by_date.setChecked(True)
        self.date = QDateEdit(QDate.currentDate())
        self.date.setCalendarPopup(True)
        self.date.setMaximumDate(QDate.currentDate())
        self.date.setDisplayFormat("yyyy-MM-dd")
        self.by_checkpoint = QRadioButton("As it was after a checkpoint")
        self.list = QListWidget()
        self.list.addItem("Reading the checkpoints…")
        self.list.setEnabled(False)
        self.list.itemSelectionChanged.connect(lambda: self.by_checkpoint.setChecked(True))
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        button = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(button.Open | button.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.by_date)
        row.addWidget(self.date)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.by_checkpoint)
        layout.addWidget(self.list, 1)
        layout.addWidget(QLabel("The vault opens read-only; nothing in it changes."))
        layout.addWidget(buttons)
        self.resize(520, 420)
        root = vault.root
        runner.submit(
            lambda: engine_asof().checkpoint_choices(root, CHOICES),
            self._fill,
            self._fill_error,
        )

    def _fill(self, choices: list[dict[str, Any]]) -> None:
        self.list.clear()
        for choice in choices:
            parts = [when(choice.get("at")), choice.get("operation") or "edit", choice.get("author")]
            item = QListWidgetItem(" · ".join(str(p) for p in parts if p))
            item.setData(Qt.ItemDataRole.UserRole, choice)
            self.list.addItem(item)
        if not choices:
            self.list.addItem("No checkpoints yet: the vault has no past to show.")
        self.list.setEnabled(bool(choices))
        self.by_checkpoint.setEnabled(bool(choices))

    def _fill_error(self, message: str) -> None:
        self.list.clear()
        self.list.addItem(f"The checkpoints cannot be listed: {message}")
        self.by_checkpoint.setEnabled(False)

    def chosen(self) -> tuple[str, str]:
        """`(at, label)`: what `open_as_of` is given and what the banner says."""
        item = self.list.currentItem()
        choice = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if self.by_checkpoint.isChecked() and isinstance(choice, dict):
            return str(choice["commit"]), when(choice.get("at"))
        day = self.date.date().toString("yyyy-MM-dd")
        return day, day


class AsOfView(QObject):
    """File › Open As Of…, the banner, Back to Now and Compare with Now."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.live: Vault | None = None
        """The vault as it is now, kept open while a past one is shown."""
        self.dialog: QDialog | None = None
        self.label_text = ""
        """The date or checkpoint shown, as the person picked it."""
        self.reopen: str | None = None
        """The record open when the person went to the past or back to now: opened again once
        the other vault is shown (issue 29, §8), so the switch keeps what they were reading."""
        self.kept_history: History | None = None
        """The window's Back/Forward history across the switch: a vault shown afresh starts
        its own, but the past and the present hold the same paths, so Back goes on (the
        walkthrough found Back disabled after Back to Now)."""
        self.label = QLabel("")
        self.back_button = QPushButton("Back to Now")
        self.back_button.clicked.connect(self.back_to_now)
        strip = QWidget()
        row = QHBoxLayout(strip)
        row.setContentsMargins(10, 4, 10, 4)
        row.addWidget(self.label, 1)
        self.compare_button = QToolButton()
        row.addWidget(self.compare_button)
        row.addWidget(self.back_button)
        self.banner = QToolBar("As Of")
        self.banner.setObjectName("toolbar-as-of")
        self.banner.setMovable(False)
        self.banner.addWidget(strip)
        window.addToolBarBreak()
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.banner)
        self.banner.hide()
        self.open_action = QAction("Open As &Of…", window)
        self.open_action.setStatusTip("Show the vault as it was at a past date or checkpoint, read-only")
        self.open_action.triggered.connect(self.choose)
        self.compare = QAction("Compare with &Now", window)
        self.compare.setStatusTip("The difference between this record then and the file now")
        self.compare.triggered.connect(self.compare_with_now)
        self.compare_button.setDefaultAction(self.compare)
        menus = {a.text(): a.menu() for a in window.menuBar().actions()}
        file_menu, record_menu = menus["&File"], menus["&Record"]
        assert isinstance(file_menu, QMenu)
        assert isinstance(record_menu, QMenu)
        file_menu.insertAction(window.commands.export, self.open_action)
        record_menu.insertAction(record_menu.actions()[0], self.compare)
        window.loaded.connect(self._loaded)
        window.current_changed.connect(lambda _path: self.update())
        self.update()

    @property
    def as_of(self) -> dict[str, Any] | None:
        shown = getattr(self.window.vault, "as_of", None)
        return shown if isinstance(shown, dict) else None

    def update(self) -> None:
        self.open_action.setEnabled(self.window.vault is not None)
        self.compare.setEnabled(self.as_of is not None and self.window.current_path is not None)

    # -- opening ---------------------------------------------------------------------
    def choose(self) -> None:
        vault = self.live or self.window.vault
        if vault is None:
            return
        dialog = AsOfDialog(self.window.runner, vault, self.window)
        self.dialog = dialog
        dialog.accepted.connect(lambda: self.open(*dialog.chosen()))
        dialog.open()

    def open(self, at: str, label: str) -> None:
        """Build the vault as of `at` on a worker, then show it in the window."""
        window = self.window
        live = self.live or window.vault
        if live is None:
            return
        opener = window.opener
        self.reopen, self.kept_history = window.current_path, window.history
        cancel = opener.begin(f"Opening {live.root.name} as of {label}…")
        root = live.root

        def failed(message: str) -> None:
            opener.hide_progress()
            if cancel.is_set():
                window.statusBar().showMessage("Opening as of a past date cancelled", 10000)
            else:
                window.show_error(f"{live.root.name} cannot be shown as of {label}: {message}")

        window.runner.submit(
            lambda: engine_asof().open_as_of(root, at, progress=opener.report, cancel=cancel),
            lambda vault: self._show(live, vault, label),
            failed,
            key="open-vault",
            on_dropped=lambda vault: vault.close(),
        )

    def _show(self, live: Vault, vault: Vault, label: str) -> None:
        window = self.window
        window.opener.hide_progress()
        if window.vault is not live and self.live is not live:
            vault.close()  # another folder was opened meanwhile
            return
        self.label_text = label
        if window.vault is live:
            # Keep the live vault open (for Compare with Now); only its watcher stops.
            watcher, window.watcher, window.vault = window.watcher, None, None
            if watcher is not None:
                watcher.stop()
        self.live = live
        window.adopt((vault, None, None, None))
        window.statusBar().showMessage(f"Showing {live.root.name} as of {label}, read-only", 8000)

    def _loaded(self) -> None:
        window, shown = self.window, self.as_of
        if shown is None:
            live, self.live = self.live, None
            if live is not None and live is not window.vault:
                window.runner.submit(live.close, lambda _none: None)
            window.record.history.live = None
            self.banner.hide()
        else:
            name = self.live.root.name if self.live is not None else ""
            label = when(shown.get("at")) if shown.get("at") else self.label_text
            self.label.setText(f"Viewing {name} as of {label} — read-only")
            window.watch_state.setText("Past view, read-only")
            window.watch_state.setToolTip("A vault as of a checkpoint does not change: Back to Now goes live")
            self.label.setToolTip(f"Checkpoint {shown.get('commit')} ({shown.get('source') or 'checkpoint'})")
            window.setWindowTitle(f"{name} as of {label} (read-only) — Knowledge Desktop")
            window.record.history.live = self.live
            colors = window.record._colors()
            self.banner.setStyleSheet(f"QToolBar {{ background: {colors.tint('warning')}; }}")
            self.label.setStyleSheet(f"color: {colors.text}; font-weight: 600;")
            self.banner.show()
        self.update()
        reopen, self.reopen = self.reopen, None
        kept, self.kept_history = self.kept_history, None
        if reopen is not None and window.vault is not None:
            if kept is not None:
                window.history = kept
            window.open_record(reopen)

    def close_live(self) -> None:
        """The window closes: the live vault kept open behind a past view closes too."""
        live, self.live = self.live, None
        if live is not None and live is not self.window.vault:
            live.close()

    def back_to_now(self) -> None:
        live = self.live
        if live is not None:
            self.reopen, self.kept_history = self.window.current_path, self.window.history
            self.window.open_vault(live.root)

    # -- compare -------------------------------------------------------------------------
    def compare_with_now(self) -> None:
        """The diff of the record shown between the as-of checkpoint and the file now."""
        shown, live, loaded = self.as_of, self.live, self.window.record.loaded
        if shown is None or live is None or loaded is None or not loaded.view.get("id"):
            self.window.show_error("Compare with Now needs a record with an id, shown as of a past date.")
            return
        record_id, commit = str(loaded.view["id"]), str(shown["commit"])
        colors = self.window.record._colors()
        label = self.label_text or str(shown.get("at") or "")
        dialog = DiffDialog(f"{record_id}: as of {label} → now", self.window)
        self.dialog = dialog
        history = live.history
        self.window.runner.submit(
            lambda: render_word_diff(
                history.diff(record_id, from_=commit, to="now"),
                colors,
                empty_text="This record is the same now as it was then.",
            ),
            dialog.show_diff,
            dialog.show_error,
        )
        dialog.open()
