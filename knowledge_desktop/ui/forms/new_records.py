"""File › New…: New Page, New Claim, New Relationship, through the `new` publish path.

Each opens a `RecordForm` on a file that holds only the kind; Create…
checks it with the engine (the `new` plan, made and not published) and shows
a review: the file that will be written and where, with Back (to the form as
it was left) and Create. Create publishes on a worker through the same
request the CLI's `knowledge new` makes (`create.new_record` with
`Vault.write`: journaled, fenced by the partition's ontology fingerprint);
the panes learn of the new record from the publish's ChangeSet, like every
other write, and the record pane opens it. Under the file the review names
each page id the file holds by title and type, as the form showed them (the
walkthrough saw `entities: [pg_…]` where the form had said "Ruth Abernathy ·
person"); the legend is the view's, the file written is the text above it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMenu, QPlainTextEdit, QVBoxLayout, QWidget

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.lifecycle import Write
from knowledge_desktop.engine.write.operations.create import new_record
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.forms import draft
from knowledge_desktop.ui.forms.page_picker import Page
from knowledge_desktop.ui.forms.record_form import RecordForm
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.write_ops import Operation, Preview, describe_receipt, publish
from knowledge_desktop.ui.your_name import your_name

if TYPE_CHECKING:
    from knowledge_desktop.ui.window_parts import WindowParts

KINDS = (("page", "New &Page…"), ("claim", "New &Claim…"), ("relationship", "New &Relationship…"))
INTROS = {
    "page": "A new page: a person, company, project or any other type the partition's ontology declares.",
    "claim": "A new claim: one statement, who made it and the evidence for it. "
    "It needs at least one piece of evidence.",
    "relationship": "A new relationship between two pages, with a label the ontology permits "
    "for their types, and the evidence for it.",
}


def creation(text: str) -> Operation:
    """The `new` request for `text`, as an operation the form can check and publish."""

    def call(write: Write, _fences: dict[str, str], _reason: str) -> dict[str, Any]:
        return new_record(write, text)

    return Operation("Create", "a new record", {}, call)


PAGE_ID = re.compile(r"\bpg_[0-9A-Za-z]+\b")


def page_legend(text: str, pages: dict[str, Page]) -> list[str]:
    """One line per page id in `text` the form knows, in order of first mention:
    "pg_… = title (type)"."""
    lines: list[str] = []
    for found in dict.fromkeys(PAGE_ID.findall(text)):
        page = pages.get(found)
        if page is not None:
            lines.append(f"{found} = {page.title} ({page.type})" if page.type else f"{found} = {page.title}")
    return lines


class NewReview(QDialog):
    """What Create will write: the file and its folder; Back returns to the form."""

    back = Signal()
    finished_publish = Signal(object)
    """The receipt, a WriteRejected, or an error message."""

    def __init__(
        self,
        vault: Vault,
        runner: Runner,
        text: str,
        shown: Preview | None,
        parent: QWidget | None = None,
        pages: dict[str, Page] | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault, self.runner, self.text = vault, runner, text
        self.actor: str | None = None
        self.busy = False
        self.receipt: dict[str, Any] | None = None
        self.setWindowTitle("Create — Knowledge Desktop")
        self.resize(680, 520)
        path = shown.diffs[0].path if shown and shown.diffs else "its type's folder"
        self.where = where = QLabel(
            f"<b>Create</b> a new record, filed as <code>{html.escape(path)}</code>. "
            "The store adds its id, revision 1, <i>active</i> and the time; nothing else is changed."
        )
        where.setWordWrap(True)
        self.file = QPlainTextEdit(text)
        self.file.setReadOnly(True)
        self.file.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        legend = page_legend(text, pages or {})
        self.legend = QLabel("Pages named above: " + "; ".join(legend))
        self.legend.setWordWrap(True)
        self.legend.setToolTip("Not written: the file holds the ids, the titles are shown here")
        self.legend.setVisible(bool(legend))
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.back_button = buttons.addButton("◀ Back", QDialogButtonBox.ButtonRole.ResetRole)
        self.back_button.setToolTip("Return to the form, with everything as you left it")
        self.back_button.clicked.connect(self._back)
        self.create_button = buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.create_button.setDefault(True)
        buttons.accepted.connect(self.publish)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(where)
        layout.addWidget(self.file, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _back(self) -> None:
        self.reject()
        self.back.emit()

    def publish(self) -> None:
        if self.busy:
            return
        self.busy = True
        self.create_button.setEnabled(False)
        vault, op = self.vault, creation(self.text)
        op.actor = self.actor  # Settings › Your Name…, as every write of the window
        self.runner.submit(lambda: publish(vault, op, ""), self._published, self._failed)

    def _published(self, result: dict[str, Any] | WriteRejected) -> None:
        self.busy = False
        if isinstance(result, WriteRejected):
            self._failed(f"Refused ({result.code}): {result.message}. Nothing was written.")
            self.finished_publish.emit(result)
            return
        self.receipt = result
        self.finished_publish.emit(result)
        self.accept()

    def _failed(self, message: str) -> None:
        self.busy = False
        self.create_button.setEnabled(True)
        self.error.setText(message)
        self.error.show()


class NewRecords:
    """The File › New submenu and the form and review it opens."""

    def __init__(self, window: WindowParts, on_published: Callable[[dict[str, Any]], None]) -> None:
        self.window = window
        self.on_published = on_published
        self.form: RecordForm | None = None
        self.review: NewReview | None = None
        """The form and the review open now (tests drive them)."""
        self.menu = QMenu("&New", window)
        self.actions: dict[str, QAction] = {}
        for kind, text in KINDS:
            action = self.menu.addAction(text)
            action.triggered.connect(lambda _=False, k=kind: self.start(k))
            self.actions[kind] = action
        file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
        assert isinstance(file_menu, QMenu)
        first = file_menu.actions()[0]
        file_menu.insertMenu(first, self.menu)
        file_menu.insertSeparator(first)
        window.loaded.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        vault = self.window.vault
        self.menu.setEnabled(vault is not None and not vault.read_only)

    def start(self, kind: str) -> None:
        vault = self.window.vault
        if vault is None or vault.read_only:
            return

        def opened(scopes: list[str]) -> None:
            shown = self.window.record.loaded
            view = shown.view if shown is not None else {}
            scope = str(view["scope"]) if view.get("scope") in scopes else scopes[0] if scopes else None
            text = draft.skeleton(kind)
            if len(scopes) > 1:
                text = draft.write(text, {"scope": scope})
            self.form = RecordForm(
                vault,
                self.window.runner,
                kind,
                text,
                creation,
                title=f"New {kind.capitalize()}",
                intro=INTROS[kind],
                scope=scope,
                scopes=scopes,
                review_label="Create…",
                parent=self.window,
            )
            self.form.chosen.connect(self._reviewed)
            self.form.open()

        self.window.runner.submit(lambda: sorted(vault.reconciler.ontologies()), opened)

    def _reviewed(self, text: str) -> None:
        form, vault = self.form, self.window.vault
        if form is None or vault is None:
            return
        pages = {p.id: p for p in form.vocabulary.pages}
        self.review = NewReview(vault, self.window.runner, text, form.previewed, self.window, pages)
        self.review.actor = your_name(self.window.settings)
        self.review.back.connect(form.open)
        self.review.finished_publish.connect(self._published)
        self.review.open()

    def _published(self, result: object) -> None:
        if not isinstance(result, dict):
            return
        self.window.statusBar().showMessage(describe_receipt(result), 8000)
        self.on_published(result)
        items = result.get("items") or []
        if items and isinstance(items[0], dict) and items[0].get("path"):
            self.window.open_record(str(items[0]["path"]))
