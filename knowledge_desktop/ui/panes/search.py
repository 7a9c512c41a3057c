"""The Search pane (placeholder until its pane lands)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner


class SearchPane(Pane):
    title = "Search"

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Search"))

    def quick_switch(self, parent: QWidget) -> None:
        """Open the quick switcher (jump to a record by title or alias)."""

    def set_query(self, text: str) -> None:
        """Put text into the search box (as if typed) and search."""
