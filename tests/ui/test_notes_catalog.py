"""Notes in the window (issue 25 §1): the catalog's Notes section by folder, the status bar's
count, a note opened from the catalog (rendered with Obsidian's syntax, its properties, its
links checked, Source and History tabs) and its backlinks (pytest-qt).

The vault is a copy of tests/data/obsidian-vault, written in Obsidian's conventions.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.catalog_model import NODE_ROLE, error_color
from knowledge_desktop.ui.panes.record import HISTORY_TAB, RENDERED_TAB, SOURCE_TAB
from tests.ui.textkit import char_formats
from tests.vaultkit import wait_idle

DATA = Path(__file__).resolve().parents[1] / "data" / "obsidian-vault"
OpenWindow = Callable[..., MainWindow]


def vault_copy(tmp_path: Path) -> Path:
    target = tmp_path / "obsidian"
    shutil.copytree(DATA, target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


def labels(window: MainWindow) -> dict[tuple[str, str], str]:
    """Every structural row of the catalog: (node kind, label) → its count column."""
    model = window.catalog.model
    out = {}
    stack = [model.index(r, 0) for r in range(model.rowCount())]
    while stack:
        index = stack.pop()
        kind = index.data(NODE_ROLE)
        if kind != "record":
            out[(kind, str(index.data()))] = str(index.siblingAtColumn(1).data())
            stack += [model.index(r, 0, index) for r in range(model.rowCount(index))]
    return out


def test_the_catalog_lists_notes_by_folder_and_the_status_bar_counts_them(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(vault_copy(tmp_path), watch=False)
    rows = labels(window)
    assert rows[("notes", "Notes")] == "12"
    assert rows[("note-folder", "Vault root")] == "3"
    assert rows[("note-folder", "Ideas")] == "3"
    assert rows[("note-folder", "Work")] == "3"
    assert rows[("note-folder", "journals")] == "1"
    assert rows[("scope", "Work")] == "1"  # the one record keeps its partition
    assert not [key for key in rows if key[0] == "unrecognized"]  # notes are not the red group
    model = window.catalog.model
    notes = next(model.index(r, 0) for r in range(model.rowCount()) if model.index(r, 0).data() == "Notes")
    assert model.data(notes, Qt.ItemDataRole.ForegroundRole) != error_color(window.palette())  # neutral
    assert window.catalog.summary.text() == "1 record · 12 notes"
    qtbot.waitUntil(lambda: "12 notes" in window.summary.text(), timeout=10_000)
    assert window.summary.text().startswith("1 record · 12 notes · 0 unrecognized")


def test_selecting_a_note_in_the_catalog_opens_it(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(vault_copy(tmp_path), watch=False)
    catalog, model = window.catalog, window.catalog.model
    ideas = next(n for n in model.root.children if n.kind == "notes").children
    folder = next(n for n in ideas if n.key == ("note", "Ideas"))
    catalog.tree.expand(model.index_of(folder))
    qtbot.waitUntil(lambda: len(folder.children) == 3, timeout=10_000)
    garden = next(c for c in folder.children if c.item["path"] == "Ideas/Garden.md")
    assert model.data(model.index_of(garden)) == "Garden"
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        catalog.tree.setCurrentIndex(model.index_of(garden))
    wait_idle(qtbot, window)
    pane = window.record
    assert pane.loaded is not None
    assert pane.loaded.path == "Ideas/Garden.md"
    assert pane.tabs.currentIndex() == RENDERED_TAB
    header = pane.header.text()
    assert "Garden" in header
    assert "Note" in header
    document = pane.loaded.document
    properties = document.split('id="properties"', 1)[1].split("</table>", 1)[0]
    assert "Yard" in properties
    assert "outdoors/green" in properties
    assert 'id="h-planting"' in document
    assert '<a name="b-seed-list"></a>' in document
    assert "Not a record." not in document
    text = pane.browser.toPlainText()
    assert "^seed-list" not in text
    assert "Back to Welcome" in text  # the link to Welcome.md, resolved
    assert 'href="record:Welcome.md"' in document
    assert "tomatoes" in pane.source.toPlainText()
    assert pane.tabs.tabText(SOURCE_TAB) == "Source"
    assert pane.tabs.tabText(HISTORY_TAB) == "History"
    assert pane.copy_text("path") == "Ideas/Garden.md"


def test_a_note_shows_embeds_images_and_checked_links(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path
) -> None:
    window = open_window(vault_copy(tmp_path), watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("Welcome.md")
    wait_idle(qtbot, window)
    pane = window.record
    assert pane.loaded is not None
    document = pane.loaded.document
    text = pane.browser.toPlainText()
    assert "Flour, water, salt." in text  # ![[Recipe]]
    assert "tomatoes" in text  # ![[Garden#Planting]]
    assert ">my garden</a>" in document
    assert 'href="record:Ideas/Garden.md#h-planting"' in document
    assert 'href="record:Ideas/Garden.md#b-seed-list"' in document
    assert "missing" in document.split(">Nowhere<", 1)[1][:200]
    assert "ambiguous" in document.split(">Todo<", 1)[1][:200]
    assert 'href="tag:status/active"' in document
    drawn = []
    for fmt in char_formats(pane.browser.document()):
        if fmt.isImageFormat():
            name = fmt.toImageFormat().name()
            image = pane.browser.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
            drawn.append((image.width(), image.height()))
    assert sorted(drawn) == [(2, 2), (3, 1)]  # diagram.png and "chart one.png", at their sizes


def test_a_notes_backlinks_are_listed(qtbot: QtBot, open_window: OpenWindow, tmp_path: Path) -> None:
    window = open_window(vault_copy(tmp_path), watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("Welcome.md")
    wait_idle(qtbot, window)
    pane = window.backlinks
    assert pane.heading.isVisible()
    assert pane.heading.text().startswith("Backlinks to Welcome")
    result = pane.result
    assert result is not None
    sources = {entry["path"] for entry in result["linked"]}
    assert {"Ideas/Garden.md", "pages/Logseq Page.md"} <= sources
    garden = next(e for e in result["linked"] if e["path"] == "Ideas/Garden.md")
    assert garden["lines"][0]["context"].startswith("Back to")
    # A note is not dimmed as an ineligible record would be.
    model = pane.model
    linked = model.index(0, 0)
    rows = [model.index(r, 0, linked) for r in range(model.rowCount(linked))]
    assert all(row.data(Qt.ItemDataRole.ForegroundRole) is None for row in rows)


def test_a_link_to_a_pdf_opens_the_file_and_nothing_outside(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = vault_copy(tmp_path)
    window = open_window(root, watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("Welcome.md")
    wait_idle(qtbot, window)
    pane = window.record
    assert pane.loaded is not None
    assert 'href="attachment:attachments/paper.pdf"' in pane.loaded.document
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toLocalFile()))
    )
    pane.browser.anchorClicked.emit(QUrl("attachment:attachments/paper.pdf"))
    assert opened == [str((root / "attachments" / "paper.pdf").resolve())]
    pane.browser.anchorClicked.emit(QUrl("attachment:../outside.pdf"))
    assert len(opened) == 1
    assert "outside the vault" in window.statusBar().currentMessage()
