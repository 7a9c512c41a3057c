"""Obsidian-style Markdown in the window's Record pane (issue 25): images inside the vault are
shown and nothing outside it is read, a `[[Note#Heading]]` link scrolls the opened file to the
heading, a clicked `#tag` filters the catalog, embeds show the other file's text (pytest-qt).

These use records, which every engine already indexes; the same rendering serves notes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import RENDERED_TAB, RecordPane
from knowledge_desktop.ui.render import record_href
from tests.ui.textkit import char_formats
from tests.vaultkit import VaultKit, png, wait_idle

OpenWindow = Callable[..., MainWindow]


def select(qtbot: QtBot, window: MainWindow, key: str) -> RecordPane:
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record(key)
    wait_idle(qtbot, window)
    return window.record


def images(document: QTextDocument) -> list[tuple[str, int, int]]:
    """(src, width, height) of every image the laid-out document draws."""
    found = []
    for fmt in char_formats(document):
        if fmt.isImageFormat():
            name = fmt.toImageFormat().name()
            image = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
            found.append((name, image.width(), image.height()))
    return found


def test_images_inside_the_vault_are_shown_and_none_outside(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, tmp_path: Path
) -> None:
    kit.write("private/attachments/inside.png", png(40, 30))
    outside = tmp_path / "outside.png"
    outside.write_bytes(png(97, 61))
    kit.page(
        "private/notes/pics.md",
        "pg_pics",
        "Pictures",
        "![inside](../attachments/inside.png)\n\n![[inside.png]]\n\n![out](../../../outside.png)\n\n"
        "![linked](linked.png)\n\n![remote](https://example.com/x.png)\n",
        type="note",
    )
    os.symlink(outside, kit.root / "private" / "notes" / "linked.png")
    window = open_window(kit.root, watch=False)
    pane = select(qtbot, window, "pg_pics")
    drawn = images(pane.browser.document())
    # The relative image is drawn at its own size; the symlink out, the path out and the
    # remote address are not read (the outside picture is 97×61).
    assert [(w, h) for _, w, h in drawn] == [(40, 30)]
    text = pane.browser.toPlainText()
    assert "[out]" in text
    assert "[linked]" in text
    assert "[remote]" in text


def test_a_heading_link_opens_the_file_at_the_heading(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    filler = "\n\n".join(f"Paragraph {n} of filler text." for n in range(120))
    kit.page(
        "private/notes/long.md", "pg_long", "Long", f"{filler}\n\n## Far Down\n\n{filler}\n", type="note"
    )
    kit.page("private/notes/src.md", "pg_src", "Source", "Jump to [[long#Far Down]].\n", type="note")
    window = open_window(kit.root, watch=False)
    window.resize(900, 500)
    pane = select(qtbot, window, "pg_src")
    href = record_href("private/notes/long.md") + "#h-far-down"
    assert href in pane.loaded.document  # type: ignore[union-attr]
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        pane.browser.anchorClicked.emit(QUrl(href))
    wait_idle(qtbot, window)
    assert pane.loaded is not None
    assert pane.loaded.path == "private/notes/long.md"
    assert pane.tabs.currentIndex() == RENDERED_TAB
    qtbot.waitUntil(lambda: pane.browser.verticalScrollBar().value() > 0, timeout=5_000)
    top = pane.browser.cursorForPosition(pane.browser.viewport().rect().topLeft()).block().text()
    assert top == "Far Down"


def test_a_clicked_tag_filters_the_catalog(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    kit.page("private/notes/a.md", "pg_a", "Tagged", "About #idea things.\n", type="note", tags=["idea"])
    kit.page("private/notes/b.md", "pg_b", "Untagged", "Nothing.\n", type="note")
    window = open_window(kit.root, watch=False)
    pane = select(qtbot, window, "pg_a")
    assert "tag:idea" in pane.loaded.document  # type: ignore[union-attr]
    pane.browser.anchorClicked.emit(QUrl("tag:idea"))
    wait_idle(qtbot, window)
    assert window.catalog.query.tag == "idea"
    assert window.catalog.filters.tag.currentData() == "idea"
    assert "#idea" in window.statusBar().currentMessage()


def test_an_embed_shows_the_other_files_text(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    kit.page("private/notes/inner.md", "pg_inner", "Inner", "## Part\n\nEmbedded words here.\n", type="note")
    kit.page(
        "private/notes/outer.md", "pg_outer", "Outer", "Before.\n\n![[Inner#Part]]\n\nAfter.\n", type="note"
    )
    window = open_window(kit.root, watch=False)
    pane = select(qtbot, window, "pg_outer")
    text = pane.browser.toPlainText()
    assert "Embedded words here." in text
