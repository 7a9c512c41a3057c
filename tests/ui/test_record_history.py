"""The Record pane's History tab (issue 15 §3): a record's checkpointed versions newest
first, each one's diff with the changed words highlighted, Open This Version, and the
selection kept when a publish adds a version.

The engine is the real one: the page's first checkpoint (the baseline, the file as the
app first found it) comes last, below the two edits."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import HISTORY_TAB
from knowledge_desktop.ui.panes.record_history import NO_VERSIONS, VersionDialog
from knowledge_desktop.ui.render import Colors
from knowledge_desktop.ui.render.word_diff import render_word_diff
from tests.vaultkit import VaultKit, fence_of, wait_idle

OpenWindow = Callable[..., MainWindow]
ADA = "private/people/ada.md"


@pytest.fixture
def edited(kit: VaultKit) -> VaultKit:
    """A page written twice through the publish path, by two people."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Ada wrote the first program.\n", type="person")
    vault = kit.scan()
    vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote the very first program.\n", actor="ada")
    vault.edit_body(
        fence_of(vault, "pg_ada"), "Ada Lovelace wrote the very first published program.\n", actor="grace"
    )
    kit.close()
    return kit


def rows(window: MainWindow) -> list[list[str]]:
    tree = window.record.history.tree
    return [[tree.topLevelItem(i).text(c) for c in range(5)] for i in range(tree.topLevelItemCount())]


def history_of(qtbot: QtBot, window: MainWindow, record: str, count: int) -> None:
    window.open_record(record)
    qtbot.waitUntil(lambda: window.record.loaded is not None, timeout=20_000)
    window.record.tabs.setCurrentIndex(HISTORY_TAB)
    qtbot.waitUntil(lambda: len(rows(window)) == count, timeout=20_000)
    wait_idle(qtbot, window)


def test_versions_are_listed_newest_first_with_a_word_diff(
    qtbot: QtBot, open_window: OpenWindow, edited: VaultKit
) -> None:
    window = open_window(edited.root, watch=False)
    history_of(qtbot, window, "pg_ada", 3)
    tab = window.record.history
    assert [r[1] for r in rows(window)] == ["grace", "ada", "unknown"]
    assert [r[2] for r in rows(window)] == ["edit-body", "edit-body", "baseline"]
    assert [r[3] for r in rows(window)] == ["This app", "This app", "First checkpoint"]
    assert tab.selected_commit() == tab.rows[0]["commit"]
    result = tab.diff_result
    assert result is not None
    # Only the words the newest version added are highlighted, not whole lines (its
    # frontmatter's revision and time changed too).
    assert {"Lovelace", "published"} <= set(result.added)
    assert not {"Ada", "wrote", "very", "first", "program"} & set(result.added + result.removed)

    tab.against_now.setChecked(True)
    qtbot.waitUntil(lambda: tab.diff_result is not result, timeout=10_000)
    assert tab.diff_result is not None
    assert tab.diff_result.empty

    tab.tree.setCurrentItem(tab.tree.topLevelItem(1))
    qtbot.waitUntil(lambda: "published" in (tab.diff_result.added if tab.diff_result else []))  # since then


def test_a_publish_adds_a_version_and_keeps_the_selection(
    qtbot: QtBot, open_window: OpenWindow, edited: VaultKit
) -> None:
    window = open_window(edited.root, watch=False)
    history_of(qtbot, window, "pg_ada", 3)
    tab = window.record.history
    tab.tree.setCurrentItem(tab.tree.topLevelItem(1))
    older = tab.selected_commit()
    vault = window.vault
    assert vault is not None
    vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote notes on the engine.\n", actor="ada")
    qtbot.waitUntil(lambda: len(rows(window)) == 4, timeout=20_000)
    assert tab.selected_commit() == older


def test_open_this_version_shows_it_read_only(
    qtbot: QtBot, open_window: OpenWindow, edited: VaultKit
) -> None:
    window = open_window(edited.root, watch=False)
    history_of(qtbot, window, "pg_ada", 3)
    tab = window.record.history
    tab.tree.setCurrentItem(tab.tree.topLevelItem(1))
    tab.open_button.click()
    dialog = tab.dialog
    assert isinstance(dialog, VersionDialog)
    qtbot.waitUntil(lambda: "very first program" in dialog.source.toPlainText(), timeout=10_000)
    assert "as of" in dialog.windowTitle()
    assert dialog.source.isReadOnly()
    assert "Lovelace wrote" not in dialog.source.toPlainText()
    dialog.close()


def test_a_record_without_checkpoints_says_so(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the vault's first checkpoint (it is being made on a worker, or the
    repository cannot be written), the tab says why it is empty."""
    monkeypatch.setattr(VaultHistory, "ensure_baseline", lambda self, *a, **k: None)
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Plain.\n", type="person")
    window = open_window(kit.root, watch=False)
    window.open_record("pg_ada")
    qtbot.waitUntil(lambda: window.record.loaded is not None, timeout=20_000)
    window.record.tabs.setCurrentIndex(HISTORY_TAB)
    tab = window.record.history
    qtbot.waitUntil(lambda: tab.message.text() == NO_VERSIONS and tab.stack.currentIndex() == 0)


def test_word_diff_highlights_changed_words_in_changed_lines() -> None:
    text = "@@ -1,2 +1,2 @@\n keep\n-the cat sat\n+the dog sat\n"
    light = render_word_diff(text, Colors())
    dark = render_word_diff(text, Colors(base="#1e1e1e", text="#e6e6e6", dark=True))
    assert (light.removed, light.added) == (["cat"], ["dog"])
    assert ">dog</span>" in light.html
    assert ">cat</span>" in light.html
    assert light.html != dark.html  # tints follow the palette
    assert render_word_diff("", Colors()).empty


def test_the_users_own_git_is_labelled_and_a_read_error_is_worded(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Plain.\n", type="person")
    theirs = {
        "commit": "ab" * 20,
        "at": "2026-11-01T09:00:00Z",
        "author": "Ada",
        "operation": None,
        "source": "user-git",
        "revision": None,
        "hash": "0" * 64,
        "path": ADA,
    }
    answers: list[object] = [[theirs]]

    def versions(
        self: VaultHistory, record_id: str, limit: int = 50, until: str | None = None
    ) -> list[dict[str, object]]:
        answer = answers[-1]
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, list)
        return answer

    monkeypatch.setattr(VaultHistory, "versions", versions)
    monkeypatch.setattr(VaultHistory, "diff", lambda *_a, **_k: "", raising=False)
    window = open_window(kit.root, watch=False)
    history_of(qtbot, window, "pg_ada", 1)
    (row,) = rows(window)
    assert row[:4] == ["2026-11-01 09:00 UTC", "Ada", "edit", "your Git"]
    assert "your own Git" in window.record.history.tree.topLevelItem(0).toolTip(3)
    answers.append(OSError("the checkpoint repository is locked"))
    window.record.history.refresh()
    tab = window.record.history
    qtbot.waitUntil(lambda: tab.stack.currentIndex() == 0)
    assert tab.message.text() == "The history cannot be read now: the checkpoint repository is locked"
