"""Small window problems a new user's walkthrough left (issue 29; docs/walkthrough.md).

Ctrl+Z right after a write undoes the write even with the focus in a text field
that has nothing of its own to undo since the write. The publish dialog names
who a write is by and links to Settings › Your Name…, which is wide enough. A
new record's review names the page ids it holds by title. Adopt says that each
top-level folder becomes a partition. Back goes on across Open As Of… and Back to
Now, and comes back to the welcome page from a record one of its links opened.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QSettings, Qt, QUrl
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.forms.new_records import NewReview
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.your_name import os_full_name
from tests.ui import test_timeline_pane as timeline_tests
from tests.ui.test_adopt_action import dry_run_shown, listed_paths
from tests.ui.test_as_of_view import ada_edited_twice
from tests.ui.test_record_forms import WAYFINDER, fill_hanas_commitment, new_form, review
from tests.ui.test_timeline_pane import settle
from tests.ui.test_welcome import started
from tests.ui.test_write_actions import ADA, TEA, diff_text, planned, publish, show, supersede_tea
from tests.vaultkit import VaultKit, frontmatter_of, wait_idle

OpenWindow = Callable[..., MainWindow]
GRACE = "private/people/grace.md"
dated = timeline_tests.dated  # the Timeline tests' dated records, as a fixture here


def test_ctrl_z_in_the_catalog_filter_right_after_a_write_undoes_the_write(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """The filter was typed in before the supersede; after it, the filter has nothing of its
    own to undo, so Ctrl+Z there is Edit › Undo — once what was typed after it is undone."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/coffee.md", "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    window.activateWindow()
    qtbot.waitExposed(window)
    field = window.catalog.filters.filter
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    qtbot.keyClicks(field, "a")
    assert field.isUndoAvailable()
    supersede_tea(qtbot, window)
    wait_idle(qtbot, window)
    field.setFocus()  # where the focus went back to
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    undo = window.writes.undoing
    assert undo.action.isEnabled()
    # typed in after the write, Ctrl+Z is the field's first
    qtbot.keyClicks(field, "d")
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert field.text() == "a"
    assert undo.action.isEnabled()  # the write is still there to undo
    # and with nothing of its own left, the window's
    with qtbot.waitSignal(undo.undone, timeout=20_000) as blocker:
        qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(blocker.args[0], dict)
    assert blocker.args[0]["operation"] == "unsupersede"
    assert field.text() == "a"  # the typing before the write stayed


def test_the_publish_dialog_names_the_actor_and_links_to_your_name(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """The review names who the write is by, with a link that opens Settings › Your Name…;
    a name typed there is the preview's actor and the journal's."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    names = window.writes.your_name
    show(qtbot, window, TEA)
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    before = names.name()
    assert dialog.actor_label.isVisibleTo(dialog)
    assert before in dialog.actor_label.text()
    assert f"actor: {before}" in diff_text(dialog)
    assert "Settings › Your Name…" in dialog.actor_label.text()
    dialog.actor_label.linkActivated.emit("your-name")
    assert names.dialog is not None
    assert names.dialog.parent() is dialog  # over the review, which stays open
    names.dialog.name.setText("Sam Walker")
    names.dialog.accept()
    qtbot.waitUntil(
        lambda: not dialog.busy and dialog.preview is not None and "Sam Walker" in diff_text(dialog)
    )
    assert "Sam Walker" in dialog.actor_label.text()
    assert isinstance(publish(qtbot, dialog, "wrong"), dict)
    assert window.vault is not None
    assert window.vault.journal()["items"][0]["actor"] == "Sam Walker"


def test_the_your_name_dialog_is_wide_enough_for_its_title_and_a_name(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    window = open_window(kit.root, watch=False)
    names = window.writes.your_name
    names.action.trigger()
    dialog = names.dialog
    assert dialog is not None
    metrics = dialog.fontMetrics()
    assert dialog.minimumWidth() > metrics.horizontalAdvance(dialog.windowTitle())
    assert dialog.name.minimumWidth() > metrics.horizontalAdvance(os_full_name())
    dialog.reject()


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


@pytest.mark.qt_log_ignore("grabbing the keyboard", r"support raise\(\)")
def test_a_new_records_review_names_its_page_ids_by_title_without_writing_them(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """The review's file holds `entities: [pg_…]`; under it, each id with its title and type,
    as the form showed them. The file written holds the ids only."""
    window = open_window(demo, watch=False)
    form = new_form(qtbot, window, "claim")
    fill_hanas_commitment(qtbot, form)
    row = form.evidence.rows[0]
    row.path.setText("meetings/2026-09-28-standup.md")
    row.first.setValue(29)
    row.last.setValue(29)
    row.quote.setText("Mira will send Northwind a letter confirming the pause")
    review(qtbot, form)
    shown = window.writes.new.review
    assert isinstance(shown, NewReview)
    assert WAYFINDER in shown.file.toPlainText()
    assert shown.legend.isVisibleTo(shown)
    page = next(p for p in form.vocabulary.pages if p.id == WAYFINDER)
    assert f"{WAYFINDER} = {page.title} ({page.type})" in shown.legend.text()
    assert page.title not in shown.file.toPlainText().split("entities:", 1)[1].split("\n", 1)[0]
    with qtbot.waitSignal(shown.finished_publish, timeout=20_000) as blocker:
        shown.create_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    (item,) = receipt["items"]
    assert frontmatter_of((demo / item["path"]).read_bytes())["entities"] == [WAYFINDER]


def test_the_adopt_dialog_says_each_top_level_folder_becomes_a_partition(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """A notes folder with people/ and projects/: the whole-vault run names the folders that
    become partitions and says what a record's scope is; one partition chosen, it does not."""
    kit.write("people/Ada.md", "Ada. [[Plan]]\n")
    kit.write("projects/Plan.md", "The plan.\n")
    window = open_window(kit.root, watch=False)
    dialog = dry_run_shown(qtbot, window)
    heading = dialog.heading.text()
    assert "Each top-level folder becomes a partition: people/, projects/" in heading
    assert "(a record's scope is its folder)" in heading
    assert "partition(s)" not in heading
    dialog.partition.setCurrentText("people")
    qtbot.waitUntil(lambda: not dialog.busy and listed_paths(dialog) == {"people/Ada.md"})
    assert "becomes a partition" not in dialog.heading.text()
    dialog.reject()


def test_back_goes_on_through_open_as_of_and_back_to_now(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """The past and the present hold the same paths: the history goes on across the switch."""
    kit.page(GRACE, "pg_grace", "Grace Hopper", type="person")
    first = ada_edited_twice(kit)
    kit.close()
    window = open_window(kit.root, watch=False)
    window.open_record(GRACE)
    qtbot.waitUntil(lambda: window.current_path == GRACE, timeout=20_000)
    window.open_record(ADA)
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    back = window.commands.back
    assert back.isEnabled()

    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.past.open(first, "the first edit")
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    assert back.isEnabled()

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.past.back_button.click()
    qtbot.waitUntil(lambda: window.current_path == ADA, timeout=20_000)
    wait_idle(qtbot, window)
    assert back.isEnabled()
    back.trigger()
    assert window.current_path == GRACE


def test_back_returns_to_the_welcome_page_from_a_record_its_link_opened(
    qtbot: QtBot, settings: QSettings
) -> None:
    """The first start shows the welcome page; a link opens a file; Back brings the page back
    and Forward the file again (shown over the page, not under it)."""
    window = started(qtbot, settings)
    welcome = window.welcome
    qtbot.waitUntil(lambda: welcome.showing and bool(welcome.errors))
    back, forward = window.commands.back, window.commands.forward
    assert not back.isEnabled()
    with qtbot.waitSignal(window.current_changed, timeout=20_000):
        welcome.page.anchorClicked.emit(QUrl("welcome:file:0"))
    path = welcome.errors[0].path
    qtbot.waitUntil(lambda: not welcome.showing)
    assert back.isEnabled()
    back.trigger()
    qtbot.waitUntil(lambda: welcome.showing)
    assert forward.isEnabled()
    forward.trigger()
    assert window.current_path == path
    assert not welcome.showing
    assert window.record.stack.currentIndex() == 1  # the record, not the page


def test_the_chronicles_kind_column_fits_its_text_after_an_empty_day(
    qtbot: QtBot, open_window: OpenWindow, dated: VaultKit
) -> None:
    """A day with nothing dated, then one with claims: Kind is as wide as its widest text."""
    window = open_window(dated.root)
    pane = settle(qtbot, window)
    pane.controls.mode_chronicle.setChecked(True)
    pane.controls.day.setDate(QDate(2026, 9, 20))
    settle(qtbot, window)
    assert pane.model.top_level() == []
    pane.controls.day.setDate(QDate(2026, 9, 28))
    settle(qtbot, window)
    kinds = [node.cells[1] for node in pane.model.top_level()]
    assert any(kind.startswith("claim") for kind in kinds)
    tree = pane.tree
    widest = max(tree.fontMetrics().horizontalAdvance(kind) for kind in kinds)
    assert tree.columnWidth(1) >= tree.sizeHintForColumn(1) > widest
