"""The form for one record — claim, relationship or page — with its YAML as an Advanced tab.

Used by Correct… (the replacement of a claim or relationship) and by
File › New… (`new_records.py`). The form starts from a record file and
changes only the keys it shows (`draft.write`), so the Advanced tab is the
same file: switching tabs carries the edits across both ways, and YAML that
cannot be read is shown with its line and keeps the Advanced tab open rather
than losing what was typed.

Review… asks the engine: the operation is planned on a worker without
publishing (`write_ops.preview`), which runs the read side's validation on
the file that would be written (ontology types, required fields, nonempty
evidence, the endpoints' types). A refusal's diagnostics carry the line of the
key they are about, and each is shown under its field. Only a file the engine
accepts goes on to review; the form stays alive behind the review, so Back
finds everything as it was typed.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.forms import draft
from knowledge_desktop.ui.forms.evidence_rows import EvidenceRows
from knowledge_desktop.ui.forms.fields import (
    Field,
    body_field,
    choice_field,
    date_field,
    list_field,
    text_field,
    typed_value,
)
from knowledge_desktop.ui.forms.page_picker import Page, PageList, PagePicker, list_pages
from knowledge_desktop.ui.tasks import Runner
from knowledge_desktop.ui.write_ops import Operation, Preview, preview

ERROR_STYLE = "color: palette(highlighted-text); background: #b3261e; padding: 2px 6px; border-radius: 3px;"
FIELD_ERROR_STYLE = "color: #c62828;"


@dataclass(slots=True)
class Vocabulary:
    """What a form of one partition offers: its pages and its ontology's types and labels."""

    pages: list[Page] = field(default_factory=list)
    page_types: list[dict[str, Any]] = field(default_factory=list)
    labels: list[tuple[str, str, frozenset[str] | None, frozenset[str] | None]] = field(default_factory=list)
    """(name, shown label, permitted from types, permitted to types; None: any)."""


def load_vocabulary(vault: Vault, scope: str | None) -> Vocabulary:
    """Runs on a worker: the pages and the ontology definitions of `scope`."""
    pages = list_pages(vault, scope)
    views = vault.ontology(scope) if scope else []
    definitions = views[0]["definitions"] if views else []
    types = [d for d in definitions if d.get("kind") == "page"]
    labels = []
    for d in definitions:
        if d.get("kind") != "relationship":
            continue
        ends = []
        for key in ("from_types", "to_types"):
            names = d.get(key) or []
            ends.append(vault.expand_types(names, scope) if names else None)
        labels.append((str(d["name"]), str(d.get("label") or d["name"]), ends[0], ends[1]))
    return Vocabulary(pages, types, labels)


class RecordForm(QDialog):
    """Fields for one record of `kind`, an Advanced (YAML) tab, and Review…."""

    chosen = Signal(str)
    """The file the engine accepted, when Review… goes on."""
    checked = Signal()
    """A Review… answered (accepted or refused): tests wait for it."""
    ready = Signal()
    """The pages and the ontology are listed: pickers and choices are filled."""

    def __init__(
        self,
        vault: Vault,
        runner: Runner,
        kind: str,
        text: str,
        operation: Callable[[str], Operation],
        *,
        title: str,
        intro: str,
        scope: str | None,
        scopes: list[str] | None = None,
        review_label: str = "Review…",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault, self.runner, self.kind, self.operation = vault, runner, kind, operation
        self.base = text
        self.scope = scope
        self.vocabulary = Vocabulary()
        self.fields: dict[str, Field] = {}
        self.errors: dict[str, QLabel] = {}
        self.busy = False
        self.loaded = False
        self.previewed: Preview | None = None
        """The plan Review… was accepted with (what the review step shows)."""
        self.setWindowTitle(f"{title} — Knowledge Desktop")
        self.resize(760, 720)

        note = QLabel(intro)
        note.setWordWrap(True)
        self.general = QLabel()
        self.general.setWordWrap(True)
        self.general.setStyleSheet(ERROR_STYLE)
        self.general.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.general.hide()

        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        page = QWidget()
        page_layout = QVBoxLayout(page)
        page_layout.addLayout(self.form)
        page_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(page)

        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.textChanged.connect(self._check_yaml)
        self.yaml_error = QLabel()
        self.yaml_error.setWordWrap(True)
        self.yaml_error.setStyleSheet(ERROR_STYLE)
        self.yaml_error.hide()
        advanced = QWidget()
        advanced_layout = QVBoxLayout(advanced)
        hint = QLabel(
            "The record file as it will be submitted. Edits here and in the form follow each other."
        )
        hint.setWordWrap(True)
        advanced_layout.addWidget(hint)
        advanced_layout.addWidget(self.editor, 1)
        advanced_layout.addWidget(self.yaml_error)

        self.tabs = QTabWidget()
        self.tabs.addTab(scroll, "Form")
        self.tabs.addTab(advanced, "Advanced (YAML)")
        self.tabs.currentChanged.connect(self._tab_changed)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.review_button = buttons.addButton(review_label, QDialogButtonBox.ButtonRole.AcceptRole)
        self.review_button.setDefault(True)
        buttons.accepted.connect(self.review)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.general)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)

        self.scope_box: QComboBox | None = None
        if scopes and len(scopes) > 1:
            self.scope_box = QComboBox()
            self.scope_box.addItems(scopes)
            self.scope_box.setCurrentText(scope or scopes[0])
            self.scope_box.currentTextChanged.connect(self._scope_changed)
            self._row(Field("scope", "Partition", self.scope_box, self._scope_value, self._set_scope))
        self._build()
        try:
            self._fill(draft.read(text))
        except draft.DraftError as exc:  # a file the form cannot show: edit it as YAML
            self.editor.setPlainText(text)
            self.tabs.setCurrentIndex(1)
            self._show_yaml_error(str(exc))
        self._load()

    # -- building ---------------------------------------------------------------------
    def _row(self, f: Field) -> Field:
        self.fields[f.key] = f
        label = QLabel(f"{f.label}:" if f.label else "")
        label.setBuddy(f.widget)
        if f.hint:
            f.widget.setToolTip(f.hint)
        self.form.addRow(label, f.widget)
        error = QLabel()
        error.setWordWrap(True)
        error.setStyleSheet(FIELD_ERROR_STYLE)
        error.hide()
        self.form.addRow("", error)
        self.errors[f.key] = error
        return f

    def _build(self) -> None:
        self._row(text_field("title", "Title", "A short sentence naming the record"))
        if self.kind == "claim":
            self._row(body_field("body", "Claim text", "What is claimed, in a sentence or two"))
            kinds = [(k, k.capitalize()) for k in draft.CLAIM_KINDS]
            self._row(choice_field("claim_kind", "Kind", kinds, "What sort of claim this is"))
            origins = [("source", "A source says so"), ("user_belief", "You believe it"),
                       ("agent_inference", "An agent inferred it")]  # fmt: skip
            self._row(choice_field("assertion_origin", "Origin", origins, "Where the claim comes from"))
            self._attribution()
            entities = PageList()
            self._row(Field("entities", "About", entities, entities.value, self._ids(entities.set_value)))
            owner = PagePicker("Who owns the commitment: type part of a page's title")
            self._row(Field("owner", "Owner", owner, owner.value, lambda v: owner.set_value(_text(v))))
            self._evidence()
            self._section("Dates")
            self._row(date_field("occurred_at", "Occurred on", False, "When the event or statement happened"))
            self._row(
                date_field("due_at", "Due on", False, "The commitment's due date, as the source gives it")
            )
            self._validity()
            kind_box = self.fields["claim_kind"].widget
            assert isinstance(kind_box, QComboBox)
            kind_box.currentIndexChanged.connect(lambda _i: self._commitment_rows())
        elif self.kind == "relationship":
            start, end = (
                PagePicker("From: type part of a page's title"),
                PagePicker("To: type part of a page's title"),
            )
            self._row(Field("from", "From", start, start.value, lambda v: start.set_value(_text(v))))
            self._row(Field("to", "To", end, end.value, lambda v: end.set_value(_text(v))))
            labels = QComboBox()
            self.label_box = labels
            self._row(Field("label", "Relationship", labels, labels.currentData, self._set_label))
            start.picked.connect(lambda _id: self._offer_labels())
            end.picked.connect(lambda _id: self._offer_labels())
            self._attribution()
            self._evidence()
            self._validity()
            self._row(body_field("body", "Notes", "Anything more to say (optional)"))
        else:
            types = QComboBox()
            self.type_box = types
            self._row(Field("type", "Type", types, types.currentData, self._set_type))
            self._row(list_field("aliases", "Aliases", "Other names, separated by commas"))
            self.fields_box = QGroupBox("Fields of this type")
            self.fields_form = QFormLayout(self.fields_box)
            self.form.addRow(self.fields_box)
            self.type_fields: dict[str, tuple[Field, str | None]] = {}
            self.other_fields: dict[str, Any] = {}
            self._row(Field("fields", "", QWidget(), self._page_fields, self._set_page_fields))
            self.fields["fields"].widget.hide()
            types.currentIndexChanged.connect(lambda _i: self._rebuild_type_fields())
            self._row(body_field("body", "Text", "The page's text, in Markdown"))

    def _attribution(self) -> None:
        self._row(
            text_field(
                "attribution", "Attribution", "Who said or wrote it, e.g. Ada in the 2026-09-28 stand-up"
            )
        )

    def _section(self, title: str) -> None:
        """A heading between groups of fields."""
        heading = QLabel(f"<b>{html.escape(title)}</b>")
        heading.setContentsMargins(0, 10, 0, 0)
        self.form.addRow(heading)

    def _commitment_rows(self) -> None:
        """Owner and due date belong to commitments (spec: records-and-ontology, Optional
        assertion fields): shown for one, or wherever the file already has them."""
        commitment = self.fields["claim_kind"].get() == "commitment"
        for key in ("owner", "due_at"):
            f = self.fields[key]
            self.form.setRowVisible(f.widget, commitment or f.get() is not None)

    def _evidence(self) -> None:
        self._section("Evidence")
        rows = EvidenceRows()
        self.evidence = rows
        self._row(Field("evidence", "", rows, rows.value, rows.set_value))

    def _validity(self) -> None:
        """Validity and expiry (spec: records-and-ontology, Optional assertion fields)."""
        self._row(date_field("valid_from", "Valid from", True, "First day it holds (UTC)"))
        self._row(date_field("valid_until", "Valid until", True, "First day it no longer holds (UTC)"))
        self._row(date_field("expires_at", "Expires on", True, "After this it leaves active results (UTC)"))

    @staticmethod
    def _ids(put: Callable[[list[str]], None]) -> Callable[[Any], None]:
        return lambda v: put([str(x) for x in v] if isinstance(v, list) else [])

    # -- values -----------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        return {key: f.get() for key, f in self.fields.items()}

    def _fill(self, read: draft.Draft) -> None:
        for key, f in self.fields.items():
            f.set(read.body if key == "body" else read.data.get(key))
        if self.kind == "claim":
            self._commitment_rows()

    def form_text(self) -> str:
        """The file the form's values make of the file it started from."""
        values = self.values()
        body = values.pop("body", None)
        return draft.write(self.base, values, body)

    def current_text(self) -> str:
        """What Review… submits: the Advanced tab's text when it is shown, else the form's."""
        if self.tabs.currentIndex() == 1:
            return self.editor.toPlainText()
        return self.form_text()

    def _tab_changed(self, index: int) -> None:
        if index == 1:
            self.editor.setPlainText(self.form_text())
            return
        text = self.editor.toPlainText()
        try:
            read = draft.read(text)
        except draft.DraftError as exc:
            self._show_yaml_error(str(exc) + " — fix it here before going back to the form.")
            self.tabs.blockSignals(True)
            self.tabs.setCurrentIndex(1)
            self.tabs.blockSignals(False)
            return
        self.base = text
        self._fill(read)

    def _check_yaml(self) -> None:
        try:
            draft.read(self.editor.toPlainText())
        except draft.DraftError as exc:
            self._show_yaml_error(str(exc))
        else:
            self.yaml_error.hide()

    def _show_yaml_error(self, message: str) -> None:
        self.yaml_error.setText(message)
        self.yaml_error.show()

    # -- the partition's vocabulary ---------------------------------------------------
    def _load(self) -> None:
        vault, scope = self.vault, self.scope
        self.loaded = False
        self.runner.submit(
            lambda: load_vocabulary(vault, scope), self._loaded, self._general, key=f"form-{id(self)}"
        )

    def _loaded(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.loaded = True
        for f in self.fields.values():
            if isinstance(f.widget, PagePicker | PageList | EvidenceRows):
                f.widget.set_pages(vocabulary.pages)
        if self.kind == "relationship":
            self._offer_labels()
        elif self.kind == "page":
            current = self.type_box.currentData()
            self.type_box.blockSignals(True)
            self.type_box.clear()
            self.type_box.addItem("", None)
            for d in vocabulary.page_types:
                self.type_box.addItem(f"{d.get('label') or d['name']} ({d['name']})", d["name"])
            self.type_box.blockSignals(False)
            self._set_type(current)
        self.ready.emit()

    def _scope_value(self) -> str | None:
        return self.scope_box.currentText() if self.scope_box is not None else None

    def _set_scope(self, value: Any) -> None:
        if self.scope_box is not None and isinstance(value, str) and self.scope_box.findText(value) >= 0:
            self.scope_box.setCurrentText(value)

    def _scope_changed(self, scope: str) -> None:
        self.scope = scope
        self._load()

    # -- relationship labels ----------------------------------------------------------
    def _offer_labels(self) -> None:
        """The ontology's labels whose endpoint types admit the pages chosen."""
        pages = {p.id: p for p in self.vocabulary.pages}
        ends = [self.fields[k].get() for k in ("from", "to")]
        types = [pages[e].type if e in pages else None for e in ends]
        current = self.label_box.currentData() or self._wanted_label
        self.label_box.blockSignals(True)
        self.label_box.clear()
        self.label_box.addItem("", None)
        for name, shown, allowed_from, allowed_to in self.vocabulary.labels:
            if _admits(allowed_from, types[0]) and _admits(allowed_to, types[1]):
                self.label_box.addItem(f"{shown} ({name})", name)
        self.label_box.blockSignals(False)
        self._set_label(current)

    _wanted_label: str | None = None

    def _set_label(self, value: Any) -> None:
        self._wanted_label = value if isinstance(value, str) and value else None
        index = self.label_box.findData(self._wanted_label)
        if index < 0 and self._wanted_label:  # kept, never silently dropped: Review… judges it
            note = " (not declared for these pages)" if self.loaded else ""
            self.label_box.addItem(self._wanted_label + note, self._wanted_label)
            index = self.label_box.count() - 1
        self.label_box.setCurrentIndex(max(index, 0))

    # -- page types and their fields --------------------------------------------------
    _wanted_type: str | None = None

    def _set_type(self, value: Any) -> None:
        self._wanted_type = value if isinstance(value, str) and value else None
        index = self.type_box.findData(self._wanted_type)
        if index < 0 and self._wanted_type:
            self.type_box.addItem(self._wanted_type, self._wanted_type)
            index = self.type_box.count() - 1
        self.type_box.setCurrentIndex(max(index, 0))
        self._rebuild_type_fields()

    def _rebuild_type_fields(self) -> None:
        kept = self._page_fields() or {}
        while self.fields_form.rowCount():
            self.fields_form.removeRow(0)
        self.type_fields = {}
        name = self.type_box.currentData()
        definition = next((d for d in self.vocabulary.page_types if d["name"] == name), None)
        for spec in (definition or {}).get("fields") or []:
            kind = spec.get("type")
            label = str(spec.get("label") or spec["name"]) + (" *" if spec.get("required") else "")
            if spec.get("values"):
                f = choice_field(spec["name"], label, [(v, v) for v in spec["values"]])
            elif kind == "boolean":
                f = choice_field(spec["name"], label, [(True, "yes"), (False, "no")])
            elif kind == "string-array":
                f = list_field(spec["name"], label, "Separated by commas")
            else:
                f = text_field(spec["name"], label, str(spec.get("description") or ""))
            f.widget.setToolTip(str(spec.get("description") or ""))
            self.fields_form.addRow(f"{label}:", f.widget)
            self.type_fields[spec["name"]] = (f, kind)
        self._set_page_fields(kept)
        self.fields_box.setVisible(bool(self.type_fields))

    def _page_fields(self) -> dict[str, Any]:
        if not hasattr(self, "type_fields"):
            return {}
        out = dict(self.other_fields)
        for key, (f, kind) in self.type_fields.items():
            value = f.get()
            if isinstance(value, str):
                value = typed_value(kind, value)
            if value in (None, "", []):
                out.pop(key, None)
            else:
                out[key] = value
        return out

    def _set_page_fields(self, value: Any) -> None:
        data = dict(value) if isinstance(value, dict) else {}
        for key, (f, _kind) in self.type_fields.items():
            f.set(data.pop(key, None))
        self.other_fields = data  # fields of no declared editor are kept as they were

    # -- review -----------------------------------------------------------------------
    def review(self) -> None:
        """Ask the engine whether the file is acceptable; go on to review only if it is."""
        if self.busy:
            return
        try:
            text = self.current_text()
            draft.read(text)
        except (draft.DraftError, ValueError) as exc:
            self._clear_errors()
            message = str(exc)
            if self.tabs.currentIndex() == 1:
                self._show_yaml_error(message)
            else:
                self._general(message)
            self.checked.emit()
            return
        self.busy = True
        self.review_button.setEnabled(False)
        vault, op = self.vault, self.operation(text)
        self.runner.submit(lambda: preview(vault, op), lambda r: self._checked(text, r), self._failed)

    def _checked(self, text: str, result: Preview | WriteRejected) -> None:
        self.busy = False
        self.review_button.setEnabled(True)
        self._clear_errors()
        if isinstance(result, WriteRejected):
            self._refused(text, result)
            self.checked.emit()
            return
        self.previewed = result
        self.checked.emit()
        self.accept()
        self.chosen.emit(text)

    def _failed(self, message: str) -> None:
        self.busy = False
        self.review_button.setEnabled(True)
        self._general(message)
        self.checked.emit()

    def _refused(self, text: str, rejected: WriteRejected) -> None:
        """Each diagnostic under the field it is about; the rest above the form."""
        found = rejected.current.get("diagnostics") if isinstance(rejected.current, dict) else None
        problems = [(d.get("line"), str(d.get("message"))) for d in found or [] if isinstance(d, dict)]
        if not problems:
            problems = [(None, f"{rejected.message} ({rejected.code})")]
        unplaced = []
        for line, message in problems:
            key = draft.field_of(text, line, message, self.fields)
            if self.tabs.currentIndex() == 0 and key in self.errors:
                label = self.errors[key]
                label.setText("\n".join(filter(None, [label.text(), message])))
                label.show()
            else:
                unplaced.append(f"Line {line}: {message}" if line else message)
        if self.tabs.currentIndex() == 1:
            self._show_yaml_error("\n".join(unplaced))
        elif unplaced:
            self._general("\n".join(unplaced))
        else:
            self._general("The record is not valid yet: see the fields marked below.")

    def _general(self, message: str) -> None:
        self.general.setText(html.escape(message).replace("\n", "<br>"))
        self.general.show()

    def _clear_errors(self) -> None:
        self.general.hide()
        for label in self.errors.values():
            label.clear()
            label.hide()

    def field_error(self, key: str) -> str:
        """The message shown under `key`'s field ("" when none)."""
        label = self.errors.get(key)
        return label.text() if label is not None and not label.isHidden() else ""


def _admits(allowed: frozenset[str] | None, page_type: str | None) -> bool:
    return allowed is None or page_type is None or page_type in allowed


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
