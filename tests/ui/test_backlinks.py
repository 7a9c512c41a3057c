"""The Backlinks pane: groups, empty state, opening rows, live updates (pytest-qt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QPersistentModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.tree_model import LINE_ROLE, MARK_ROLE, OPEN_KEY_ROLE
from knowledge_desktop.ui.panes.backlinks import BacklinksPane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


@pytest.fixture
def vault_kit(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", "About Ada.\n", aliases=["Countess"])
    kit.page(
        "private/people/babbage.md", "pg_bab", "Charles Babbage", "Intro.\nWorked with [[Ada Lovelace]].\n"
    )
    kit.page("private/projects/engine.md", "pg_eng", "Analytical Engine", "The engine.\n")
    kit.relationship("private/relationships/ada-engine.md", "rl_out", "pg_ada", "pg_eng", "relates_to")
    kit.relationship("private/relationships/bab-ada.md", "rl_in", "pg_bab", "pg_ada", "mentions")
    kit.claim("private/claims/about.md", "cl_about", "Ada likes tea", entities=["pg_ada"])
    kit.page("private/notes/tea.md", "pg_tea", "Tea notes", "The Countess drank tea.\n")
    kit.page("private/notes/other.md", "pg_other", "Other", "About engines only.\n")
    return kit


def show(qtbot: QtBot, window: MainWindow, key: str) -> BacklinksPane:
    window.open_record(key)
    wait_idle(qtbot, window)
    return window.backlinks


def top_titles(pane: BacklinksPane) -> list[str]:
    return [node.cells[0] for node in pane.model.top_level()]


def test_every_group_is_shown_with_counts(qtbot: QtBot, open_window: OpenWindow, vault_kit: VaultKit) -> None:
    pane = show(qtbot, open_window(vault_kit.root), "pg_ada")
    assert top_titles(pane) == [
        "Linked from  ·  1",
        "Relationships  ·  2",
        "Referenced by  ·  1",
        "Unlinked mentions  ·  1",
    ]
    assert pane.heading.text() == "Backlinks to Ada Lovelace  ·  5"
    assert QObject.parent(pane.model) is pane
    assert pane.focus_target() is pane.tree
    source = vault_kit.root / "private/people/babbage.md"
    number = source.read_text().splitlines().index("Worked with [[Ada Lovelace]].") + 1
    line = pane.model.find_key("linked", "src:private/people/babbage.md", f"line:{number}")
    assert line.data() == "Worked with Ada Lovelace."
    start, end = line.data(MARK_ROLE)
    assert line.data()[start:end] == "Ada Lovelace"
    assert (line.data(OPEN_KEY_ROLE), line.data(LINE_ROLE)) == ("private/people/babbage.md", number)

    relates = pane.model.find_key("relationships", "label:relates_to")
    assert relates.data() == "Relates to  ·  1"
    out = pane.model.index(0, 0, relates)
    assert out.data() == "→ Analytical Engine"
    incoming = pane.model.index(0, 0, pane.model.find_key("relationships", "label:mentions"))
    assert incoming.data() == "← Charles Babbage"
    assert incoming.data(OPEN_KEY_ROLE) == "private/people/babbage.md"

    claims = pane.model.find_key("references", "field:entities")
    assert claims.data() == "Claims about it  ·  1"
    assert pane.model.index(0, 0, claims).data() == "Ada likes tea"

    mention = pane.model.find_key("mentions", "mention:private/notes/tea.md")
    context = pane.model.index(0, 0, mention)
    assert context.data() == "The Countess drank tea."
    assert pane.tree.isExpanded(mention)


def test_models_pass_the_model_tester(
    qtbot: QtBot, qtmodeltester: ModelTester, open_window: OpenWindow, vault_kit: VaultKit
) -> None:
    pane = show(qtbot, open_window(vault_kit.root), "pg_ada")
    qtmodeltester.check(pane.model)


def test_a_record_nothing_points_at_says_so(
    qtbot: QtBot, open_window: OpenWindow, vault_kit: VaultKit
) -> None:
    window = open_window(vault_kit.root)
    assert "Open a record" in window.backlinks.empty.text()
    pane = show(qtbot, window, "pg_other")
    assert pane.stack.currentWidget() is pane.empty
    assert pane.empty.text().startswith("No backlinks to Other")
    assert pane.empty.alignment() & Qt.AlignmentFlag.AlignTop
    assert pane.heading.isHidden()
    assert pane.focus_target() is pane.empty


def test_double_click_opens_the_linking_record_at_its_line(
    qtbot: QtBot, open_window: OpenWindow, vault_kit: VaultKit
) -> None:
    window = open_window(vault_kit.root)
    pane = show(qtbot, window, "pg_ada")
    index = pane.model.index(0, 0, pane.model.find_key("linked", "src:private/people/babbage.md"))
    number = index.data(LINE_ROLE)
    assert number > 1
    pane.tree.scrollTo(index)
    centre = pane.tree.visualRect(index).center()
    with qtbot.waitSignal(pane.open_requested) as opened:
        qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert opened.args == ["private/people/babbage.md", number]
    wait_idle(qtbot, window)
    assert window.current_path == "private/people/babbage.md"


def test_enter_on_a_relationship_opens_the_other_end(
    qtbot: QtBot, open_window: OpenWindow, vault_kit: VaultKit
) -> None:
    window = open_window(vault_kit.root)
    pane = show(qtbot, window, "pg_ada")
    index = pane.model.index(0, 0, pane.model.find_key("relationships", "label:relates_to"))
    pane.tree.setCurrentIndex(index)
    with qtbot.waitSignal(pane.open_requested) as opened:
        qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    assert opened.args == ["private/projects/engine.md", 0]


def test_a_new_link_appears_without_resetting_the_tree(
    qtbot: QtBot, open_window: OpenWindow, vault_kit: VaultKit
) -> None:
    window = open_window(vault_kit.root)
    pane = show(qtbot, window, "pg_ada")
    group = QPersistentModelIndex(pane.model.find_key("linked"))
    resets: list[bool] = []
    pane.model.modelReset.connect(lambda: resets.append(True))
    written = vault_kit.page("private/notes/tea.md", "pg_tea", "Tea notes", "The [[Countess]] drank tea.\n")
    assert window.vault is not None
    change = window.vault.reconcile([str(written.relative_to(vault_kit.root))])
    window.apply_change(change)
    wait_idle(qtbot, window)
    assert group.isValid()
    assert group.row() == 0
    assert group.data() == "Linked from  ·  2"
    assert "Unlinked mentions  ·  1" not in top_titles(pane)  # it links now
    assert resets == []


def test_a_persons_mentions_are_the_mention_matchers(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """Issue 27 §4: for a person page the pane lists the mentions `documents.get` counts
    (exact, case-aware, word-bounded names), at the line the matcher found them."""
    kit.page(
        "private/people/grace.md",
        "pg_grace",
        "Grace Hopper",
        "Admiral.\n",
        type="person",
        aliases=["Amazing"],
    )
    kit.page("private/notes/fair.md", "pg_fair", "Fair", "Stalls and rides.\n\nWe met Grace Hopper there.\n")
    kit.page("private/notes/hymn.md", "pg_hymn", "Hymn", "An amazing grace hopper of a tune.\n")
    kit.page("private/notes/ship.md", "pg_ship", "Ship", "The Amazing sailed at dawn.\n")
    pane = show(qtbot, open_window(kit.root), "pg_grace")
    group = pane.model.find_key("mentions")
    assert group.data() == "Unlinked mentions  ·  2", "the lower-case words are no mention"
    fair = pane.model.index(0, 0, pane.model.find_key("mentions", "mention:private/notes/fair.md"))
    assert fair.data() == "We met Grace Hopper there."
    number = (kit.root / "private/notes/fair.md").read_text().splitlines().index(
        "We met Grace Hopper there."
    ) + 1
    assert fair.data(LINE_ROLE) == number
    start, end = fair.data(MARK_ROLE)
    assert fair.data()[start:end] == "Grace Hopper"
    ship = pane.model.index(0, 0, pane.model.find_key("mentions", "mention:private/notes/ship.md"))
    start, end = ship.data(MARK_ROLE)
    assert ship.data()[start:end] == "Amazing"
