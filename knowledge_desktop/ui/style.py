"""The application's look: Fusion, with a palette that follows the system scheme.

Fusion draws the same on every platform and honours palettes fully, so the
window can switch between light and dark when the system does (Qt reports
the scheme through `QStyleHints.colorScheme`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory


def dark_palette() -> QPalette:
    palette = QPalette()
    role = QPalette.ColorRole
    colors = {
        role.Window: "#2b2d30",
        role.WindowText: "#dfe1e5",
        role.Base: "#1e1f22",
        role.AlternateBase: "#26282b",
        role.ToolTipBase: "#3c3f41",
        role.ToolTipText: "#dfe1e5",
        role.Text: "#dfe1e5",
        role.Button: "#34363a",
        role.ButtonText: "#dfe1e5",
        role.BrightText: "#ff6b6b",
        role.Link: "#6aa7ff",
        role.LinkVisited: "#b08cff",
        role.Highlight: "#2f65ca",
        role.HighlightedText: "#ffffff",
        role.PlaceholderText: "#8c8f94",
    }
    for r, color in colors.items():
        palette.setColor(r, QColor(color))
    for r in (role.Text, role.WindowText, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, r, QColor("#75787d"))
    return palette


def is_dark(app: QApplication) -> bool:
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_style(app: QApplication) -> None:
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)
    light = app.style().standardPalette()

    def follow() -> None:
        app.setPalette(dark_palette() if is_dark(app) else light)

    follow()
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: follow())
