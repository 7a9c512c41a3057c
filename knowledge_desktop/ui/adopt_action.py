"""File › Adopt Notes…: the window's `knowledge adopt` (docs/writing.md, "Adopting notes").

The action opens `AdoptDialog`, which runs the dry run on a worker (through
`Vault.preview`, so nothing is written) and lists what would change: each
note's new title, type and the aliases it gains, the files skipped and why,
the names that reach two notes, the links that would point into another
partition. The person sets the page type per folder or per note and files a
note in its type's folder or leaves it where it is (`ChoicesTable`, issue
29 §5); each choice runs the dry run again, and Adopt writes what it showed.
It starts on the whole vault (every partition, as `knowledge adopt`
without `--partition`); the Partition choice narrows it to one. Adopt
publishes the run on a worker, under Your Name, fenced
by the dry run's hashes (the CLI's `--expect`): a file changed since refuses
the whole run and the dialog says which, nothing written. The files' new
frontmatter reaches the panes as the publish's ChangeSet (`Vault.on_publish`,
relayed by the window), like every other write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.reading import activate_partition
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import adoption
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.adopt_choices import Choices, ChoicesTable
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.write_ops import describe_receipt

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts

WHOLE_VAULT = "Whole vault"
"""The Partition choice that adopts every partition in one run (`partition` None)."""


@dataclass(frozen=True, slots=True)
class DryRun:
    scopes: list[str]
    page_types: dict[str, list[str]]
    """Each partition's page types, as its ontology defines them."""
    result: dict[str, Any] | WriteRejected


def dry_run(vault: Vault, partition: str | None, choices: Choices | None = None) -> DryRun:
    """Runs on a worker: the vault's partitions and their page types, and what adopting
    `partition` (None: the whole vault) with `choices` would do, or why it cannot."""
    activations = vault.reconciler.ontologies()
    types = {
        scope: [d.name for d in a.ontology.page_types()] if a.ontology is not None else []
        for scope, a in activations.items()
    }
    choices = choices or Choices()
    try:
        result: dict[str, Any] | WriteRejected = adoption.previewed(
            vault.preview,
            partition,
            type_map=choices.type_map(),
            move=choices.move,
            root_into=choices.root_into if partition is None else None,
        )
    except WriteRejected as rejected:
        result = rejected
    into = result.get("rootInto") if isinstance(result, dict) else None
    if into is not None and into not in types:  # a partition the run would create
        created = activate_partition(vault.root, into).ontology
        types[into] = [d.name for d in created.page_types()] if created is not None else []
    return DryRun(sorted(activations), types, result)


def adopt(
    vault: Vault, dry: dict[str, Any], choices: Choices | None = None, actor: str | None = None
) -> dict[str, Any] | WriteRejected:
    """Runs on a worker: the dry run published with the same choices, refused if any of its
    files changed since. `actor` None: the OS user, as the CLI's default."""
    choices = choices or Choices()
    options = {"actor": actor} if actor else {}
    try:
        return adoption.adopt(
            vault.write,
            dry["partition"],
            type_map=choices.type_map(),
            move=choices.move,
            expect=adoption.expected_from(dry),
            root_into=dry.get("rootInto") if dry["partition"] is None else None,
            **options,
        )
    except WriteRejected as rejected:
        return rejected


def refusal_text(rejected: WriteRejected) -> str:
    """A refusal in words, with the files that changed since the dry run."""
    files = rejected.current.get("files") if isinstance(rejected.current, dict) else None
    changed = [f"  {f.get('path')}" for f in files or [] if isinstance(f, dict)]
    lines = [f"Nothing was written ({rejected.code}): {rejected.message}", *changed]
    if rejected.code == "changed-since-dry-run":
        lines.append("Dry Run Again shows the notes as they are now.")
    return "\n".join(lines)


class AdoptDialog(QDialog):
    """What adopting the notes would change, the person's choices of type and place, and the
    Adopt button."""

    planned = Signal()
    """The dry run (or its refusal) is shown."""
    finished_adopt = Signal(object)
    """The receipt, or the WriteRejected that refused the run."""

    def __init__(
        self, vault: Vault, runner: Runner, actor: Callable[[], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.vault, self.runner, self.actor = vault, runner, actor
        self.dry: dict[str, Any] | None = None
        self.choices = Choices()
        self.busy = False
        self.setWindowTitle("Adopt Notes")
        self.resize(980, 680)
        self.partition = QComboBox()
        self.partition.currentTextChanged.connect(lambda _text: self.run_dry())
        self.root_into = QComboBox()
        self.root_into.setToolTip(
            "The vault root is no partition: its notes move into this folder under their own names"
        )
        self.root_into.currentTextChanged.connect(self._root_into)
        self.root_into_label = QLabel("Notes at the vault root go into:")
        self.heading = QLabel("Looking at the notes…")
        self.heading.setWordWrap(True)
        self.table = ChoicesTable(self)
        self.table.changed.connect(self._chose)
        self.files = self.table.files
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.notes.setMaximumHeight(110)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.undo_words = QLabel(
            "You can undo this: Edit › Undo (Ctrl+Z) right after, or Undo Adopt in Activity later;"
            " moved notes go back to where they were."
        )
        self.undo_words.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.adopt_button = QPushButton("Adopt")
        self.adopt_button.setEnabled(False)
        self.adopt_button.clicked.connect(self.adopt)
        self.again_button = QPushButton("Dry Run Again")
        self.again_button.clicked.connect(self.run_dry)
        self.buttons.addButton(self.adopt_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.again_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Partition:", self.partition)
        form.addRow(self.root_into_label, self.root_into)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.message)
        layout.addWidget(self.undo_words)
        layout.addWidget(self.buttons)

    def run_dry(self) -> None:
        """The dry run of the partition chosen (or the whole vault), on a worker."""
        text = self.partition.currentText()
        vault, chosen, choices = self.vault, (text if text and text != WHOLE_VAULT else None), self.choices
        self._busy(True)
        self.dry = None
        self.message.setText("")
        self.runner.submit(lambda: dry_run(vault, chosen, choices), self._show, key="adopt-dry-run")

    def _root_into(self, text: str) -> None:
        if text and self.dry is not None and text != self.dry.get("rootInto"):
            self._chose(replace(self.choices, root_into=text))

    def _chose(self, choices: Choices) -> None:
        self.choices = choices
        self.run_dry()

    def _show(self, answer: DryRun) -> None:
        self._busy(False)
        choices = [WHOLE_VAULT, *answer.scopes]
        if [self.partition.itemText(i) for i in range(self.partition.count())] != choices:
            self.partition.blockSignals(True)
            self.partition.clear()
            self.partition.addItems(choices)
            self.partition.blockSignals(False)
        self.partition.setEnabled(len(answer.scopes) > 1)
        self.notes.clear()
        result = answer.result
        if isinstance(result, WriteRejected):
            self.table.show_files([], answer.page_types, self.choices)
            self.heading.setText("These notes cannot be adopted.")
            self.message.setText(refusal_text(result))
        else:
            self.dry = result
            self.partition.blockSignals(True)
            self.partition.setCurrentText(result["partition"] or WHOLE_VAULT)
            self.partition.blockSignals(False)
            self._list(result, answer.page_types)
        self._show_root_into(answer)
        self.adopt_button.setEnabled(self.dry is not None and bool(self.dry["files"]))
        self.planned.emit()

    def _show_root_into(self, answer: DryRun) -> None:
        """The root's destination combo: shown for a whole-vault run with notes at the root."""
        dry = self.dry
        into = dry.get("rootInto") if dry is not None else None
        at_root = dry is not None and any("/" not in f["path"] for f in [*dry["files"], *dry["skipped"]])
        self.root_into_label.setVisible(into is not None and at_root)
        self.root_into.setVisible(into is not None and at_root)
        if into is None:
            return
        self.root_into.blockSignals(True)
        self.root_into.clear()
        self.root_into.addItems(sorted({*answer.scopes, into}))
        self.root_into.setCurrentText(into)
        self.root_into.blockSignals(False)

    def _list(self, dry: dict[str, Any], page_types: dict[str, list[str]]) -> None:
        files, skipped, ambiguous = dry["files"], dry["skipped"], dry["ambiguousNames"]
        where = dry["partition"] or "the whole vault"
        # Say what a partition is here rather than count them: the walkthrough read
        # "2 partition(s)" and could not tell that the folders had become them.
        folders = ", ".join(f"{name}/" for name in dry["partitions"])
        partitions = (
            f" Each top-level folder becomes a partition: {folders} (a record's scope is its folder)."
            if dry["partition"] is None and folders
            else ""
        )
        rooted = sum(1 for f in files if "/" not in f["path"])
        moved = sum(1 for f in files if f.get("movedTo")) - rooted
        rewritten = len(dry.get("linksRewritten", []))
        from_root = f", {rooted} moved from the vault root into {dry.get('rootInto')}/" if rooted else ""
        bodies = (
            f" Bodies are unchanged but for {rewritten} Markdown link path(s) the moves change;"
            if rewritten
            else " Bodies are never changed;"
        )
        self.heading.setText(
            f"{len(files)} note(s) in {where} would become page records "
            f"({moved} filed in their type's folder{from_root}, the rest where they are);"
            f" {len(skipped)} skipped.{bodies} links keep their targets.{partitions}"
        )
        self.table.show_files(files, page_types, self.choices)
        lines = [f"Skipped {s['path']}: {s['reason']}" for s in skipped]
        if ambiguous:
            lines.append(f"Names that reach two notes (no alias made): {', '.join(map(str, ambiguous))}")
        lines += [
            f"Link path rewritten for a move: {r['path']} line {r['line']}: ({r['from']}) -> ({r['to']})"
            for r in dry.get("linksRewritten", [])
        ]
        lines += [
            f"Link into another partition (it keeps its target): {c['path']} [[{c['target']}]]"
            f" -> {c['resolvesTo']}"
            for c in dry.get("crossPartitionLinks", [])
        ]
        self.notes.setPlainText("\n".join(lines) or "Nothing skipped.")

    def adopt(self) -> None:
        """Publish the dry run shown, with its choices, fenced by its hashes, on a worker."""
        dry, vault, choices, actor = self.dry, self.vault, self.choices, self.actor()
        if dry is None or self.busy:
            return
        self._busy(True)
        self.runner.submit(lambda: adopt(vault, dry, choices, actor), self._adopted)

    def _adopted(self, result: dict[str, Any] | WriteRejected) -> None:
        self._busy(False)
        if isinstance(result, WriteRejected):
            self.message.setText(refusal_text(result))
            self.adopt_button.setEnabled(False)
        else:
            self.accept()
        self.finished_adopt.emit(result)

    def _busy(self, busy: bool) -> None:
        self.busy = busy
        for widget in (self.adopt_button, self.again_button, self.partition, self.table):
            widget.setEnabled(not busy)


class AdoptAction:
    """File › Adopt Notes…, enabled for a writable vault."""

    def __init__(
        self,
        window: WindowParts,
        on_published: Callable[[dict[str, Any]], None],
        actor: Callable[[], str],
    ) -> None:
        self.window = window
        self.on_published = on_published
        self.actor = actor
        """Settings › Your Name (ui/your_name.py): who the adopt is by."""
        self.dialog: AdoptDialog | None = None
        """The dialog open now (tests drive it)."""
        self.action = QAction("Adopt &Notes…", window)
        self.action.setStatusTip("Turn the plain Markdown notes of the vault into page records")
        self.action.triggered.connect(self.start)
        file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
        assert isinstance(file_menu, QMenu)
        file_menu.insertAction(window.commands.export, self.action)
        window.loaded.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        vault = self.window.vault
        self.action.setEnabled(vault is not None and not vault.read_only)

    def start(self) -> None:
        vault = self.window.vault
        if vault is None or vault.read_only:
            return
        self.dialog = AdoptDialog(vault, self.window.runner, self.actor, self.window)
        self.dialog.finished_adopt.connect(self._published)
        self.dialog.open()
        self.dialog.run_dry()

    def _published(self, result: object) -> None:
        if isinstance(result, dict):
            self.window.statusBar().showMessage(describe_receipt(result), 8000)
            self.on_published(result)
