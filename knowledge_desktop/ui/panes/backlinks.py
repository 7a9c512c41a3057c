"""The Backlinks pane (placeholder until its pane lands)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from knowledge_desktop.ui.panes.base import Pane
from knowledge_desktop.ui.tasks import Runner


class BacklinksPane(Pane):
    title = "Backlinks"

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(runner, parent)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Backlinks"))
