"""The Activity dock's checkpoint line (issue 15 §3): checkpoints still pending, with
the reason each is waiting, a Retry button, and why checkpoints are unavailable when
they are.

A pending checkpoint never means a lost write: the file is published; only its copy in
the history repository waits (`knowledge checkpoints --pending`). Retry runs
`VaultHistory.retry` on a worker and shows the outbox it answers. When nothing waits
and checkpoints work, the panel hides itself: the journal below says enough.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.tasks import Runner

COLUMNS = ("Queued", "Operation", "Request", "Why it waits")


def utc_seconds(at: object) -> str:
    """`2026-12-02T06:44:10.923Z` as `2026-12-02 06:44:10 UTC`: the journal's and the
    outbox's times are UTC (the Activity pane's rows use it too)."""
    text = str(at or "")
    return f"{text[:10]} {text[11:19]} UTC" if len(text) >= 19 else text


class CheckpointsPanel(QWidget):
    shown = Signal()
    """The outbox is shown as the engine last answered it."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.vault: Vault | None = None
        self.pending: list[dict[str, Any]] = []
        self.unavailable: str | None = None
        self.observed_stuck = 0
        """Outside edits noted but not checkpointed because the last try failed."""
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip("Try again to record the pending checkpoints in the history repository")
        self.retry_button.clicked.connect(self.retry)
        self.list = QTreeWidget()
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setMaximumHeight(110)
        for column, width in enumerate((170, 90, 200)):
            self.list.setColumnWidth(column, width)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.retry_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.addLayout(bar)
        layout.addWidget(self.list)
        self.hide()

    def set_vault(self, vault: Vault | None) -> None:
        self.vault = vault
        self.refresh()

    def refresh(self) -> None:
        vault = self.vault
        if vault is None:
            self._show({"unavailable": None, "outbox": []})
            return
        self.runner.submit(
            lambda: vault.history.checkpoints(pending_only=True),
            self._show,
            self._failed,
            key="activity-checkpoints",
        )

    def retry(self) -> None:
        """Commit the pending checkpoints now, on a worker; then show what still waits."""
        vault = self.vault
        if vault is None or vault.read_only:
            return
        self.retry_button.setEnabled(False)
        self.status.setText("Retrying the pending checkpoints…")
        self.runner.submit(vault.history.retry, self._retried, self._failed, key="activity-checkpoints")

    def _retried(self, listing: dict[str, Any]) -> None:
        before = len(self.pending)
        self._show(listing)
        if before and not self.pending and not self.unavailable:
            self.status.setText(f"{before} checkpoint(s) recorded.")
            self.show()

    def _failed(self, message: str) -> None:
        self.status.setText(f"The checkpoints cannot be read now: {message}")
        self.retry_button.setEnabled(False)
        self.show()

    def _show(self, listing: dict[str, Any]) -> None:
        self.unavailable = listing.get("unavailable")
        self.pending = [r for r in listing.get("outbox") or [] if r.get("state") == "pending"]
        self.list.clear()
        for row in self.pending:
            item = QTreeWidgetItem(
                [
                    utc_seconds(row.get("createdAt")),
                    str(row.get("operation") or ""),
                    str(row.get("requestId") or ""),
                    str(row.get("reason") or "not committed yet"),
                ]
            )
            item.setToolTip(3, item.text(3))
            self.list.addTopLevelItem(item)
        observed = listing.get("observed") or {}
        # outside edits whose observed checkpoint failed (not those merely waiting for the timer)
        self.observed_stuck = int(observed.get("paths") or 0) if observed.get("reason") else 0
        if self.observed_stuck:
            item = QTreeWidgetItem(
                ["", "outside edits", f"{self.observed_stuck} file(s)", str(observed.get("reason"))]
            )
            item.setToolTip(3, item.text(3))
            self.list.addTopLevelItem(item)
        count = len(self.pending) + (1 if self.observed_stuck else 0)
        if self.unavailable:
            self.status.setText(
                f"Checkpoints are unavailable: {self.unavailable}. Writes are still saved; "
                "their versions are not recorded in the history."
            )
        elif count:
            first = self.pending[0].get("reason") if self.pending else observed.get("reason")
            self.status.setText(
                f"{count} checkpoint(s) pending: the writes are saved, their history copy waits. "
                f"Last reason: {first or 'not committed yet'}"
            )
        writable = self.vault is not None and not self.vault.read_only
        self.retry_button.setEnabled(writable and count > 0 and not self.unavailable)
        self.retry_button.setVisible(count > 0)
        self.list.setVisible(count > 0)
        self.setVisible(bool(self.unavailable) or count > 0)
        self.shown.emit()
