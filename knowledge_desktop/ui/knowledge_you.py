"""Settings › Knowledge › You: which person page is "you" to extensions (issue 24 item 8).

A fresh vault has no page carrying `knowledge:self`, and every extension that
reads or writes facts about you fails until a person says which page is theirs.
This section shows the page that is you in the partition the dialog looks at
(the shown extension's, else `private` or the vault's only one), a picker over
the partition's person pages (type to filter by title) and a way to create one.
Reads and writes run on a worker (`engine/vault_self.py`: one fenced, journaled
write that moves the alias); the section reads the vault again when one ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_self import (
    PersonPage,
    SelfChange,
    create_self,
    default_partition,
    person_pages,
    set_self,
)

if TYPE_CHECKING:
    from knowledge_desktop.ui.tasks import Runner

TITLE_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True, slots=True)
class YouState:
    """What the section shows: the partition, its pages marked as you (one when sound) and
    every person page the picker offers."""

    partition: str
    selves: list[PersonPage]
    people: list[PersonPage]


def load_you(vault: Vault, partition: str | None) -> YouState:
    """Runs on a worker: the partition's person pages and which of them are you."""
    scope = partition or default_partition(vault.root)
    people = person_pages(vault, scope)
    return YouState(scope, [p for p in people if p.is_self], people)


class PersonPicker(QDialog):
    """Choose one person page; the filter box keeps the titles that contain what is typed."""

    def __init__(self, people: list[PersonPage], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Which page is you?")
        self.setObjectName("personPicker")
        self.resize(420, 360)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Type to filter by title…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter)
        self.list = QListWidget()
        for page in people:
            item = QListWidgetItem(page.title + ("  (you now)" if page.is_self else ""))
            item.setData(Qt.ItemDataRole.UserRole, page.id)
            item.setData(TITLE_ROLE, page.title)
            item.setToolTip(page.path)
            self.list.addItem(item)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("This is me")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.list.currentItemChanged.connect(lambda *_: self._enable())
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Extensions will speak about the page you choose as “you”."))
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)
        self._filter("")

    def chosen(self) -> str | None:
        """The id of the selected (and shown) page."""
        item = self.list.currentItem()
        if item is None or item.isHidden():
            return None
        return str(item.data(Qt.ItemDataRole.UserRole))

    def _filter(self, text: str) -> None:
        wanted = text.strip().casefold()
        first: QListWidgetItem | None = None
        for row in range(self.list.count()):
            item = self.list.item(row)
            hidden = bool(wanted) and wanted not in str(item.data(TITLE_ROLE)).casefold()
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
        current = self.list.currentItem()
        if (current is None or current.isHidden()) and first is not None:
            self.list.setCurrentItem(first)
        self._enable()

    def _enable(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.chosen() is not None)


class YouPanel(QWidget):
    """The "You" section; `picker` and `name_dialog` are the open questions (tests answer them)."""

    changed = Signal()
    """A write made another page you (the dialog reads the self facts again)."""

    def __init__(
        self,
        vault: Vault,
        runner: Runner,
        open_record: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("knowledgeYou")
        self.vault, self.runner, self.open_record = vault, runner, open_record
        self.partition: str | None = None
        self.state: YouState | None = None
        self.picker: PersonPicker | None = None
        self.name_dialog: QInputDialog | None = None
        self.current = QLabel("Reading which page is you…")
        self.current.setObjectName("youCurrent")
        self.current.setWordWrap(True)
        self.current.setTextFormat(Qt.TextFormat.RichText)
        self.current.linkActivated.connect(self._open)
        self.choose_button = QPushButton("Choose…")
        self.choose_button.setToolTip("Pick one of this partition's person pages as you")
        self.choose_button.clicked.connect(self.choose_page)
        self.create_button = QPushButton("Create…")
        self.create_button.setToolTip("Create a person page with your name, marked as you")
        self.create_button.clicked.connect(self.create_page)
        self.status = QLabel("")
        self.status.setObjectName("youStatus")
        self.status.setWordWrap(True)
        self.status.hide()
        buttons = QHBoxLayout()  # below the text, which wraps over the whole width
        buttons.addWidget(self.choose_button)
        buttons.addWidget(self.create_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.addWidget(QLabel("<b>You</b> — the person page extensions speak about as “you”"))
        layout.addWidget(self.current)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self._enable(False)

    def show_partition(self, partition: str | None) -> None:
        """Show who is you in `partition` (None: private or the only one); read when it is
        another partition than the one shown."""
        if partition == self.partition and self.state is not None:
            return
        self.partition = partition
        self.reload()

    def reload(self) -> None:
        vault, partition = self.vault, self.partition
        self.runner.submit(
            lambda: load_you(vault, partition), self._loaded, self._failed, key="knowledge-you"
        )

    # -- showing ---------------------------------------------------------------------------
    def _loaded(self, state: YouState) -> None:
        self.state = state
        where = f"partition <b>{_escape(state.partition)}</b>"
        if not state.selves:
            self.current.setText(
                f"No page in {where} is marked as you yet.<br>Extensions that speak about you"
                " fail until you choose your person page or create one."
            )
        elif len(state.selves) > 1:
            links = ", ".join(_link(p) for p in state.selves)
            self.current.setText(f"Several pages in {where} are marked as you ({links}): choose one.")
        else:
            page = state.selves[0]
            self.current.setText(f"You are {_link(page)} <small>({_escape(page.path)})</small> in {where}.")
        self._enable(True)

    def _failed(self, message: str) -> None:
        self._enable(True)
        self.status.setText(f"Could not read or change which page is you: {message}")
        self.status.show()

    def _enable(self, on: bool) -> None:
        writable = on and not self.vault.read_only
        self.choose_button.setEnabled(writable and bool(self.state and self.state.people))
        self.create_button.setEnabled(writable)

    def _open(self, record_id: str) -> None:
        if self.open_record is not None:
            self.open_record(record_id)

    # -- choosing and creating -------------------------------------------------------------
    def choose_page(self) -> None:
        """Open the picker over the partition's person pages."""
        if self.state is None:
            return
        picker = PersonPicker(self.state.people, self)
        self.picker = picker

        def answered(code: int) -> None:
            self.picker = None
            chosen = picker.chosen()
            picker.deleteLater()
            if code == QDialog.DialogCode.Accepted and chosen is not None:
                vault = self.vault
                self._write(lambda: set_self(vault, None, chosen))

        picker.finished.connect(answered)
        picker.open()

    def create_page(self) -> None:
        """Ask for a name, then create a person page with it that is you."""
        if self.state is None:
            return
        partition = self.state.partition
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Create your page")
        dialog.setLabelText(f"Your name (a new person page in {partition}):")
        dialog.setInputMode(QInputDialog.InputMode.TextInput)
        self.name_dialog = dialog

        def answered(code: int) -> None:
            self.name_dialog = None
            name = dialog.textValue().strip()
            dialog.deleteLater()
            if code == QDialog.DialogCode.Accepted and name:
                vault = self.vault
                self._write(lambda: create_self(vault, partition, name))

        dialog.finished.connect(answered)
        dialog.open()

    def _write(self, work: Callable[[], SelfChange]) -> None:
        self._enable(False)
        self.status.setText("Saving…")
        self.status.show()
        self.runner.submit(work, self._written, self._failed)

    def _written(self, done: SelfChange) -> None:
        title = done.page.title
        if done.receipt is None:
            self.status.setText(f"{title} is already you; nothing was written.")
        else:
            moved = f" (no longer: {', '.join(done.moved_from)})" if done.moved_from else ""
            self.status.setText(f"{title} is now you{moved}.")
            self.changed.emit()
        self.reload()


def _link(page: PersonPage) -> str:
    return f'<a href="{_escape(page.id)}">{_escape(page.title)}</a>'


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
