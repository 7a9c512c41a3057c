"""Focus helpers for the window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def first_focusable(pane: QWidget) -> QWidget | None:
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
