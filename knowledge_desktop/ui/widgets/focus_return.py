"""Give the keyboard focus back to where it was once a dialog closes (issue 29, §8).

A window-modal dialog opened with `open()` takes the focus; when it closes, Qt
gives the focus back to the window, not always to the widget that had it
(under some window managers the window itself ends up focused and the
keyboard seems dead). The widget that had the focus is remembered when the
command starts and focused again after the dialog is gone — if it still
exists and can take it, and no other dialog took over meanwhile.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget


def focused_now() -> QWidget | None:
    """The widget with the keyboard focus now."""
    return QApplication.focusWidget()


def return_focus_after(dialog: QDialog, to: QWidget | None) -> None:
    """When `dialog` finishes, focus `to` again (after the dialog's own focus handling)."""
    if to is None or to.window() is dialog:
        return
    dialog.finished.connect(lambda _code: focus_again(to))


def focus_again(to: QWidget) -> None:
    """Focus `to` once the events in hand are handled (a closing dialog's own focus moves
    first) — if it still exists, can take it, and no other dialog took over meanwhile.
    A dialog shown again and again (the quick switcher) calls this from its one `finished`
    connection rather than adding one per showing."""

    def restore() -> None:
        if not shiboken6.isValid(to) or not to.isVisible() or not to.isEnabled():
            return
        if QApplication.activeModalWidget() is not None:  # another dialog took over
            return
        to.activateWindow()
        to.setFocus()

    QTimer.singleShot(0, to, restore)
