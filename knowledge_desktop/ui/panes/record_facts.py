"""The Record pane's Facts tab (issue 16 §4): the facts currently valid about the page in
focus, grouped by predicate, each value with who said it and since when.

A fact is a claim whose first entity is the page (docs/decisions.md, "The
knowledge API mapped onto the vault"); the facts projection answers for a
page in one index range (`user_facts.current`), on a worker. A core predicate
shows under the app's own name, a declared one under its description. The
tab exists only while the page has facts: `available` tells the pane to add
or drop it, so a page without facts shows no empty tab. Any change to the
catalog's projections reads the facts again, keeping the selected row and
the scroll position.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from knowledge_desktop.engine.changes import CATALOG, ChangeSet
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.tasks import Runner

COLUMNS = ("Fact", "Value", "Said by", "Valid from", "Lifecycle")
KEY_ROLE = Qt.ItemDataRole.UserRole


@dataclass(frozen=True, slots=True)
class FactGroup:
    """One predicate's current values on the page."""

    predicate: str
    label: str
    """The app's name of a core predicate; the predicate itself otherwise (its description is the
    row's tooltip: a sentence is too long for a column)."""
    description: str
    values: list[tuple[str, Any, str | None, str | None, str]]
    """(claim id, value, origin, valid from, lifecycle) each."""


def load_facts(vault: Vault, scope: str, record_id: str) -> list[FactGroup]:
    """Runs on a worker: the page's current facts by predicate. (The knowledge API is
    imported here, with the first page shown, not before the window's first paint.)"""
    from knowledge_desktop.engine.api import user_facts

    vocabulary = user_facts.vocabulary_of(vault.root, scope)
    groups: dict[str, FactGroup] = {}
    for row in user_facts.current(vault.store, scope, record_id):
        d = vocabulary.get(row.predicate)
        label = d.label if d is not None and d.core else row.predicate  # a declared one: its name
        about = d.description if d is not None else "not in the vocabulary: no one said what it means"
        group = groups.setdefault(row.predicate, FactGroup(row.predicate, label, about, []))
        group.values.append((row.claim_id, row.value, row.origin, row.valid_from, row.lifecycle))
    return list(groups.values())


def said_by(origin: str | None) -> str:
    from knowledge_desktop.engine.api.facts import USER

    return "you" if origin == USER else (origin or "unknown")


class FactsTab(QWidget):
    available = Signal(bool)
    """Whether the page in focus has facts (the pane shows the tab only then)."""

    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.vault: Vault | None = None
        self.scope: str | None = None
        self.record_id: str | None = None
        self.groups: list[FactGroup] = []
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        for column, width in enumerate((190, 210, 130, 90, 60)):
            self.tree.setColumnWidth(column, width)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)

    def set_record(self, vault: Vault | None, scope: str | None, record_id: str | None) -> None:
        """The page in focus (None: no record); its facts are read again."""
        if (scope, record_id) != (self.scope, self.record_id):
            self.groups = []
            self.tree.clear()
        self.vault, self.scope, self.record_id = vault, scope, record_id
        self.reload()

    def apply_change(self, change: ChangeSet) -> None:
        """Read the facts again when the catalog's rows moved, or when records came, changed or
        went without that: a put from another process (`knowledge mcp`) wrote the shared rows
        itself, so the window's reconcile of its claim file finds no projection to change."""
        if self.record_id is None:
            return
        if change.touches(CATALOG) or change.added or change.changed or change.removed:
            self.reload()

    def reload(self) -> None:
        vault, scope, record_id = self.vault, self.scope, self.record_id
        if vault is None or scope is None or record_id is None:
            self._loaded((None, None, []))
            return
        self.runner.submit(
            lambda: (scope, record_id, load_facts(vault, scope, record_id)),
            self._loaded,
            lambda _message: self._loaded((scope, record_id, [])),
            key="record-facts",
        )

    def _loaded(self, found: tuple[str | None, str | None, list[FactGroup]]) -> None:
        scope, record_id, groups = found
        if (scope, record_id) != (self.scope, self.record_id) and record_id is not None:
            return  # the focus moved on meanwhile
        self.groups = groups
        self._fill()
        self.available.emit(bool(groups))

    def _fill(self) -> None:
        current = self.tree.currentItem()
        kept = current.data(0, KEY_ROLE) if current is not None else None
        bar = self.tree.verticalScrollBar()
        position = bar.value()
        self.tree.clear()
        for group in self.groups:
            many = len(group.values) > 1
            top = QTreeWidgetItem([group.label, f"{len(group.values)} values" if many else ""])
            top.setToolTip(0, f"{group.predicate}: {group.description}")
            top.setData(0, KEY_ROLE, group.predicate)
            rows = group.values if many else []
            if not many:
                _, value, origin, valid_from, lifecycle = group.values[0]
                top.setText(1, _shown(value))
                top.setText(2, said_by(origin))
                top.setText(3, valid_from or "—")
                top.setText(4, lifecycle)
                top.setData(0, KEY_ROLE, group.values[0][0])
            for claim_id, value, origin, valid_from, lifecycle in rows:
                child = QTreeWidgetItem(["", _shown(value), said_by(origin), valid_from or "—", lifecycle])
                child.setData(0, KEY_ROLE, claim_id)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded(True)
        self.tree.setRootIsDecorated(any(len(g.values) > 1 for g in self.groups))
        if kept is not None:
            for item in self._items():
                if item.data(0, KEY_ROLE) == kept:
                    self.tree.setCurrentItem(item)
                    break
        bar.setValue(min(position, bar.maximum()))

    def _items(self) -> list[QTreeWidgetItem]:
        out = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            out.append(top)
            out += [c for c in (top.child(j) for j in range(top.childCount())) if c is not None]
        return out


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
