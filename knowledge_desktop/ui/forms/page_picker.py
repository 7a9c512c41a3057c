"""Choosing a page by its title: the picker stores the page's id, the person sees its title.

Pages are listed once per form, on a worker (`list_pages`), and handed to
every picker of the form. Typing filters them by any part of the title,
alias-free and case-insensitive (a completer's popup); choosing one keeps its
id. An id typed in full is taken as it is, so an id pasted from elsewhere
still works; anything else typed is not a choice and reads as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QModelIndex, QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault

PAGE_LIMIT = 5000
"""Pages a picker offers at most (the engine lists them in batches of `PAGE_BATCH`)."""
PAGE_BATCH = 1000


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    title: str
    type: str

    @property
    def label(self) -> str:
        return f"{self.title}  ·  {self.type}" if self.type else self.title


def list_pages(vault: Vault, scope: str | None) -> list[Page]:
    """Runs on a worker: the active pages of `scope` (every partition when None), by title."""
    items: list[dict[str, Any]] = []
    wanted = RecordFilter(kind="page", scope=scope)
    while len(items) < PAGE_LIMIT:
        batch = vault.records(wanted, limit=PAGE_BATCH, offset=len(items))["items"]
        items.extend(batch)
        if len(batch) < PAGE_BATCH:
            break
    pages = [Page(str(i["id"]), str(i.get("title") or i["id"]), str(i.get("type") or "")) for i in items]
    return sorted(pages, key=lambda p: (p.title.casefold(), p.id))


class PagePicker(QLineEdit):
    """One page, chosen by typing part of its title."""

    picked = Signal(str)
    """The id chosen ("" when cleared)."""

    def __init__(
        self, placeholder: str = "Type part of a page's title", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.pages: dict[str, Page] = {}
        self._labels: list[Page] = []
        self._id: str | None = None
        self.setPlaceholderText(placeholder)
        self.setClearButtonEnabled(True)
        self.model = QStringListModel(self)
        self.completer_ = QCompleter(self.model, self)
        self.completer_.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer_.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer_.setMaxVisibleItems(12)
        self.setCompleter(self.completer_)
        self.completer_.activated[QModelIndex].connect(self._activated)  # type: ignore[index]
        self.textEdited.connect(self._edited)
        self.editingFinished.connect(self._settle)

    def set_pages(self, pages: list[Page]) -> None:
        self.pages = {p.id: p for p in pages}
        self._labels = list(pages)
        self.model.setStringList([p.label for p in pages])
        if self._id is not None:
            self._show(self._id)

    def value(self) -> str | None:
        return self._id

    def set_value(self, page_id: str | None) -> None:
        self._id = page_id or None
        self._show(self._id)

    def matches(self, text: str) -> list[str]:
        """The ids of the pages the popup offers for `text` (what a person typing sees)."""
        self.completer_.setCompletionPrefix(text)
        model = self.completer_.completionModel()
        by_label = {p.label: p.id for p in self._labels}
        return [by_label[model.index(i, 0).data()] for i in range(model.rowCount())]

    def choose(self, page_id: str) -> None:
        """Choose `page_id` as picking it in the popup would."""
        self.set_value(page_id)
        self.picked.emit(page_id)

    def _activated(self, index: QModelIndex) -> None:
        label = index.data()
        page = next((p for p in self._labels if p.label == label), None)
        if page is not None:
            self.choose(page.id)
            # the line edit puts the popup's row text in after this slot: the title goes last
            QTimer.singleShot(0, self, lambda: self._show(self._id))

    def _edited(self, text: str) -> None:
        if self._id is not None:
            self._id = None
            self.picked.emit("")
        self._mark(bool(text.strip()))

    def _settle(self) -> None:
        """Leaving the field: a full id typed is taken; a title typed exactly too."""
        typed = self.text().strip()
        if self._id is not None or not typed:
            return
        exact = [p for p in self._labels if p.title.casefold() == typed.casefold() or p.id == typed]
        if len(exact) == 1:
            self.choose(exact[0].id)
        elif "_" in typed and " " not in typed:
            self.choose(typed)

    def _show(self, page_id: str | None) -> None:
        page = self.pages.get(page_id) if page_id else None
        self.setText(page.title if page else page_id or "")
        self.setToolTip(f"{page.label}\n{page.id}" if page else (page_id or ""))
        self._mark(False)

    def _mark(self, unchosen: bool) -> None:
        """Text typed that is no page yet is shown in italics until a page is chosen."""
        font = self.font()
        font.setItalic(unchosen)
        self.setFont(font)


class PageList(QWidget):
    """Several pages (a claim's entities): a list of titles, a picker to add, Remove."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setMaximumHeight(84)
        self.picker = PagePicker("Add a page: type part of its title")
        self.picker.picked.connect(self._add)
        self.remove = QPushButton("Remove")
        self.remove.clicked.connect(self._remove)
        self.list.currentRowChanged.connect(lambda row: self.remove.setEnabled(row >= 0))
        self.remove.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.picker, 1)
        row.addWidget(self.remove)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addLayout(row)

    def set_pages(self, pages: list[Page]) -> None:
        self.picker.set_pages(pages)
        self.set_value(self.value())

    def value(self) -> list[str]:
        return [str(self.list.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.list.count())]

    def set_value(self, ids: list[str]) -> None:
        self.list.clear()
        for page_id in ids:
            self._append(page_id)

    def _append(self, page_id: str) -> None:
        page = self.picker.pages.get(page_id)
        item = QListWidgetItem(page.label if page else page_id)
        item.setData(Qt.ItemDataRole.UserRole, page_id)
        item.setToolTip(page_id)
        self.list.addItem(item)

    def _add(self, page_id: str) -> None:
        if not page_id:
            return
        if page_id not in self.value():
            self._append(page_id)
            self.changed.emit()
        self.picker.set_value(None)

    def _remove(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.list.takeItem(row)
            self.changed.emit()
