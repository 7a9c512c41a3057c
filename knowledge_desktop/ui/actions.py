"""The window's commands: its QActions with their shortcuts, the menus and the toolbar.

Every command is a QAction added to the window, so its shortcut works
whichever pane has the focus. What a command does lives on the window (or a
pane); this module only says which commands exist, how they are reached and
when they are enabled.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QStyle

from knowledge_desktop.ui.dialogs import show_about

if TYPE_CHECKING:
    from knowledge_desktop.ui.knowledge_settings import KnowledgeSettings
    from knowledge_desktop.ui.view_changes import ViewChanges
    from knowledge_desktop.ui.window_parts import WindowParts

PANE_TITLES = ("Catalog", "Search", "Backlinks", "Timeline", "Diagnostics", "Repository")
"""The docked panes in the order of their Alt+1…Alt+6 focus shortcuts."""


class WindowActions:
    """The window's QActions, its menu bar and its navigation toolbar."""

    def __init__(self, window: WindowParts) -> None:
        self.window = window
        key = QKeySequence.StandardKey
        # Not the platform's Open (Ctrl+O): that one belongs to the quick switcher, as in code editors.
        self.open = self._action("&Open Vault…", window.opener.choose, "Ctrl+Shift+O", "Open a vault folder")
        self.demo = self._action(
            "Open &Demo Vault", window.opener.open_demo, None, "Open the bundled demo vault"
        )
        self.export = self._action(
            "&Export Diagnostics…",
            window.export_diagnostics,
            "Ctrl+E",
            "Write the diagnostics as HTML, JSON, CSV or Markdown",
        )
        self.add_repository = self._action(
            "Add &Repository…",
            self._choose_repository,
            None,
            "Show a documentation repository's decisions, concepts and changes beside this vault",
        )
        self.remove_repository = self._action(
            "Remo&ve Repository",
            lambda _checked=False: window.repository.remove_repository(),
            None,
            "Stop showing the repository selected in the Repository pane",
        )
        self.knowledge = self._action(
            "&Knowledge…",
            self._open_knowledge,
            None,
            "Extensions and agents installed in this vault, and what each may read or write",
        )
        self.knowledge_dialog: KnowledgeSettings | None = None
        """Settings › Knowledge while it is open (tests drive it)."""
        self.view_changes = self._action(
            "View &Changes…",
            self._open_view_changes,
            None,
            "What extensions and agents changed, by run: conflicts to decide and runs to revert",
        )
        self.changes_dialog: ViewChanges | None = None
        """View Changes while it is open (tests drive it)."""
        self.quit = self._action("&Quit", window.close, _keys("Ctrl+Q", key.Quit))
        self.back = self._action("&Back", window.go_back, _keys("Alt+Left", key.Back), "Go back")
        self.forward = self._action(
            "&Forward", window.go_forward, _keys("Alt+Right", key.Forward), "Go forward"
        )
        self.search = self._action("&Search…", window.focus_search, "Ctrl+K", "Search the vault by keyword")
        self.switch = self._action(
            "&Quick Switcher…",
            window.quick_switch,
            [QKeySequence("Ctrl+P"), QKeySequence("Ctrl+O")],
            "Jump to a record by title or alias",
        )
        self.edit = self._action(
            "Open in &External Editor",
            window.open_external,
            "Ctrl+Shift+E",
            "Open the record's file in your editor",
        )
        self.reveal = self._action(
            "&Reveal in File Manager",
            window.reveal_file,
            None,
            "Show the record's folder in the file manager",
        )
        self.copy_id = self._action("Copy &Id", lambda: window.copy_field("id"), "Ctrl+Shift+I")
        self.copy_path = self._action("Copy &Path", lambda: window.copy_field("path"), "Ctrl+Shift+C")
        self.copy_citation = self._action("Copy C&itation", lambda: window.copy_field("citation"))
        self.source = self._action(
            "Show &Source", window.record_source, "Ctrl+U", "Show the record's Markdown with line numbers"
        )
        self.about = self._action("&About Knowledge Desktop", lambda: show_about(window))
        self.record_actions = (
            self.source,
            self.edit,
            self.reveal,
            self.copy_id,
            self.copy_path,
            self.copy_citation,
        )
        """The commands that act on the record in focus (disabled while there is none)."""
        self.recent_menu = self._build_menus()
        self._build_toolbar()

    def _action(
        self,
        text: str,
        slot: Callable[..., Any],
        shortcut: QKeySequence | str | list[Any] | None = None,
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self.window)
        if isinstance(shortcut, list):
            action.setShortcuts(shortcut)
        elif shortcut is not None:
            action.setShortcut(shortcut)
        if tip:
            action.setStatusTip(tip)
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({keys})" if keys else tip)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def _build_menus(self) -> QMenu:
        """File, Go, Record, Settings, View and Help; returns the Open Recent menu (filled as it opens)."""
        window = self.window
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.open)
        recent = file_menu.addMenu("Open &Recent")
        recent.aboutToShow.connect(self._fill_recent)
        file_menu.addAction(self.demo)
        file_menu.addSeparator()
        file_menu.addAction(self.export)
        file_menu.addSeparator()
        file_menu.addAction(self.add_repository)
        file_menu.addAction(self.remove_repository)
        file_menu.addSeparator()
        file_menu.addAction(self.quit)
        go = bar.addMenu("&Go")
        for action in (self.back, self.forward, self.search, self.switch):
            go.addAction(action)
        record = bar.addMenu("&Record")
        for action in self.record_actions:
            record.addAction(action)
        settings = bar.addMenu("&Settings")
        settings.addAction(self.knowledge)
        settings.addAction(self.view_changes)
        view = bar.addMenu("&View")
        for title, dock in window.docks.items():
            action = dock.toggleViewAction()
            action.setText(f"{title} pane")
            view.addAction(action)
        for index, title in enumerate(PANE_TITLES, 1):
            self._action(f"Focus {title}", lambda _=False, t=title: window.focus_pane(t), f"Alt+{index}")
        self._action("Focus Record", lambda: window.focus_pane("Record"), "Alt+0")
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.about)
        return recent

    def _build_toolbar(self) -> None:
        toolbar = self.window.addToolBar("Navigation")
        toolbar.setObjectName("toolbar-navigation")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        style = self.window.style()
        pixmap = QStyle.StandardPixmap
        icons = {
            self.back: pixmap.SP_ArrowBack,
            self.forward: pixmap.SP_ArrowForward,
            self.switch: pixmap.SP_FileDialogContentsView,
            self.search: pixmap.SP_FileDialogDetailedView,
            self.open: pixmap.SP_DirOpenIcon,
        }
        for action, icon in icons.items():
            action.setIcon(style.standardIcon(icon))
        for action in (self.back, self.forward, self.switch, self.search):
            toolbar.addAction(action)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.window.opener.recent_vaults()
        for folder in recent:
            action = self.recent_menu.addAction(folder)
            action.triggered.connect(lambda _=False, f=folder: self.window.open_vault(Path(f)))
        if not recent:
            self.recent_menu.addAction("No recent vaults").setEnabled(False)

    def update(self, *, has_record: bool, can_back: bool, can_forward: bool, has_vault: bool) -> None:
        """Enable what makes sense now: record commands need a record, Back needs a past."""
        for action in self.record_actions:
            action.setEnabled(has_record)
        self.back.setEnabled(can_back)
        self.forward.setEnabled(can_forward)
        self.export.setEnabled(has_vault)
        self.add_repository.setEnabled(has_vault)
        self.remove_repository.setEnabled(has_vault)
        self.knowledge.setEnabled(has_vault)
        self.view_changes.setEnabled(has_vault)

    def _choose_repository(self) -> None:
        """File › Add Repository…: pick a folder; it is remembered for the open vault."""
        folder = QFileDialog.getExistingDirectory(self.window, "Add Documentation Repository")
        if folder:
            self.window.repository.add_repository(Path(folder))
            self.window.focus_pane("Repository")

    def _open_knowledge(self) -> None:
        """Settings › Knowledge… for the open vault (not a read-only one: grants are written)."""
        vault = self.window.vault
        if vault is None:
            return
        if vault.read_only:
            self.window.statusBar().showMessage(
                "This vault is read-only here: its extensions' permissions cannot be changed", 8000
            )
            return
        # imported when first opened: the knowledge API is not needed for the first paint
        from knowledge_desktop.ui.knowledge_settings import KnowledgeSettings

        self.knowledge_dialog = KnowledgeSettings(
            vault, self.window.runner, self.window, self._open_view_changes, self.window.open_record
        )
        self.knowledge_dialog.finished.connect(lambda _code: setattr(self, "knowledge_dialog", None))
        self.knowledge_dialog.open()

    def _open_view_changes(self) -> None:
        """Settings › View Changes… (also a button of Settings › Knowledge); it follows every
        publish while open."""
        vault = self.window.vault
        if vault is None:
            return
        if self.changes_dialog is not None:
            self.changes_dialog.raise_()
            return
        from knowledge_desktop.ui.view_changes import ViewChanges  # when first opened

        dialog = ViewChanges(vault, self.window.runner, self.window)
        self.window.change_applied.connect(dialog.apply_change)

        def closed(_code: int) -> None:
            self.window.change_applied.disconnect(dialog.apply_change)
            self.changes_dialog = None

        dialog.finished.connect(closed)
        self.changes_dialog = dialog
        dialog.open()


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
