"""Settings › Knowledge, below an extension's switches: the facts about the person that its
`facts.read|write:self:…` permissions cover, with the current values, editable (issue 16 §4;
spec: facts-entities-collections-api, "What the user sees").

A core predicate shows under the app's own name; one an extension declared
shows the description it wrote, marked "Added by this extension" when it is
this one's. What the person types here is said by the user
(`engine/api/user_facts.py`): on a one-value predicate it replaces the
current value whoever said it, and an extension's later put does not
overwrite it (a conflict for View Changes). A value can also be removed
(withdrawn). Reads and writes run on a worker.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from knowledge_desktop.engine.api import entities, user_facts
from knowledge_desktop.engine.api.facts import USER
from knowledge_desktop.engine.api.user_facts import SelfFact
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session, person_changes
from knowledge_desktop.engine.vault_self import self_pages

if TYPE_CHECKING:
    from knowledge_desktop.ui.tasks import Runner

HEADING = "<b>What it may know about you</b> — your current values; edit them here, as yourself"
NONE_ASKED = "It asks for no facts about you."
NO_SELF = (
    "No page is marked as you yet: choose your person page or create it under You, above;"
    " its facts then show here."
)


def load_self_facts(vault: Vault, ext: dict[str, Any]) -> tuple[str | None, list[SelfFact]]:
    """Runs on a worker: the self page's id and the self facts extension `ext` may touch; no
    id when no page is marked as you (the You section above says how to mark one)."""
    if not self_pages(vault, ext["partition"]):
        return None, []
    session = open_session(vault, ext["name"])
    page = entities.self_page(session)
    asked = [p["permission"] for p in ext["permissions"]]
    return page.record_id, user_facts.self_facts(
        vault.store, vault.root, session.scope, page.record_id, ext["name"], asked
    )


def typed_value(text: str, before: Any) -> Any:
    """What the person typed: text, or JSON again when the value it replaces was not text."""
    if before is not None and not isinstance(before, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class SelfFactsPanel(QWidget):
    """The list of self facts; `editors[predicate]` is the box a new value is typed in, and
    `value_edits[claim id]` the box of a current value (tests drive both)."""

    def __init__(
        self, vault: Vault, runner: Runner, ext: dict[str, Any], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.vault, self.runner, self.ext = vault, runner, ext
        self.self_id: str | None = None
        self.facts: list[SelfFact] = []
        self.editors: dict[str, QLineEdit] = {}
        self.value_edits: dict[str, QLineEdit] = {}
        self.heading = QLabel(HEADING)
        self.heading.setWordWrap(True)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setColumnStretch(1, 1)
        self.status = QLabel("Reading your facts…")
        self.status.setWordWrap(True)
        self.status.setObjectName("selfFactsStatus")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.grid_host)
        layout.addWidget(self.status)
        self.reload()

    def reload(self) -> None:
        vault, ext = self.vault, self.ext
        self.runner.submit(
            lambda: load_self_facts(vault, ext), self._loaded, self._failed, key=f"self-facts:{ext['name']}"
        )

    def _loaded(self, found: tuple[str | None, list[SelfFact]]) -> None:
        self.self_id, self.facts = found
        self._fill()
        if self.self_id is None:
            self.status.setText(NO_SELF)
        elif not self.facts:
            self.status.setText(NONE_ASKED)
        self.status.setVisible(not self.facts or self.status.text().startswith("Saved"))
        self.grid_host.setVisible(bool(self.facts))

    def _failed(self, message: str) -> None:
        self.status.setVisible(True)
        self.status.setText(f"Your facts could not be read or changed: {message}")

    def _fill(self) -> None:
        while self.grid.count():
            child = self.grid.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.hide()  # gone from view now, deleted when the loop comes round
                widget.deleteLater()
        self.editors, self.value_edits = {}, {}
        row = 0
        editable = not self.vault.read_only
        for fact in self.facts:
            name = QLabel(f"{_escape(fact.label)}")
            name.setWordWrap(True)
            name.setMaximumWidth(200)  # a declared predicate's long description wraps, not the values
            extra = " · Added by this extension" if fact.added_by_this else ""
            access = "reads and writes" if fact.writes else "reads"
            name.setToolTip(f"{fact.predicate} — it {access} this{extra}")
            if not fact.core:
                name.setText(
                    f"{_escape(fact.label)}<br><small>{_escape(fact.predicate)}"
                    f"{' · Added by this extension' if fact.added_by_this else ''}</small>"
                )
            adds = fact.cardinality == "many" or not fact.values  # a box to type a new value in
            self.grid.addWidget(name, row, 0, len(fact.values) + int(adds), 1, Qt.AlignmentFlag.AlignTop)
            for claim_id, value, origin in fact.values:
                edit = QLineEdit(_shown(value))
                edit.setEnabled(editable)
                edit.setToolTip(f"Said by {'you' if origin == USER else origin}")
                edit.returnPressed.connect(
                    lambda f=fact, c=claim_id, v=value, e=edit: self._replace(f, c, v, e)
                )
                self.value_edits[claim_id] = edit
                remove = QPushButton("Remove")
                remove.setEnabled(editable)
                remove.clicked.connect(lambda _=False, c=claim_id: self._remove(c))
                self.grid.addWidget(edit, row, 1)
                self.grid.addWidget(QLabel("you" if origin == USER else str(origin)), row, 2)
                self.grid.addWidget(remove, row, 3)
                row += 1
            if adds:
                add = QLineEdit()
                add.setPlaceholderText("Add a value…" if fact.values else "Not known — type a value")
                add.setEnabled(editable)
                add.returnPressed.connect(lambda f=fact, e=add: self._add(f, e.text()))
                self.editors[fact.predicate] = add
                self.grid.addWidget(add, row, 1, 1, 3)
                row += 1

    # -- the person's edits ------------------------------------------------------------
    def _add(self, fact: SelfFact, text: str) -> None:
        if text.strip():
            self._write(lambda who: user_facts.put(who, *self._where(fact), text.strip()))

    def _replace(self, fact: SelfFact, claim_id: str, before: Any, edit: QLineEdit) -> None:
        value = typed_value(edit.text().strip(), before)
        if value == before or edit.text().strip() == "":
            return

        def work(who: Any) -> object:
            done = user_facts.put(who, *self._where(fact), value)
            if fact.cardinality == "many":  # one value edited: the old one goes
                user_facts.retract(who, claim_id)
            return done

        self._write(work)

    def _remove(self, claim_id: str) -> None:
        self._write(lambda who: user_facts.retract(who, claim_id))

    def _where(self, fact: SelfFact) -> tuple[Any, str, str, str]:
        assert self.self_id is not None
        return self.vault.root, self.ext["partition"], self.self_id, fact.predicate

    def _write(self, work: Any) -> None:
        vault = self.vault
        self.status.setVisible(True)
        self.status.setText("Saving…")
        self.runner.submit(lambda: work(person_changes(vault)), lambda _r: self._saved(), self._failed)

    def _saved(self) -> None:
        self.status.setText("Saved as said by you.")
        self.reload()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
