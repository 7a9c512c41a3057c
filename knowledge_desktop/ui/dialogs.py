"""The About box and the crash dialog (bugs reach the user with a traceback to copy).

A bug surfaces two ways: on a worker, where the Runner catches it and hands
the traceback over (ui/tasks.py), and on the main thread, where an exception
escaping a slot or an event handler goes to `sys.excepthook`. The hook
installed here sends the second kind to the same dialog, so no bug is only a
line on a terminal the user never sees.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from types import TracebackType

from PySide6 import __version__ as pyside_version
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


def app_version() -> str:
    try:
        return version("knowledge-desktop")
    except PackageNotFoundError:
        return "development"


def show_about(parent: QWidget) -> None:
    QMessageBox.about(
        parent,
        "About Knowledge Desktop",
        f"<h3>Knowledge Desktop {app_version()}</h3>"
        "<p>See, search and check a vault of Markdown knowledge records "
        "(<code>knowledge-record-v1</code>): pages, claims with their evidence, and typed "
        "relationships.</p>"
        "<p>Markdown stays authoritative: browsing never writes your files; the index "
        "lives in the vault's <code>.knowledge/</code> folder.</p>"
        f"<p>Qt for Python {pyside_version}</p>",
    )


class CrashDialog(QDialog):
    """An unexpected error: what happened, the traceback, and a button to copy it."""

    def __init__(self, trace: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Knowledge Desktop — internal error")
        self.resize(720, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "Something went wrong inside Knowledge Desktop. Your files were not changed.\n"
                "Please copy the details below into a bug report."
            )
        )
        self.details = QPlainTextEdit(trace)
        self.details.setReadOnly(True)
        # A traceback lines its ^^^ markers up under the code: keep its columns and its lines.
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        layout.addWidget(self.details)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy details", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(trace))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


def show_crash(parent: QWidget, trace: str) -> None:
    dialog = CrashDialog(trace, parent)
    dialog.setModal(False)
    dialog.show()


def install_crash_hook(report: Callable[[str], None]) -> Callable[[], None]:
    """Route exceptions that escape on the main thread to `report(traceback)`.

    Returns the function that puts the previous hook back (the app calls it on
    exit). The previous hook still runs first, so the traceback also reaches
    stderr; Ctrl+C in a terminal stays a plain interrupt.
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, trace: TracebackType | None) -> None:
        previous(kind, value, trace)
        if issubclass(kind, KeyboardInterrupt):
            return
        text = "".join(traceback.format_exception(kind, value, trace))
        try:
            report(text)
        except Exception:  # the dialog itself failed: stderr has the original already
            previous(*sys.exc_info())

    def restore() -> None:
        sys.excepthook = previous

    sys.excepthook = hook
    return restore
