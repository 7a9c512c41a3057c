"""The Activity dock: the vault's write journal, newest first.

Each entry shows its operation, target, state, who and when, and what came
of it: a receipt (files written, the reason), a conflict (someone changed a
file while the write was in flight; its three versions are kept) or a
failure. A conflict can be reviewed (its folder opened) and then marked
reviewed (`resume --reviewed`); an interrupted (pending) entry can be
resumed. Read on a worker, like every pane (`Vault.journal`). Above the journal, checkpoints
still pending and Retry (panes/activity_checkpoints.py). Undo asks the window to undo the
entry selected (`undo_requested`; ui/undo.py runs it) when it has an undo, and its
tooltip says why not otherwise (engine/write/undoing.py).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
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
from knowledge_desktop.engine.write import undoing
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.panes.activity_checkpoints import CheckpointsPanel, utc_seconds
from knowledge_desktop.ui.tasks import Runner

LIMIT = 200
COLUMNS = ("When", "Operation", "Record", "State", "By", "Details")


def entry_details(entry: dict[str, Any]) -> str:
    """What came of one journal entry, in words."""
    receipt, outcome = entry.get("receipt") or {}, entry.get("outcome") or {}
    if entry["state"] == "published" and receipt:
        items = receipt.get("items") or []
        reason = f" — “{receipt['reason']}”" if receipt.get("reason") else ""
        impact = len((receipt.get("impact") or {}).get("items") or [])
        extra = f", {impact} dependent(s) to review" if impact else ""
        return f"receipt: {len(items)} file(s) written{extra}{reason}"
    if outcome.get("code") == "write-conflict":
        reviewed = "reviewed" if entry.get("reviewedAt") else "not reviewed yet"
        return f"conflict ({reviewed}): {outcome.get('path', '')} changed while the write was in flight"
    if entry["state"] == "pending":
        return "interrupted: not finished yet (Resume carries it out or rolls it back)"
    return f"failed: {outcome.get('message', outcome.get('code', 'rolled back'))}"


def needs_review(entry: dict[str, Any]) -> bool:
    outcome = entry.get("outcome") or {}
    return outcome.get("code") == "write-conflict" and not entry.get("reviewedAt")


class ActivityPane(QWidget):
    title = "Activity"
    refreshed = Signal()
    """The journal is shown as it is now."""
    undo_requested = Signal(dict)
    """Undo the write whose receipt this is (the window runs it)."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.vault: Vault | None = None
        self.entries: list[dict[str, Any]] = []
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        for column, width in enumerate((170, 90, 200, 90, 80)):
            self.tree.setColumnWidth(column, width)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.review_button = QPushButton("Review")
        self.review_button.setToolTip("Open the conflict's folder: what was proposed, seen and found")
        self.review_button.clicked.connect(self.review)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setToolTip("Finish an interrupted write, or report its conflict again")
        self.resume_button.clicked.connect(lambda: self.resume(reviewed=False))
        self.reviewed_button = QPushButton("Mark Reviewed")
        self.reviewed_button.setToolTip("The conflict was looked at (resume --reviewed); its warning ends")
        self.reviewed_button.clicked.connect(lambda: self.resume(reviewed=True))
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self.undo_selected)
        self.status = QLabel("")
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.status, 1)
        for button in (self.review_button, self.resume_button, self.reviewed_button, self.undo_button):
            bar.addWidget(button)
        self.checkpoints = CheckpointsPanel(runner)  # pending checkpoints and Retry (issue 15)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.checkpoints)
        layout.addLayout(bar)
        layout.addWidget(self.tree, 1)
        self._update_buttons()

    def set_vault(self, vault: Vault | None) -> None:
        self.vault = vault
        self.refresh()

    def refresh(self) -> None:
        vault = self.vault
        self.checkpoints.set_vault(vault)
        if vault is None:
            self._show([])
            return
        self.runner.submit(lambda: vault.journal(LIMIT)["items"], self._show, key="activity")

    def _show(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.tree.clear()
        for entry in entries:
            row = QTreeWidgetItem(
                [
                    utc_seconds(entry.get("at")),
                    str(entry.get("operation") or ""),
                    str(entry.get("targetId") or ""),
                    str(entry.get("state") or ""),
                    str(entry.get("actor") or ""),
                    entry_details(entry),
                ]
            )
            row.setToolTip(5, row.text(5))
            self.tree.addTopLevelItem(row)
        conflicts = sum(needs_review(e) for e in entries)
        note = f" · {conflicts} conflict(s) to review" if conflicts else ""
        self.status.setText(f"{len(entries)} write(s){note}" if entries else "No writes yet")
        self._update_buttons()
        self.refreshed.emit()

    def selected(self) -> dict[str, Any] | None:
        row = self.tree.currentIndex().row()
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def _update_buttons(self) -> None:
        entry = self.selected()
        conflict = entry is not None and (entry.get("outcome") or {}).get("code") == "write-conflict"
        self.review_button.setEnabled(conflict)
        self.reviewed_button.setEnabled(entry is not None and needs_review(entry))
        self.resume_button.setEnabled(entry is not None and (entry["state"] == "pending" or conflict))
        receipt = (
            (entry or {}).get("receipt") if entry is not None and entry["state"] == "published" else None
        )
        can = undoing.undoable(receipt) if receipt else None
        self.undo_button.setEnabled(can is not None and can.blocked is None)
        self.undo_button.setText(can.label if can is not None else "Undo")
        self.undo_button.setToolTip(
            "Select a published write to undo it"
            if can is None
            else can.blocked or f"{can.label}: a new write, journaled, that puts back what this one changed"
        )

    def review(self) -> None:
        entry = self.selected()
        folder = (entry or {}).get("outcome", {}).get("conflictDir") if entry else None
        if folder:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def resume(self, *, reviewed: bool) -> None:
        entry, vault = self.selected(), self.vault
        if entry is None or vault is None:
            return
        request_id = str(entry["requestId"])

        def work() -> str:
            try:
                receipt = vault.resume(request_id, reviewed=reviewed)
            except WriteRejected as rejected:
                return f"{rejected.code}: {rejected.message}"
            return f"{receipt.get('operation')} {receipt.get('targetId')}: published"

        self.runner.submit(work, self._resumed)

    def undo_selected(self) -> None:
        """Ask for the selected entry's undo; its result reaches the panes as a ChangeSet."""
        entry = self.selected()
        receipt = (entry or {}).get("receipt")
        if entry is not None and entry["state"] == "published" and isinstance(receipt, dict):
            self.undo_requested.emit(receipt)

    def _resumed(self, message: str) -> None:
        self.status.setText(message)
        self.refresh()
