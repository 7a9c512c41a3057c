"""The Record pane in the window: loading, links, source view, copying, live updates (pytest-qt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QTextCursor
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes import record as record_module
from knowledge_desktop.ui.panes.record import EMPTY_TEXT, RENDERED_TAB, SOURCE_TAB, RecordPane
from knowledge_desktop.ui.render import record_href
from knowledge_desktop.ui.style import dark_palette
from tests.vaultkit import VaultKit, fence_of, wait_idle

OpenWindow = Callable[[Path], MainWindow]


@pytest.fixture
def quiet_window(open_window: Callable[..., MainWindow]) -> OpenWindow:
    """A window without the file watcher, so each test decides when a change is applied."""
    return lambda path: open_window(path, watch=False)


def select(qtbot: QtBot, window: MainWindow, key: str, line: int = 0) -> RecordPane:
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record(key, line)
    wait_idle(qtbot, window)
    return window.record


def apply(qtbot: QtBot, window: MainWindow, *paths: str) -> None:
    """Reconcile `paths` and hand the change to the window, as the watcher does."""
    assert window.vault is not None
    change = window.vault.reconcile(list(paths))
    window.apply_change(change)
    wait_idle(qtbot, window)


def people(kit: VaultKit) -> None:
    kit.page(
        "private/people/ada.md",
        "pg_ada",
        "Ada Lovelace",
        "Ada worked with [[Charles Babbage]] on the [[Nowhere engine]].\n\nSee https://example.org.\n",
        type="person",
    )
    kit.page("private/people/charles.md", "pg_charles", "Charles Babbage", "Inventor.\n", type="person")


def test_empty_state_until_a_record_is_selected(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = window.record
    assert pane.stack.currentIndex() == 0
    assert pane.empty.text() == EMPTY_TEXT
    assert pane.copy_text("id") is None
    select(qtbot, window, "pg_ada")
    assert pane.stack.currentIndex() == 1
    assert "Ada Lovelace" in pane.header.text()
    assert "Ada worked with Charles Babbage" in pane.browser.toPlainText()
    assert pane.tabs.currentIndex() == RENDERED_TAB
    assert "Ada worked with" in pane.source.toPlainText()


def test_clicking_an_internal_link_opens_the_record(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    assert record_href("private/people/charles.md") in pane.loaded.document  # type: ignore[union-attr]
    with qtbot.waitSignal(pane.open_requested) as opened:
        pane.browser.anchorClicked.emit(QUrl(record_href("private/people/charles.md")))
    assert opened.args == ["private/people/charles.md", 0]
    wait_idle(qtbot, window)
    assert window.current_path == "private/people/charles.md"
    assert "Charles Babbage" in pane.header.text()


def link_point(pane: RecordPane, href: str) -> QPoint:
    """The viewport point at the middle of the first character of the link to `href`."""
    block = pane.browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(pane.browser.document())
                cursor.setPosition(fragment.position() + 1)
                return pane.browser.cursorRect(cursor).center() - QPoint(2, 0)
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href}")


def test_a_mouse_click_on_a_link_asks_the_window_and_the_browser_stays_put(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    href = record_href("private/people/charles.md")
    with qtbot.waitSignal(pane.open_requested) as opened:
        qtbot.mouseClick(pane.browser.viewport(), Qt.MouseButton.LeftButton, pos=link_point(pane, href))
    assert opened.args == ["private/people/charles.md", 0]
    assert pane.browser.source().isEmpty()  # QTextBrowser did not navigate by itself
    wait_idle(qtbot, window)


def test_refused_and_external_links(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toString())))
    requests: list[tuple[str, int]] = []
    pane.open_requested.connect(lambda key, line: requests.append((key, line)))
    pane.browser.anchorClicked.emit(QUrl("javascript:alert(1)"))
    pane.browser.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert opened == []
    assert requests == []
    pane.browser.anchorClicked.emit(QUrl("https://example.org/page"))
    assert opened == ["https://example.org/page"]
    assert pane.browser.loadResource(0, QUrl("https://example.org/tracker.png")) is None


def test_reveal_line_switches_to_the_source_at_that_line(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada", line=4)
    assert pane.tabs.currentIndex() == SOURCE_TAB
    assert pane.source.current_line == 4
    assert pane.source.textCursor().blockNumber() == 3
    pane.tabs.setCurrentIndex(RENDERED_TAB)
    pane.reveal_line(2)  # already loaded: immediate
    assert pane.tabs.currentIndex() == SOURCE_TAB
    assert pane.source.textCursor().blockNumber() == 1


def test_diagnostic_lines_are_marked_and_banner_links_jump_to_them(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    missing_line = next(d["line"] for d in pane.loaded.view["diagnostics"] if d["code"] == "link-missing")  # type: ignore[union-attr]
    assert missing_line in pane.source.line_messages
    assert "matches no record" in pane.source.line_messages[missing_line]
    pane.browser.anchorClicked.emit(QUrl(f"line:{missing_line}"))
    assert pane.tabs.currentIndex() == SOURCE_TAB
    assert pane.source.current_line == missing_line


def test_show_source_toggles(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    window.commands.source.trigger()
    assert pane.tabs.currentIndex() == SOURCE_TAB
    window.commands.source.trigger()
    assert pane.tabs.currentIndex() == RENDERED_TAB


def test_copy_id_path_and_citation(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    assert pane.copy_text("id") == "pg_ada"
    assert pane.copy_text("path") == "private/people/ada.md"
    cite = pane.copy_text("citation") or ""
    sha = pane.loaded.view["hash"]  # type: ignore[union-attr]
    assert cite == f"Ada Lovelace (pg_ada, revision 1) — private/people/ada.md sha256:{sha}"
    window.commands.copy_citation.trigger()
    assert QGuiApplication.clipboard().text() == cite


def test_saved_by_shows_the_agent(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    """The header names who published the revision on screen (spec: records-and-ontology,
    Displayed author; the write side journals the actor of every save)."""
    people(kit)
    window = quiet_window(kit.root)
    assert window.vault is not None
    window.vault.edit_body(fence_of(window.vault, "pg_ada"), "Rewritten.\n", actor="agent:scribe")
    pane = select(qtbot, window, "pg_ada")
    assert "Saved by" in pane.header.text()
    assert "agent:scribe" in pane.header.text()


def test_the_record_on_screen_re_renders_when_its_file_changes(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    long_body = "".join(f"Paragraph {n} about [[Charles Babbage]].\n\n" for n in range(300))
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", long_body, type="person")
    kit.page("private/people/charles.md", "pg_charles", "Charles Babbage", type="person")
    window = quiet_window(kit.root)
    window.resize(1000, 700)
    pane = select(qtbot, window, "pg_ada")
    bar = pane.browser.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    kept = bar.value()
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada King", long_body + "A new closing line.\n", type="person"
    )
    apply(qtbot, window, "private/people/ada.md")
    assert "Ada King" in pane.header.text()
    assert "A new closing line." in pane.browser.toPlainText()
    assert "A new closing line." in pane.source.toPlainText()
    assert abs(bar.value() - kept) <= 2


def test_a_linked_records_change_refreshes_the_view(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    assert "Nowhere engine" in pane.browser.toPlainText()
    kit.page("private/projects/nowhere.md", "pg_nw", "Nowhere engine", type="project")
    apply(qtbot, window, "private/projects/nowhere.md")
    assert record_href("private/projects/nowhere.md") in pane.loaded.document  # type: ignore[union-attr]


def test_a_deleted_file_shows_a_deleted_banner(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    (kit.root / "private/people/ada.md").unlink()
    apply(qtbot, window, "private/people/ada.md")
    assert pane.loaded is not None
    assert pane.loaded.gone
    assert window.current_path == "private/people/ada.md"  # no other record was opened instead
    text = pane.browser.toPlainText()
    assert "Deleted." in text
    assert "Ada worked with" in text  # the last content stays readable


def test_a_moved_file_shows_where_it_went(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    target = kit.root / "private/people/countess.md"
    (kit.root / "private/people/ada.md").rename(target)
    apply(qtbot, window, "private/people/ada.md", "private/people/countess.md")
    assert pane.loaded is not None
    assert "Moved." in pane.browser.toPlainText()
    assert record_href("private/people/countess.md") in pane.loaded.document
    pane.browser.anchorClicked.emit(QUrl(record_href("private/people/countess.md")))
    wait_idle(qtbot, window)
    assert window.current_path == "private/people/countess.md"
    assert not pane.loaded.gone
    assert "Moved." not in pane.browser.toPlainText()


def test_a_huge_file_shows_its_source_with_a_notice(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_module, "RENDER_LIMIT", 64 * 1024)
    monkeypatch.setattr(record_module, "SOURCE_LIMIT", 128 * 1024)
    body = "".join(f"Line {n} of a very long diary.\n" for n in range(20_000))  # about 620 KB
    kit.page("private/diary/long.md", "pg_long", "Long diary", body, type="diary")
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_long")
    assert pane.tabs.currentIndex() == SOURCE_TAB
    assert "too large to render" in pane.browser.toPlainText()
    assert "Line 19999" not in pane.browser.toPlainText()
    assert len(pane.source.toPlainText()) <= 128 * 1024
    assert "Line 0 of a very long diary" in pane.source.toPlainText()


def test_a_file_that_is_not_utf8_gets_a_notice(quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> None:
    kit.write("private/notes/latin1.md", "---\ntitle: Caf\xe9\n---\nCaf\xe9 cr\xe8me\n".encode("latin-1"))
    kit.write("private/notes/binary.md", b"\x00\x01\x02PNG\x00" * 50)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "private/notes/latin1.md")
    assert "not valid UTF-8" in pane.browser.toPlainText()
    assert pane.tabs.currentIndex() == SOURCE_TAB
    assert "\ufffd" in pane.source.toPlainText()
    pane = select(qtbot, window, "private/notes/binary.md")
    assert "\x00" not in pane.source.toPlainText()
    assert pane.stack.currentIndex() == 1


def test_a_missing_record_shows_a_message_not_a_crash(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = window.record
    pane.set_current("private/people/nobody.md")
    wait_idle(qtbot, window)
    assert pane.stack.currentIndex() == 0
    assert "not in this vault" in pane.empty.text()


def test_the_dark_palette_re_renders_with_dark_colours(
    quiet_window: OpenWindow, kit: VaultKit, qtbot: QtBot
) -> None:
    people(kit)
    window = quiet_window(kit.root)
    pane = select(qtbot, window, "pg_ada")
    assert not pane._colors().dark
    pane.setPalette(dark_palette())
    wait_idle(qtbot, window)
    assert pane._colors().dark
    assert "#1e1f22" in pane.loaded.document or "#dfe1e5" in pane.loaded.document  # type: ignore[union-attr]


def test_links_of_a_generated_section_are_looked_up_for_navigation(kit: VaultKit) -> None:
    kit.page("private/meetings/kickoff.md", "pg_kick", "Kickoff notes", type="meeting")
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    body = (
        "About Ada.\n\n<!-- backlinks:start -->\n## Backlinks\n\n"
        "- [[Kickoff notes]]\n- [[people/ada]]\n- [[No such page]]\n<!-- backlinks:end -->\n"
    )
    kit.page("private/notes/n.md", "pg_n", "Note", body, type="note")
    vault = kit.scan()
    view = vault.show("pg_n")
    assert record_module.resolve_generated(vault, view) == {
        ("wiki", "Kickoff notes"): "private/meetings/kickoff.md",
        ("wiki", "people/ada"): "private/people/ada.md",
    }
