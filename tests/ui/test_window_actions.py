"""Every window action, driven the way a person drives it: key presses, mouse buttons, menus, drops.

Shortcuts are pressed as real keys on an active window (QTest goes through
Qt's shortcut map), so a shortcut that is missing, ambiguous or swallowed by
a child widget fails here. Dialogs the system would show (file pickers, the
About box, the desktop's URL handler) are replaced by recorders.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QAbstractItemModel, QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QFontDatabase,
    QGuiApplication,
    QMouseEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QMenu,
    QMessageBox,
    QPushButton,
    QWidget,
)
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui import main_window as main_window_module
from knowledge_desktop.ui.demo import demo_copy_path
from knowledge_desktop.ui.dialogs import CrashDialog, install_crash_hook
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import SOURCE_TAB
from knowledge_desktop.ui.switcher import QuickSwitcher
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]

ADA = "private/people/ada.md"
BOB = "private/people/bob.md"
CLAIM = "private/claims/ada-likes-tea.md"
MIRA = "pg_01KT13TQ40VBJ1VN"  # Mira Castellanos in the demo vault


@pytest.fixture
def people(kit: VaultKit) -> VaultKit:
    """Two people, a claim about one of them and a relationship between them."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", body="Ada knows [[people/bob|Bob]].\n")
    kit.page(BOB, "pg_bob", "Bob Babbage", type="person")
    kit.claim(CLAIM, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.relationship("private/relationships/ada-knows-bob.md", "rl_knows", "pg_ada", "pg_bob", "knows")
    return kit


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """The bundled demo vault, copied without its index so tests never write into the repository."""
    target = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


@pytest.fixture
def clipboard() -> Iterator[Any]:
    board = QGuiApplication.clipboard()
    board.clear()
    yield board
    board.clear()


def activate(qtbot: QtBot, window: MainWindow) -> None:
    """Make the window the active one, so window shortcuts and focus work as for a user."""
    window.activateWindow()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def press(qtbot: QtBot, window: MainWindow, key: Qt.Key, modifiers: Qt.KeyboardModifier) -> None:
    """Press a key where the focus is, as the keyboard would deliver it."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, key, modifiers)


def open_by_key(qtbot: QtBot, window: MainWindow, key: str) -> None:
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record(key)
    wait_idle(qtbot, window)


def record_loaded(window: MainWindow, path: str) -> bool:
    loaded = window.record.loaded
    return loaded is not None and loaded.path == path


def open_and_show(qtbot: QtBot, window: MainWindow, key: str, path: str) -> None:
    open_by_key(qtbot, window, key)
    qtbot.waitUntil(lambda: record_loaded(window, path), timeout=10_000)
    wait_idle(qtbot, window)


def new_window(qtbot: QtBot, settings: QSettings) -> MainWindow:
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    return window


# -- Go menu: search, quick switcher, pane focus ---------------------------------------------------


def test_ctrl_k_puts_the_cursor_in_the_search_box(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    activate(qtbot, window)
    window.docks["Catalog"].raise_()
    window.catalog.tree.setFocus()
    press(qtbot, window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.search.field
    assert not window.docks["Search"].visibleRegion().isEmpty()


@pytest.mark.parametrize("key", [Qt.Key.Key_P, Qt.Key.Key_O])
def test_quick_switcher_opens_the_title_typed_into_it(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, key: Qt.Key
) -> None:
    """Ctrl+P (or Ctrl+O) pops up the switcher; typing part of a title and Enter opens that record."""
    window = open_window(people.root)
    activate(qtbot, window)
    press(qtbot, window, key, Qt.KeyboardModifier.ControlModifier)
    switcher = window.search.switcher
    assert isinstance(switcher, QuickSwitcher)
    assert switcher.isVisible()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is switcher.field)
    qtbot.keyClicks(switcher.field, "Babb")
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        qtbot.keyClick(switcher.field, Qt.Key.Key_Return)
    assert window.current_path == BOB
    assert not switcher.isVisible()
    wait_idle(qtbot, window)


PANE_KEYS = [
    (Qt.Key.Key_1, "Catalog"),
    (Qt.Key.Key_2, "Search"),
    (Qt.Key.Key_3, "Backlinks"),
    (Qt.Key.Key_4, "Timeline"),
    (Qt.Key.Key_5, "Diagnostics"),
    (Qt.Key.Key_0, "Record"),
]


def focused_pane(window: MainWindow) -> QWidget | None:
    """The pane holding the keyboard focus."""
    widget = QApplication.focusWidget()
    panes: list[QWidget] = list(window.panes)
    while widget is not None and widget not in panes:
        widget = widget.parentWidget()
    return widget


def test_alt_digits_move_the_focus_to_each_pane(
    qtbot: QtBot, open_window: OpenWindow, demo_copy: Path
) -> None:
    """Alt+1…5 focus catalog, search, backlinks, timeline, diagnostics lists; Alt+0 the record."""
    window = open_window(demo_copy)
    open_and_show(qtbot, window, MIRA, "private/people/mira-castellanos.md")
    qtbot.waitUntil(lambda: window.timeline.model.rowCount() > 0, timeout=10_000)
    activate(qtbot, window)
    for key, title in PANE_KEYS:
        press(qtbot, window, key, Qt.KeyboardModifier.AltModifier)
        pane: Any = window.record if title == "Record" else window.docks[title].widget()
        expected = pane.focus_target()
        assert expected.isVisible(), title
        assert QApplication.focusWidget() is expected, title


def test_alt_digits_focus_a_pane_that_shows_only_a_message(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """A pane with nothing to list still takes the focus (its first control), not the pane left."""
    window = open_window(people.root)  # no record open: backlinks and timeline show a message
    activate(qtbot, window)
    for key, title in PANE_KEYS:
        press(qtbot, window, key, Qt.KeyboardModifier.AltModifier)
        expected = window.record if title == "Record" else window.docks[title].widget()
        assert focused_pane(window) is expected, title
    open_and_show(qtbot, window, "pg_ada", ADA)
    window.record.show_source()
    press(qtbot, window, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    press(qtbot, window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    assert QApplication.focusWidget() is window.record.source


def test_alt_digit_brings_back_a_closed_pane(qtbot: QtBot, open_window: OpenWindow, people: VaultKit) -> None:
    window = open_window(people.root)
    activate(qtbot, window)
    window.docks["Backlinks"].close()
    press(qtbot, window, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
    assert window.docks["Backlinks"].isVisible()
    assert focused_pane(window) is window.backlinks


def test_catalog_opens_records_with_the_keyboard_only(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """Tab reaches the tree; Enter opens a group, arrows walk to a record, which opens, and Enter."""
    window = open_window(people.root)
    activate(qtbot, window)
    catalog = window.catalog
    tree = catalog.tree
    press(qtbot, window, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert QApplication.focusWidget() is tree
    for _ in range(8):  # Shift+Tab back up to the filter box …
        if QApplication.focusWidget() is catalog.filters.filter:
            break
        press(qtbot, window, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is catalog.filters.filter
    for _ in range(8):  # … and Tab down through the facet boxes to the tree again
        if QApplication.focusWidget() is tree:
            break
        press(qtbot, window, Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier)
    assert QApplication.focusWidget() is tree
    qtbot.keyClick(tree, Qt.Key.Key_Home)
    for _ in range(30):
        current = tree.currentIndex()
        if catalog.selected_path() == BOB:
            break
        if catalog.model.hasChildren(current) and not tree.isExpanded(current):
            qtbot.keyClick(tree, Qt.Key.Key_Return)  # Enter on a group opens it
            wait_idle(qtbot, window)
            assert tree.isExpanded(current)
        else:
            qtbot.keyClick(tree, Qt.Key.Key_Down)
            wait_idle(qtbot, window)
    assert catalog.selected_path() == BOB
    qtbot.waitUntil(lambda: window.current_path == BOB, timeout=10_000)
    assert window.history.can_back()  # Ada was opened on the way down
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    assert window.current_path == BOB
    qtbot.waitUntil(lambda: record_loaded(window, BOB), timeout=10_000)
    assert QApplication.focusWidget() is tree  # opening from the list leaves the focus there


# -- history: keys and mouse buttons ----------------------------------------------------------------


def three_visits(qtbot: QtBot, window: MainWindow) -> None:
    for key, path in (("pg_ada", ADA), ("pg_bob", BOB), ("cl_tea", CLAIM)):
        open_and_show(qtbot, window, key, path)


def test_alt_left_and_alt_right_walk_the_history(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    three_visits(qtbot, window)
    activate(qtbot, window)
    window.record.focus_target().setFocus()
    assert not window.commands.forward.isEnabled()
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert window.current_path == BOB
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert window.current_path == ADA
    assert not window.commands.back.isEnabled()
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # nothing further back
    assert window.current_path == ADA
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert window.current_path == BOB
    assert window.commands.back.isEnabled()
    assert window.commands.forward.isEnabled()
    qtbot.waitUntil(lambda: record_loaded(window, BOB), timeout=10_000)
    wait_idle(qtbot, window)


def test_alt_left_works_from_the_search_box(qtbot: QtBot, open_window: OpenWindow, people: VaultKit) -> None:
    """A text field does not swallow Alt+Left: it still means Back."""
    window = open_window(people.root)
    three_visits(qtbot, window)
    activate(qtbot, window)
    press(qtbot, window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.search.field, "ada")
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert window.current_path == BOB
    wait_idle(qtbot, window)


def click_extra_button(widget: QWidget, button: Qt.MouseButton) -> None:
    """A press of a mouse's side button over `widget`, as the platform delivers it:
    to the top-level QWindow, which hands it on to the widget under the pointer."""
    top = widget.window()
    handle = top.windowHandle()
    assert handle is not None
    inside = QPointF(widget.mapTo(top, widget.rect().center()))
    event = QMouseEvent(
        QMouseEvent.Type.MouseButtonPress,
        inside,
        QPointF(top.mapToGlobal(inside.toPoint())),
        button,
        button,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(handle, event)


def test_mouse_back_and_forward_buttons_walk_the_history(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """The side buttons work over any part of the window: the record text, a list, the status bar."""
    window = open_window(people.root)
    three_visits(qtbot, window)
    click_extra_button(window.record.browser.viewport(), Qt.MouseButton.BackButton)
    assert window.current_path == BOB
    click_extra_button(window.catalog.tree.viewport(), Qt.MouseButton.BackButton)
    assert window.current_path == ADA
    click_extra_button(window.statusBar(), Qt.MouseButton.ForwardButton)
    assert window.current_path == BOB
    qtbot.waitUntil(lambda: record_loaded(window, BOB), timeout=10_000)
    wait_idle(qtbot, window)


def test_mouse_side_buttons_over_another_window_are_left_alone(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    three_visits(qtbot, window)
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    click_extra_button(other, Qt.MouseButton.BackButton)
    assert window.current_path == CLAIM


# -- the Record menu --------------------------------------------------------------------------------


def test_ctrl_u_shows_the_source_and_again_the_rendered_record(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    open_and_show(qtbot, window, "pg_ada", ADA)
    activate(qtbot, window)
    press(qtbot, window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    press(qtbot, window, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)
    assert window.record.tabs.currentIndex() == SOURCE_TAB
    assert "id: pg_ada" in window.record.source.toPlainText()
    assert QApplication.focusWidget() is window.record.source
    press(qtbot, window, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)
    assert window.record.tabs.currentIndex() != SOURCE_TAB
    assert QApplication.focusWidget() is window.record.browser


def test_copy_shortcuts_put_the_id_and_the_path_on_the_clipboard(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, clipboard: Any
) -> None:
    window = open_window(people.root)
    open_and_show(qtbot, window, "pg_ada", ADA)
    activate(qtbot, window)
    press(qtbot, window, Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    press(qtbot, window, Qt.Key.Key_I, ctrl_shift)
    assert clipboard.text() == "pg_ada"
    assert "pg_ada" in window.statusBar().currentMessage()
    press(qtbot, window, Qt.Key.Key_C, ctrl_shift)
    assert clipboard.text() == ADA


def test_copy_citation_names_title_id_revision_path_and_hash(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, clipboard: Any
) -> None:
    window = open_window(people.root)
    open_and_show(qtbot, window, "cl_tea", CLAIM)
    window.commands.copy_citation.trigger()
    text = clipboard.text()
    assert text.startswith(f"Ada likes tea (cl_tea, revision 1) — {CLAIM} sha256:")
    assert len(text.rsplit("sha256:", 1)[1]) == 64


@pytest.fixture
def opened_urls(monkeypatch: pytest.MonkeyPatch) -> list[QUrl]:
    """URLs the window hands to the desktop (nothing is really opened)."""
    urls: list[QUrl] = []

    def record(url: QUrl) -> bool:
        urls.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(record))
    return urls


def test_external_editor_gets_the_file_and_the_file_manager_its_folder(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, opened_urls: list[QUrl]
) -> None:
    window = open_window(people.root)
    open_and_show(qtbot, window, "pg_ada", ADA)
    activate(qtbot, window)
    press(
        qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    window.commands.reveal.trigger()
    assert [url.toLocalFile() for url in opened_urls] == [
        str(people.root / ADA),
        str((people.root / ADA).parent),
    ]
    assert all(url.isLocalFile() for url in opened_urls)


RECORD_ACTIONS = ("source", "edit", "reveal", "copy_id", "copy_path", "copy_citation")


def test_record_actions_wait_for_a_record_in_focus(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, opened_urls: list[QUrl], clipboard: Any
) -> None:
    """With no record open the Record menu is greyed out, and its shortcuts do nothing."""
    window = open_window(people.root)
    assert not any(getattr(window.commands, name).isEnabled() for name in RECORD_ACTIONS)
    assert not window.commands.back.isEnabled()
    assert not window.commands.forward.isEnabled()
    activate(qtbot, window)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    for key in (Qt.Key.Key_E, Qt.Key.Key_I, Qt.Key.Key_C):
        press(qtbot, window, key, ctrl_shift)
    press(qtbot, window, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)
    assert opened_urls == []
    assert clipboard.text() == ""
    open_and_show(qtbot, window, "pg_ada", ADA)
    assert all(getattr(window.commands, name).isEnabled() for name in RECORD_ACTIONS)


# -- the File menu ------------------------------------------------------------------------------------


def test_ctrl_e_exports_the_diagnostics_to_the_chosen_file(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    people.write("private/notes/broken.md", "---\nformat: knowledge-record-v1\nid: [unclosed\n---\n")
    window = open_window(people.root)
    target = tmp_path / "reports" / "vault-report.json"
    target.parent.mkdir()
    asked: list[str] = []

    def save_as(_parent: QWidget, _caption: str, suggested: str, *_filters: str) -> tuple[str, str]:
        asked.append(suggested)
        return str(target), "JSON (*.json)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    activate(qtbot, window)
    press(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(target.exists, timeout=10_000)
    wait_idle(qtbot, window)
    assert not Path(asked[0]).is_relative_to(people.root)  # the suggestion stays outside the vault
    assert "private/notes/broken.md" in target.read_text(encoding="utf-8")
    assert str(target) in window.statusBar().currentMessage()


def test_export_is_greyed_out_until_a_vault_is_open(qtbot: QtBot, settings: QSettings) -> None:
    window = new_window(qtbot, settings)
    assert not window.commands.export.isEnabled()
    assert window.commands.open.isEnabled()
    assert window.commands.demo.isEnabled()
    window.close()


@pytest.mark.parametrize(
    ("key", "modifiers"),
    [
        (Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier),
        (None, None),  # File › Open Vault… from the menu
    ],
)
def test_open_vault_asks_for_a_folder_and_opens_it(
    qtbot: QtBot,
    settings: QSettings,
    people: VaultKit,
    monkeypatch: pytest.MonkeyPatch,
    key: Qt.Key | None,
    modifiers: Qt.KeyboardModifier | None,
) -> None:
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *_a: str(people.root)))
    window = new_window(qtbot, settings)
    activate(qtbot, window)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        if key is None or modifiers is None:
            window.commands.open.trigger()
        else:
            press(qtbot, window, key, modifiers)
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == people.root
    assert "4 records" in window.summary.text()
    window.close()


def test_reopening_a_vault_says_its_index_was_up_to_date(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)
    assert "4 files read" in window.statusBar().currentMessage()
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(people.root)
    wait_idle(qtbot, window)
    assert window.statusBar().currentMessage() == f"Opened {people.root} — index up to date"


def test_cancelling_the_folder_dialog_keeps_the_open_vault(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *_a: ""))
    window = open_window(people.root)
    vault = window.vault
    window.commands.open.trigger()
    wait_idle(qtbot, window)
    assert window.vault is vault


def recent_entries(window: MainWindow) -> list[str]:
    window.commands.recent_menu.aboutToShow.emit()  # what the menu does as it opens
    return [action.text() for action in window.commands.recent_menu.actions()]


def test_open_recent_lists_vaults_newest_first_and_reopens_one(
    qtbot: QtBot, settings: QSettings, people: VaultKit, tmp_path: Path
) -> None:
    other = VaultKit(tmp_path / "other")
    other.page("private/notes/n.md", "pg_n", "A note", type="note")
    window = new_window(qtbot, settings)
    assert recent_entries(window) == ["No recent vaults"]
    assert not window.commands.recent_menu.actions()[0].isEnabled()
    for root in (people.root, other.root, people.root):
        with qtbot.waitSignal(window.loaded, timeout=30_000):
            window.open_vault(root)
        wait_idle(qtbot, window)
    assert recent_entries(window) == [str(people.root), str(other.root)]  # no repeats
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.commands.recent_menu.actions()[1].trigger()
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == other.root
    assert recent_entries(window)[0] == str(other.root)
    window.close()


def test_open_demo_vault_opens_the_bundled_example(qtbot: QtBot, settings: QSettings) -> None:
    """The menu entry opens the demo vault: the person's copy of the bundled one, in their data
    folder (the test's own here), so the install's stays untouched (issue 29, §8)."""
    assert (demo_vault_path() / "private").is_dir()
    demo_copy = demo_copy_path()
    window = new_window(qtbot, settings)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.commands.demo.trigger()
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == demo_copy
    assert window.windowTitle() == "demo-vault — Knowledge Desktop"
    window.close()


def file_drag(path: Path) -> QMimeData:
    """What a file manager carries when `path` is dragged out of it."""
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    return data


def drop(window: MainWindow, data: QMimeData) -> QDropEvent:
    """Drop `data` onto the middle of the window; returns the event (keep `data` alive meanwhile)."""
    event = QDropEvent(
        QPointF(window.rect().center()),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, event)
    return event


def drag_enter(window: MainWindow, data: QMimeData) -> QDragEnterEvent:
    event = QDragEnterEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, event)
    return event


def test_dropping_a_folder_on_the_window_opens_it(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, tmp_path: Path
) -> None:
    other = VaultKit(tmp_path / "dropped")
    other.page("private/notes/n.md", "pg_n", "A note", type="note")
    window = open_window(people.root)
    data = file_drag(other.root)
    assert drag_enter(window, data).isAccepted()  # the cursor shows the folder is welcome
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        event = drop(window, data)
    assert event.isAccepted()
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == other.root


@pytest.mark.parametrize("what", ["file", "web link"])
def test_dropping_something_other_than_a_folder_is_refused(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """A file or a link is turned away at the door: no attempt to open it, no error box."""
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text: warned.append(text)))
    window = open_window(people.root)
    vault = window.vault
    data = file_drag(people.root / ADA)
    if what == "web link":
        data.setUrls([QUrl("https://example.org/vault")])
    assert not drag_enter(window, data).isAccepted()
    assert not drop(window, data).isAccepted()
    wait_idle(qtbot, window)
    assert window.vault is vault
    assert warned == []


def test_ctrl_q_closes_the_window(qtbot: QtBot, settings: QSettings) -> None:
    window = new_window(qtbot, settings)
    activate(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()


# -- Help and crashes ---------------------------------------------------------------------------------


def test_about_box_names_the_application(
    qtbot: QtBot, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "about", staticmethod(lambda _p, title, text: shown.append((title, text)))
    )
    window = new_window(qtbot, settings)
    window.commands.about.trigger()
    assert len(shown) == 1
    title, text = shown[0]
    assert title == "About Knowledge Desktop"
    assert "knowledge-record-v1" in text
    window.close()


def test_a_bug_in_a_worker_shows_the_traceback_with_a_copy_button(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, clipboard: Any
) -> None:
    window = open_window(people.root)

    def buggy() -> None:
        raise RuntimeError("the index fell over")

    with qtbot.waitSignal(window.runner.crashed, timeout=10_000):
        window.runner.submit(buggy, lambda _result: None)
    dialogs = window.findChildren(CrashDialog)
    assert len(dialogs) == 1
    dialog = dialogs[0]
    assert dialog.isVisible()
    trace = dialog.details.toPlainText()
    assert "Traceback" in trace
    assert "RuntimeError: the index fell over" in trace
    assert "in buggy" in trace
    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert dialog.details.font().family() == fixed.family()  # the ^^^ markers stay under the code
    copy = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Copy details")
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert clipboard.text() == trace
    close = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Close")
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert window.vault is not None  # a bug in one request leaves the vault open


@pytest.mark.qt_no_exception_capture  # pytest-qt would take sys.excepthook for itself
def test_a_bug_in_a_slot_on_the_main_thread_reaches_the_crash_dialog(
    qtbot: QtBot, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = new_window(qtbot, settings)
    shown: list[str] = []
    monkeypatch.setattr(main_window_module, "show_crash", lambda _parent, trace: shown.append(trace))
    failed: list[str] = []
    window.load_failed.connect(failed.append)
    before = sys.excepthook
    restore = install_crash_hook(window.show_crash)
    assert sys.excepthook is not before

    def clicked() -> None:
        raise RuntimeError("the slot fell over")

    button = QPushButton("Go")
    qtbot.addWidget(button)
    button.clicked.connect(clicked)
    try:
        button.click()  # Qt calls the slot; the exception escapes to sys.excepthook
    finally:
        restore()
    assert sys.excepthook is before
    assert len(shown) == 1
    assert "Traceback" in shown[0]
    assert "RuntimeError: the slot fell over" in shown[0]
    assert "in clicked" in shown[0]
    assert failed == shown  # the window hears of it as of a worker's crash
    window.close()


def test_an_environment_error_in_a_worker_is_a_status_message_not_a_crash(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root)

    def unreadable() -> None:
        raise PermissionError("cannot read private/people/ada.md")

    with qtbot.waitSignal(window.runner.failed, timeout=10_000):
        window.runner.submit(unreadable, lambda _result: None)
    assert window.findChildren(CrashDialog) == []
    assert "cannot read" in window.statusBar().currentMessage()


# -- the View menu and the window's memory ---------------------------------------------------------------


def view_action(window: MainWindow, title: str) -> QAction:
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert isinstance(view, QMenu)
    return next(a for a in view.actions() if a.text() == f"{title} pane")


@pytest.mark.parametrize("title", ["Catalog", "Search", "Backlinks", "Timeline", "Diagnostics"])
def test_view_menu_hides_and_shows_each_pane(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, title: str
) -> None:
    window = open_window(people.root)
    action = view_action(window, title)
    dock = window.docks[title]
    assert action.isChecked()
    action.trigger()
    assert not dock.isVisible()
    assert not action.isChecked()
    action.trigger()
    assert dock.isVisible()
    assert action.isChecked()


def test_a_hidden_pane_stays_hidden_after_reopening(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit, settings: QSettings
) -> None:
    window = open_window(people.root)
    view_action(window, "Backlinks").trigger()
    assert not window.docks["Backlinks"].isVisible()
    window.close()
    again = new_window(qtbot, settings)
    assert not again.docks["Backlinks"].isVisible()
    assert not view_action(again, "Backlinks").isChecked()
    assert again.docks["Timeline"].isVisible()
    again.close()


# -- every item model the window holds ----------------------------------------------------------------------


def test_every_model_in_the_window_passes_the_model_tester(
    qtbot: QtBot, qtmodeltester: ModelTester, open_window: OpenWindow, demo_copy: Path, request: Any
) -> None:
    """Each of our models, checked as filled, then kept under test while the window changes them."""
    window = open_window(demo_copy)
    open_and_show(qtbot, window, MIRA, "private/people/mira-castellanos.md")
    window.search.set_query("wayfinder")
    qtbot.waitUntil(lambda: window.search.model.rowCount() > 0, timeout=10_000)
    window.quick_switch()  # its model is made on first use
    switcher = window.search.switcher
    assert switcher is not None
    qtbot.keyClicks(switcher.field, "mira")
    qtbot.waitUntil(lambda: switcher.model.rowCount() > 0, timeout=10_000)
    switcher.hide()
    wait_idle(qtbot, window)

    # Models parented to a widget, and models views show (panes keep theirs without a parent).
    found = window.findChildren(QAbstractItemModel)
    found += [view.model() for view in window.findChildren(QAbstractItemView)]
    models: list[QAbstractItemModel] = []
    for model in found:
        if type(model).__module__.startswith("knowledge_desktop.") and model not in models:
            models.append(model)
    assert sorted(type(m).__name__ for m in models) == [
        "BacklinksModel",
        "CatalogModel",
        "DiagnosticsModel",
        "ResultsModel",  # search results
        "ResultsModel",  # quick switcher suggestions
        "TimelineModel",
    ]
    testers = [qtmodeltester] + [ModelTester(request.config) for _ in models[1:]]
    for tester, model in zip(testers, models, strict=True):
        tester.check(model)

    # Changes made while the testers watch: another record, another search, the catalog opened up.
    open_and_show(qtbot, window, "pg_01KT14D1201AMQ6A", "private/people/elif-demir.md")
    window.search.set_query("ledgerlight")
    qtbot.waitUntil(lambda: not window.runner.running, timeout=10_000)
    window.catalog.tree.expandAll()
    window.catalog.filters.filter.setText("a")
    # the catalog filter waits for a pause in typing, then asks for its rows
    qtbot.waitUntil(lambda: not window.catalog.filters._debounce.isActive(), timeout=5_000)
    wait_idle(qtbot, window)
    for tester in testers[1:]:
        tester._cleanup()
