"""The record pane's Related line: records near this one by meaning that it does not link to
and that do not link to it (issue 27; `Vault.related`).

It loads on a background worker of its own key after the record shows, so the record never
waits for the model or for the vectors of a partition searched by meaning for the first time;
until the answer comes the line stays hidden, and it stays hidden when nothing is related.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.tasks import Runner

LIMIT = 5


class RelatedLine(QLabel):
    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.path: str | None = None
        self.items: list[dict[str, Any]] = []
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.setOpenExternalLinks(False)
        self.setContentsMargins(10, 4, 10, 6)
        self.setToolTip("Records near this one by meaning that it neither links to nor is linked from")
        self.hide()

    def set_record(self, vault: Vault | None, path: str | None) -> None:
        """Ask for the records related to `path` (None clears the line)."""
        self.path = path
        if vault is None or path is None:
            self._show(path, [])
            return
        # On the background pool: the first one embeds every queued file (minutes on a large
        # vault), which must not hold the threads the panes refresh on; while it runs, the
        # next records answer from what is embedded rather than queue behind it.
        self.runner.submit(
            lambda: vault.related(path, LIMIT, wait=False),
            lambda items: self._show(path, items),
            lambda _message: self._show(path, []),
            key="record-related",
            background=True,
        )

    def _show(self, path: str | None, items: list[dict[str, Any]]) -> None:
        if path != self.path:
            return  # the record in focus changed since
        self.items = items
        if not items:
            self.clear()
            self.hide()
            return
        links = " · ".join(
            f'<a href="record:{quote(str(i["path"]))}">{html.escape(str(i["title"] or i["path"]))}</a>'
            for i in items
        )
        self.setText(f"<b>Related</b>&nbsp; {links}")
        self.show()
