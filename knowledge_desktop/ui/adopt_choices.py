"""The choices of File › Adopt Notes… (issue 29, §5): a page type per folder and per note, and
whether each note is filed in its type's folder or stays where it is.

A person note is not a `note`: the type combos offer the partition's page types as
its ontology defines them. "File in people/" moves the note there when the
adopt runs (a journaled move, undone with the adopt; `engine/write/operations/
filing.py`); a note left where it is gets `filing: in-place` and is not reported
`misfiled`. Every change emits `changed` with the new `Choices`, and the dialog
runs the dry run again, so what the table shows is what Adopt writes.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

BY_FOLDER = "(as the ontology files it)"
"""A folder's type combo: no choice made, the ontology's directory (else `note`) decides."""


@dataclass(frozen=True, slots=True)
class Choices:
    """Page types by folder and by note (vault-relative keys, as `--type` takes them) and the
    notes to file in their type's folder (`--move`)."""

    folder_types: dict[str, str] = field(default_factory=dict)
    note_types: dict[str, str] = field(default_factory=dict)
    move: frozenset[str] = frozenset()
    root_into: str | None = None
    """The partition the notes at the vault root move into (`--root-into`); None: the rule's."""

    def type_map(self) -> dict[str, str]:
        return {**self.folder_types, **self.note_types}


class ChoicesTable(QWidget):
    """Folders with their type, notes with their type and place, and "file them all"."""

    changed = Signal(object)
    """The new `Choices`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices = Choices()
        self.shown: list[dict[str, Any]] = []
        self.file_all = QCheckBox("File each note in its type's folder (people/, events/, …)")
        self.file_all.setToolTip(
            "A move inside the partition, in the same undoable run; a note that a link reaches by"
            " its path stays where it is. Unticked, notes stay where they are and are not"
            " reported as misfiled."
        )
        self.file_all.clicked.connect(self._file_all)
        self.folders = QTreeWidget()
        self.folders.setHeaderLabels(["Folder", "Type of its notes"])
        self.folders.setRootIsDecorated(False)
        self.folders.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.files = QTreeWidget()
        self.files.setHeaderLabels(["File", "Title", "Type", "Place", "Aliases added"])
        self.files.setRootIsDecorated(False)
        self.files.setColumnWidth(0, 230)
        self.files.setColumnWidth(1, 180)
        self.files.setColumnWidth(2, 130)
        self.files.setColumnWidth(3, 230)
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(QLabel("<b>Type by folder</b>"))
        top_layout.addWidget(self.folders)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(QLabel("<b>Notes</b> — a type of its own for a note beats its folder's"))
        bottom_layout.addWidget(self.files)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.file_all)
        layout.addWidget(split, 1)

    # -- showing a dry run ------------------------------------------------------------------
    def show_files(
        self, files: list[dict[str, Any]], page_types: dict[str, list[str]], choices: Choices
    ) -> None:
        self.choices, self.shown = choices, files
        self.folders.clear()
        self.files.clear()
        folders = sorted({posixpath.dirname(f["path"]) for f in files})
        for folder in folders:
            scope = folder.split("/", 1)[0]
            item = QTreeWidgetItem([folder + "/", ""])
            self.folders.addTopLevelItem(item)
            if not folder:  # the vault root: its notes move; a type per note, not per folder
                into = next((f["partition"] for f in files if "/" not in f["path"]), "")
                item.setText(0, "(vault root)")
                item.setText(1, f"moved into {into}/ — a type per note below")
                continue
            combo = self._combo([BY_FOLDER, *page_types.get(scope, [])], choices.folder_types.get(folder))
            combo.setObjectName(f"folder-type:{folder}")
            combo.currentTextChanged.connect(lambda text, f=folder: self._folder_type(f, text))
            self.folders.setItemWidget(item, 1, combo)
        for f in files:
            self._file_row(f, page_types.get(f.get("partition") or f["path"].split("/", 1)[0], []))
        movable = [f for f in files if "/" in f["path"] and f.get("directory") and not self._in_folder(f)]
        self.file_all.setEnabled(bool(movable))
        self.file_all.setChecked(bool(movable) and all(f["path"] in choices.move for f in movable))

    def _file_row(self, f: dict[str, Any], types: list[str]) -> None:
        item = QTreeWidgetItem([f["path"], f["title"], "", "", ", ".join(f["aliasesAdded"])])
        item.setToolTip(1, f"title from the {f['titleFrom']}; id {f['id']}")
        self.files.addTopLevelItem(item)
        kinds = types if f.get("type") in types or not f.get("type") else [f["type"], *types]
        combo = self._combo(kinds, f.get("type"))
        combo.setObjectName(f"note-type:{f['path']}")
        combo.currentTextChanged.connect(lambda text, p=f["path"]: self._note_type(p, text))
        self.files.setItemWidget(item, 2, combo)
        self.files.setItemWidget(item, 3, self._place(f))

    def _place(self, f: dict[str, Any]) -> QWidget:
        directory = f.get("directory")
        if "/" not in f["path"]:  # a note at the vault root: it moves into a partition
            label = QLabel(f"moves to {f.get('movedTo')}")
            label.setToolTip(
                "The vault root is no partition: the note moves under its own name, its links"
                " kept (Markdown paths rewritten where the move changes them); undone with the run"
            )
            label.setObjectName(f"place:{f['path']}")
            return label
        if f.get("movedTo"):
            box = QCheckBox(f"File in {directory}")
            box.setChecked(True)
        elif not directory or self._in_folder(f):
            label = QLabel("stays (in its folder)" if directory else "stays")
            label.setObjectName(f"place:{f['path']}")
            return label
        elif f.get("moveBlocked"):
            box = QCheckBox(f"File in {directory}: cannot")
            box.setChecked(False)
            box.setToolTip(f"Stays where it is: {f['moveBlocked']}")
            box.setEnabled(False)
        else:
            box = QCheckBox(f"File in {directory}")
            box.setToolTip("Unticked: the note stays where it is, marked filing: in-place (not misfiled)")
        box.setObjectName(f"place:{f['path']}")
        box.toggled.connect(lambda on, p=f["path"]: self._move(p, on))
        return box

    @staticmethod
    def _in_folder(f: dict[str, Any]) -> bool:
        directory = f.get("directory") or ""
        return f["path"].split("/", 1)[-1].startswith(directory) and not f.get("movedTo")

    @staticmethod
    def _combo(items: list[str], current: str | None) -> QComboBox:
        combo = QComboBox()
        combo.addItems(items)
        if current in items:
            combo.setCurrentText(current)
        return combo

    def widget(self, path: str, column: int) -> QWidget | None:
        """The widget of the note row `path` (column 2: its type, 3: its place), or of the
        folder row `path` (column 1: its type): for tests and accessibility tools."""
        for tree in (self.files, self.folders):
            for i in range(tree.topLevelItemCount()):
                item = tree.topLevelItem(i)
                if item is not None and item.text(0) in (path, path + "/"):
                    return tree.itemWidget(item, column)
        return None

    # -- choices ----------------------------------------------------------------------------
    def _folder_type(self, folder: str, text: str) -> None:
        types = dict(self.choices.folder_types)
        if text == BY_FOLDER:
            types.pop(folder, None)
        else:
            types[folder] = text
        # a note's own earlier choice under this folder gives way to the folder's new type
        notes = {p: t for p, t in self.choices.note_types.items() if posixpath.dirname(p) != folder}
        self._emit(replace(self.choices, folder_types=types, note_types=notes))

    def _note_type(self, path: str, text: str) -> None:
        self._emit(replace(self.choices, note_types={**self.choices.note_types, path: text}))

    def _move(self, path: str, on: bool) -> None:
        move = self.choices.move | {path} if on else self.choices.move - {path}
        self._emit(replace(self.choices, move=frozenset(move)))

    def _file_all(self, on: bool) -> None:
        paths = {f["path"] for f in self.shown if f.get("directory") and "/" in f["path"]}
        move = self.choices.move | paths if on else self.choices.move - paths
        self._emit(replace(self.choices, move=frozenset(move)))

    def _emit(self, choices: Choices) -> None:
        self.choices = choices
        self.changed.emit(choices)
