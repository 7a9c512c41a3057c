"""Settings › Your name: who the window's writes are by (issue 29, §4).

The journal, the provenance ("Saved by") and every `lifecycle_change.actor`
name whoever published a write. The engine's default is the OS login name
(the CLI's `--actor` overrides it), which on a desktop run as root reads
`root`. The window names a person instead: the name set here (QSettings),
else the OS account's full name (the GECOS field on Unix), else the login
name.
"""

from __future__ import annotations

import getpass
import os

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QVBoxLayout,
    QWidget,
)

KEY = "you/name"


def os_full_name() -> str:
    """The account's full name (GECOS, up to its first comma), else the login name."""
    try:
        import pwd  # Unix only

        gecos = pwd.getpwuid(os.getuid()).pw_gecos.split(",", 1)[0].strip()
    except (ImportError, KeyError, AttributeError, OSError):
        gecos = ""
    if gecos:
        return gecos
    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError):
        return "unknown"


def your_name(settings: QSettings) -> str:
    """The actor of this window's writes."""
    value = settings.value(KEY)
    name = value.strip() if isinstance(value, str) else ""
    return name or os_full_name()


class YourNameDialog(QDialog):
    """Type the name your writes are recorded under; empty means the OS account's."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Your Name — Knowledge Desktop")
        note = QLabel(
            "Your writes are recorded under this name: in the Activity pane, in each record's "
            f"history and in its lifecycle changes. Left empty: {os_full_name()} (this computer's account)."
        )
        note.setWordWrap(True)
        saved = settings.value(KEY)
        self.name = QLineEdit(saved if isinstance(saved, str) else "")
        self.name.setPlaceholderText(os_full_name())
        # Wide enough for its title in the title bar (with the window manager's icon and
        # buttons) and for a full name in the field: the walkthrough saw "Your Nam… Desktop".
        metrics = self.fontMetrics()
        em = metrics.horizontalAdvance("M")
        self.setMinimumWidth(max(metrics.horizontalAdvance(self.windowTitle()) + 12 * em, 32 * em))
        self.name.setMinimumWidth(metrics.horizontalAdvance(os_full_name()) + 4 * em)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.name)
        layout.addWidget(buttons)

    def accept(self) -> None:
        name = self.name.text().strip()
        if name:
            self.settings.setValue(KEY, name)
        else:
            self.settings.remove(KEY)
        super().accept()


class YourName:
    """Settings › Your Name…, and the name it keeps."""

    def __init__(self, window: QMainWindow, settings: QSettings) -> None:
        self.window, self.settings = window, settings
        self.dialog: YourNameDialog | None = None
        """The dialog while it is open (tests drive it)."""
        self.action = QAction("Your &Name…", window)
        self.action.setStatusTip("The name your writes are recorded under")
        self.action.triggered.connect(lambda _checked=False: self.open())
        menu = next((a.menu() for a in window.menuBar().actions() if a.text() == "&Settings"), None)
        if isinstance(menu, QMenu):
            menu.addAction(self.action)

    def name(self) -> str:
        return your_name(self.settings)

    def open(self, parent: QWidget | None = None) -> YourNameDialog:
        """Open the dialog over `parent` (the window unless a dialog asks, as the publish
        dialog's "Change in Settings › Your Name…" does)."""
        dialog = self.dialog = YourNameDialog(self.settings, parent or self.window)
        dialog.finished.connect(lambda _code: setattr(self, "dialog", None))
        dialog.open()
        return dialog
