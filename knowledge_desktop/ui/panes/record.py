"""The Record pane (placeholder until its pane lands)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner


class RecordPane(Pane):
    title = "Record"

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Record"))

    def reveal_line(self, line: int) -> None:
        """Show the file's source scrolled to a one-based line."""

    def show_source(self) -> None:
        """Switch to the raw Markdown view."""

    def copy_text(self, name: str) -> str | None:
        """The current record's id, path or citation, for the clipboard."""
        return None
