"""The record pane's Related line: records near this one by meaning that it does not link to
and that do not link to it (issue 27; `Vault.related`).

It loads on a background worker of its own key after the record shows, so the record never
waits for the model; until the answer comes the line stays hidden, and it stays hidden when
nothing is related, or when the vault's passages were never embedded and are too many to embed
for one record shown (a first search by meaning embeds them).
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from knowledge_desktop.engine.vault import EMBED_STEP, Vault
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
        # It embeds what an edit left queued (a step's worth at most), never a whole vault:
        # that is the first search by meaning's to do (or `knowledge scan --embed`); until
        # then a large vault's line answers from what is embedded, or stays hidden. On the
        # background pool, and without waiting for another thread's embedding.
        self.runner.submit(
            lambda: vault.related(path, LIMIT, wait=False, embed_at_most=EMBED_STEP),
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
