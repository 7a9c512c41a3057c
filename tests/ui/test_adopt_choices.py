"""File › Adopt Notes… gives choices (issue 29, §5): a page type per note and per folder from
the ontology, each note filed in its type's folder (a move, links kept, undone with the run) or
left where it is without a `misfiled` warning, under Your Name."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QCheckBox, QComboBox
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.adopt_action import AdoptDialog
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.your_name import KEY
from tests.vaultkit import VaultKit, frontmatter_of, wait_idle

OpenWindow = Callable[..., MainWindow]


def notes(kit: VaultKit) -> None:
    kit.write("private/Ada.md", "# Ada Lovelace\n\nWrote the first program.\n")
    kit.write("private/Index.md", "# Index\n\nSee [[Ada]].\n")
    kit.write("private/journal/Monday.md", "# Monday\n\nMet [[Ada]].\n")


def shown(qtbot: QtBot, window: MainWindow) -> AdoptDialog:
    window.writes.adopt.action.trigger()
    dialog = window.writes.adopt.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.busy and dialog.dry is not None)
    return dialog


def rerun(qtbot: QtBot, dialog: AdoptDialog, change: Callable[[], None]) -> dict[str, dict[str, object]]:
    """Make a choice, wait for the dry run it starts, and give its files by path."""
    with qtbot.waitSignal(dialog.planned, timeout=30_000):
        change()
    qtbot.waitUntil(lambda: not dialog.busy)
    assert dialog.dry is not None
    return {f["path"]: f for f in dialog.dry["files"]}


def test_a_note_typed_person_is_filed_in_people_and_its_links_still_reach_it(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    notes(kit)
    window = open_window(kit.root, watch=False)
    window.settings.setValue(KEY, "Grace Hopper")
    dialog = shown(qtbot, window)
    combo = dialog.table.widget("private/Ada.md", 2)
    assert isinstance(combo, QComboBox)
    offered = [combo.itemText(i) for i in range(combo.count())]
    assert {"note", "person", "event"} <= set(offered)  # the ontology's page types
    files = rerun(qtbot, dialog, lambda: combo.setCurrentText("person"))
    assert files["private/Ada.md"]["type"] == "person"
    place = dialog.table.widget("private/Ada.md", 3)
    assert isinstance(place, QCheckBox)
    assert place.text() == "File in people/"
    files = rerun(qtbot, dialog, lambda: place.setChecked(True))
    assert files["private/Ada.md"]["movedTo"] == "private/people/Ada.md"
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000) as blocker:
        dialog.adopt_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    wait_idle(qtbot, window)
    assert not (kit.root / "private/Ada.md").exists()
    assert frontmatter_of((kit.root / "private/people/Ada.md").read_bytes())["type"] == "person"
    vault = window.vault
    assert vault is not None
    assert vault.journal()["items"][0]["actor"] == "Grace Hopper"
    linked = {row["path"] for row in vault.backlinks("private/people/Ada.md")["linked"]}
    assert linked == {"private/Index.md", "private/journal/Monday.md"}
    assert not {d.code for d in vault.diagnostics()} & {"link-missing", "misfiled"}


def test_a_folder_typed_event_left_in_place_is_not_misfiled(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    notes(kit)
    window = open_window(kit.root, watch=False)
    dialog = shown(qtbot, window)
    combo = dialog.table.widget("private/journal", 1)
    assert isinstance(combo, QComboBox)
    files = rerun(qtbot, dialog, lambda: combo.setCurrentText("event"))
    assert files["private/journal/Monday.md"]["type"] == "event"
    assert files["private/journal/Monday.md"]["movedTo"] is None
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000):
        dialog.adopt_button.click()
    wait_idle(qtbot, window)
    data = frontmatter_of((kit.root / "private/journal/Monday.md").read_bytes())
    assert (data["type"], data["filing"]) == ("event", "in-place")
    vault = window.vault
    assert vault is not None
    assert "misfiled" not in {d.code for d in vault.diagnostics()}


def test_a_vault_of_plain_notes_says_so_in_the_catalog_and_its_link_opens_adopt(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """Before adopting, a vault that is mostly notes says so and points to Adopt Notes…; once
    they are records, the hint goes."""
    notes(kit)
    window = open_window(kit.root, watch=False)
    hint = window.catalog.adopt_hint
    qtbot.waitUntil(hint.isVisible)
    assert "3 notes, 0 records" in hint.text()
    hint.linkActivated.emit("adopt")
    dialog = window.writes.adopt.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.busy and dialog.dry is not None)
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000):
        dialog.adopt_button.click()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: not hint.isVisible())


def test_notes_at_the_vault_root_are_shown_moving_into_the_partition_chosen(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """Issue 25 §5: the dialog adopts the root's notes too, says where each goes, and lets the
    person pick the partition (the CLI's --root-into); links keep their files."""
    kit.write("Home.md", "# Home\n\nSee [[Beta]] and [the plan](a/Plan.md).\n")
    kit.write("Beta.md", "Back [home](Home.md).\n")
    kit.write("a/Plan.md", "# Plan\n\nFrom [[Home]].\n")
    kit.write("b/Other.md", "Other.\n")
    window = open_window(kit.root, watch=False)
    dialog = shown(qtbot, window)
    assert dialog.dry is not None
    assert dialog.dry["rootInto"] == "private"  # two partitions of notes: the default
    place = dialog.table.widget("Home.md", 3)
    assert place is not None
    assert place.text() == "moves to private/Home.md"  # type: ignore[attr-defined]
    assert dialog.root_into.isVisibleTo(dialog)
    assert [dialog.root_into.itemText(i) for i in range(dialog.root_into.count())] == ["a", "b", "private"]
    files = rerun(qtbot, dialog, lambda: dialog.root_into.setCurrentText("b"))
    assert files["Home.md"]["movedTo"] == "b/Home.md"
    assert "1 Markdown link path(s)" in dialog.heading.text()
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000) as blocker:
        dialog.adopt_button.click()
    assert isinstance(blocker.args[0], dict), blocker.args[0]
    wait_idle(qtbot, window)
    assert (kit.root / "b/Home.md").read_text().endswith("See [[Beta]] and [the plan](../a/Plan.md).\n")
    vault = window.vault
    assert vault is not None
    linked = {row["path"] for row in vault.backlinks("b/Home.md")["linked"]}
    assert linked == {"b/Beta.md", "a/Plan.md"}
    assert "link-missing" not in {d.code for d in vault.diagnostics()}
