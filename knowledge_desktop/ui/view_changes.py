"""View Changes: what extensions, agents and the person changed, by run, with the conflicts
on top (issue 16 §4; spec: facts-entities-collections-api, "Changes and undo").

The person sees every actor's changes (`vault_api.person_changes`): runs newest
first, each a row naming its actor with its changes below it. An open
conflict — an extension's value that was not written because the person's own
stands — is listed above the runs with the proposed and the current value;
Accept makes the proposed value the person's own, Reject keeps theirs
(`engine/api/conflicts.py`). Revert Run undoes the selected run through
`changes.revert` as the person and says what was reverted, skipped or failed.

Every read and write runs on a worker; the lists reload in place after each
publish (the window's `change_applied`), keeping the selected run selected.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.api import changes, conflicts, user_facts
from knowledge_desktop.engine.api.changes import RevertResult
from knowledge_desktop.engine.api.conflicts import Conflict
from knowledge_desktop.engine.changes import ChangeSet
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import person_changes

if TYPE_CHECKING:
    from knowledge_desktop.ui.tasks import Runner

RUN_ROLE = Qt.ItemDataRole.UserRole
CONFLICT_COLUMNS = ("Subject", "Fact", "Proposed", "Yours (kept for now)", "Proposed by", "When")
CHANGE_COLUMNS = ("Run / change", "Who", "Status", "When")
NO_CHANGES = "Nothing has been changed through the knowledge API in this vault yet."


def when(at: str) -> str:
    return f"{at[:10]} {at[11:16]} UTC" if len(at) >= 16 else at


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def who(actor: str) -> str:
    return "You" if actor == changes.PERSON else actor.removeprefix("extension:")


Loaded = tuple[list[Conflict], list[changes.Change], dict[str, str]]


def load_changes(vault: Vault) -> Loaded:
    """Runs on a worker: the open conflicts, every change (newest first), and what each fact
    change's claim says (`predicate = value`, by claim id)."""
    found = changes.list_changes(person_changes(vault))
    said = user_facts.describe_claims(vault.store, [c.target for c in found if c.target])
    return conflicts.open_conflicts(vault.store), found, said


def summarize(result: RevertResult) -> str:
    """One line of counts, then one line per change not reverted (its note)."""
    count = {s: sum(i.status == s for i in result.items) for s in ("reverted", "skipped", "failed")}
    lines = [f"Reverted {count['reverted']}, skipped {count['skipped']}, failed {count['failed']}."]
    lines += [
        f"{i.status}: change {i.ref} ({i.op}) — {i.note}" for i in result.items if i.status != "reverted"
    ]
    return "\n".join(lines)


class ViewChanges(QDialog):
    """The dialog; `conflict_list` and `runs` are the two lists (tests read them)."""

    def __init__(self, vault: Vault, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("View Changes")
        self.setObjectName("viewChanges")
        self.resize(900, 600)
        self.vault, self.runner = vault, runner
        self.conflicts: list[Conflict] = []
        self.changes: list[changes.Change] = []
        self._shown_once = False
        self.said: dict[str, str] = {}
        self.conflict_box = QGroupBox("Conflicts: an extension proposed a value you had given")
        self.conflict_list = _tree(CONFLICT_COLUMNS, (120, 150, 150, 150, 100, 120))
        self.conflict_list.setMaximumHeight(160)
        self.conflict_list.currentItemChanged.connect(lambda *_: self._enable())
        self.accept_button = QPushButton("Accept")
        self.accept_button.setToolTip("The proposed value becomes yours")
        self.accept_button.clicked.connect(lambda: self._decide(accept=True))
        self.reject_button = QPushButton("Reject")
        self.reject_button.setToolTip("Your value stays; the proposal is closed")
        self.reject_button.clicked.connect(lambda: self._decide(accept=False))
        conflict_buttons = QHBoxLayout()
        conflict_buttons.addStretch(1)
        conflict_buttons.addWidget(self.accept_button)
        conflict_buttons.addWidget(self.reject_button)
        box = QVBoxLayout(self.conflict_box)
        box.addWidget(self.conflict_list)
        box.addLayout(conflict_buttons)
        self.conflict_box.setVisible(False)
        self.runs = _tree(CHANGE_COLUMNS, (430, 150, 90, 130))
        self.runs.setRootIsDecorated(True)
        self.runs.currentItemChanged.connect(lambda *_: self._enable())
        self.revert_button = QPushButton("Revert Run")
        self.revert_button.setToolTip("Undo every change of the selected run, newest first")
        self.revert_button.clicked.connect(self.revert_selected)
        self.status = QLabel("Reading the changes…")
        self.status.setObjectName("changesStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.revert_button, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.conflict_box)
        layout.addWidget(QLabel("<b>Changes by run</b>, newest first"))
        layout.addWidget(self.runs, 5)
        layout.addLayout(bottom)
        layout.addWidget(buttons)
        self._enable()
        self.reload()

    # -- data ---------------------------------------------------------------------------
    def reload(self) -> None:
        vault = self.vault
        self.runner.submit(lambda: load_changes(vault), self._loaded, self._failed, key="view-changes")

    def apply_change(self, change: ChangeSet) -> None:
        """A publish or an outside edit: the lists are read again (selection kept)."""
        if not change.empty:
            self.reload()

    def _loaded(self, found: Loaded) -> None:
        self.conflicts, self.changes, self.said = found
        self._fill_conflicts()
        self._fill_runs()
        if self.status.text().startswith("Reading"):
            self.status.setText(NO_CHANGES if not self.changes else "")
        self._enable()

    def _failed(self, message: str) -> None:
        self.status.setText(f"Could not read or change the changes: {message}")
        self._enable()

    def _fill_conflicts(self) -> None:
        selected = self.selected_conflict()
        kept = selected.seq if selected is not None else None
        self.conflict_list.clear()
        for c in self.conflicts:
            item = QTreeWidgetItem(
                [
                    c.subject,
                    c.predicate,
                    shown(c.proposed),
                    shown(c.current),
                    who(c.actor),
                    when(c.created_at),
                ]
            )
            item.setData(0, RUN_ROLE, c.seq)
            item.setToolTip(1, f"{c.predicate} in partition {c.scope}")
            self.conflict_list.addTopLevelItem(item)
            if c.seq == kept:
                self.conflict_list.setCurrentItem(item)
        self.conflict_box.setTitle(
            f"{len(self.conflicts)} conflict{'s' if len(self.conflicts) != 1 else ''}: "
            "an extension proposed a value where you had given one"
        )
        self.conflict_box.setVisible(bool(self.conflicts))

    def _fill_runs(self) -> None:
        kept = self.selected_run()
        bar = self.runs.verticalScrollBar()
        position = bar.value()
        expanded = {top.data(0, RUN_ROLE) for top in self._tops() if top.isExpanded()}
        groups: dict[tuple[str, str], list[changes.Change]] = {}
        for change in self.changes:  # newest first, so runs come newest first too
            groups.setdefault((change.run_id or "", change.actor), []).append(change)
        self.runs.clear()
        for (run_id, actor), items in groups.items():
            undone = sum(c.status == "reverted" for c in items)
            state = f"{undone} of {len(items)} reverted" if undone else ""
            label = f"{run_id or '(no run)'} — {len(items)} change{'s' if len(items) != 1 else ''}"
            top = QTreeWidgetItem([label, who(actor), state, when(items[0].created_at)])
            top.setData(0, RUN_ROLE, run_id)
            top.setToolTip(1, actor)
            for c in items:
                what = self.said.get(c.target or "")
                text = f"{c.op.replace('-', ' ')}: {what}" if what and c.status != "conflict" else c.summary
                child = QTreeWidgetItem([f"#{c.ref}  {text}", who(c.actor), c.status, when(c.created_at)])
                child.setData(0, RUN_ROLE, run_id)
                child.setToolTip(0, f"{c.summary}\n{c.op} {c.target or ''}".strip())
                top.addChild(child)
            self.runs.addTopLevelItem(top)
            first = not self._shown_once and self.runs.topLevelItemCount() <= 3  # the newest runs open
            top.setExpanded(run_id in expanded or first)
            if run_id and run_id == kept:
                self.runs.setCurrentItem(top)
        bar.setValue(min(position, bar.maximum()))
        self._shown_once = self._shown_once or bool(groups)

    # -- selection --------------------------------------------------------------------
    def selected_conflict(self) -> Conflict | None:
        item = self.conflict_list.currentItem()
        seq = item.data(0, RUN_ROLE) if item is not None else None
        return next((c for c in self.conflicts if c.seq == seq), None)

    def selected_run(self) -> str | None:
        item = self.runs.currentItem()
        run = item.data(0, RUN_ROLE) if item is not None else None
        return str(run) if run else None

    def select_run(self, run_id: str) -> None:
        for top in self._tops():
            if top.data(0, RUN_ROLE) == run_id:
                self.runs.setCurrentItem(top)
                return

    def _tops(self) -> list[QTreeWidgetItem]:
        found = (self.runs.topLevelItem(i) for i in range(self.runs.topLevelItemCount()))
        return [top for top in found if top is not None]

    def _enable(self) -> None:
        writable = not self.vault.read_only
        has_conflict = self.selected_conflict() is not None
        self.accept_button.setEnabled(writable and has_conflict)
        self.reject_button.setEnabled(writable and has_conflict)
        self.revert_button.setEnabled(writable and self.selected_run() is not None)

    # -- the person's decisions -----------------------------------------------------------
    def _decide(self, *, accept: bool) -> None:
        conflict = self.selected_conflict()
        if conflict is None:
            return
        vault, seq = self.vault, conflict.seq

        def work() -> str:
            if accept:
                conflicts.accept(person_changes(vault), vault.root, seq)
                return f"{conflict.predicate} is now {shown(conflict.proposed)}, as you accepted."
            conflicts.reject(person_changes(vault), seq)
            return f"{conflict.predicate} stays {shown(conflict.current)}; the proposal is closed."

        self.accept_button.setEnabled(False)
        self.reject_button.setEnabled(False)
        self.runner.submit(work, self._done, self._failed)

    def revert_selected(self) -> None:
        run_id = self.selected_run()
        if run_id is None:
            return
        vault = self.vault
        self.revert_button.setEnabled(False)
        self.status.setText(f"Reverting run {run_id}…")
        self.runner.submit(
            lambda: summarize(changes.revert(person_changes(vault), run_id=run_id)), self._done, self._failed
        )

    def _done(self, message: str) -> None:
        self.status.setText(message)
        self.reload()


def _tree(columns: tuple[str, ...], widths: tuple[int, ...]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(list(columns))
    tree.setRootIsDecorated(False)
    tree.setAlternatingRowColors(True)
    tree.setUniformRowHeights(True)
    for column, width in enumerate(widths):
        tree.setColumnWidth(column, width)
    return tree
