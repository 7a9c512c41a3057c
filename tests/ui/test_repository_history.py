"""The Repository pane's history window (issue 17 §1's `--max-commits` and `--since-tag`,
in the window): a person picks how many commits to read and a tag to stop at; the changes
listed follow, the choice is kept per vault and repository, and a tag that went away
stays visible as missing while coverage says why nothing was read."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.extraction import ExtractOptions
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.repository import ROLE, RepositoryPane
from knowledge_desktop.ui.panes.repository_history import ALL_HISTORY
from knowledge_desktop.ui.repositories import HISTORY_KEY, history_options, set_history_options
from tests.repokit import RepoKit
from tests.vaultkit import VaultKit, wait_idle


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    rk = RepoKit(tmp_path / "docs-repo")
    rk.write("GLOSSARY.md", "# Glossary\n\n**Tag**: a named commit.\n")
    shas = [rk.commit(f"feat: step {n}") for n in range(5)]
    rk.tag("v0.1", shas[1])
    rk.tag("v0.2", shas[3])
    return rk.root, shas


@pytest.fixture
def kit(kit: VaultKit) -> VaultKit:
    """A vault with one record: an empty folder is no vault, and opening it asks a question."""
    kit.claim("private/claims/tags.md", "cl_tags", "Tags", "We tag each release.\n")
    return kit


def changes(pane: RepositoryPane) -> list[str]:
    tree = pane.trees["change"]
    return sorted(str(tree.topLevelItem(i).data(0, ROLE)[1]) for i in range(tree.topLevelItemCount()))


def choose(qtbot: QtBot, window: MainWindow, act: Callable[[], None]) -> None:
    with qtbot.waitSignal(window.repository.history.changed, timeout=5_000):
        act()
    wait_idle(qtbot, window)


def test_the_row_offers_the_default_window_and_the_tags_newest_first(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow], repo: tuple[Path, list[str]]
) -> None:
    window = open_window(kit.root)
    window.repository.add_repository(repo[0])
    wait_idle(qtbot, window)
    row = window.repository.history
    assert row.count.value() == 50
    assert [row.tag.itemText(i) for i in range(row.tag.count())] == [ALL_HISTORY, "v0.2", "v0.1"]
    assert row.tag.currentIndex() == 0
    assert changes(window.repository) == sorted(f"commit:{c}" for c in repo[1])


def test_fewer_commits_or_a_tag_narrow_the_changes_and_are_kept_for_the_vault(
    qtbot: QtBot,
    kit: VaultKit,
    open_window: Callable[..., MainWindow],
    repo: tuple[Path, list[str]],
    settings: QSettings,
) -> None:
    root, shas = repo
    window = open_window(kit.root)
    pane: RepositoryPane = window.repository
    pane.add_repository(root)
    wait_idle(qtbot, window)
    folder = str(root.resolve())

    choose(qtbot, window, lambda: pane.history.count.setValue(2))
    assert changes(pane) == sorted(f"commit:{c}" for c in shas[3:])
    history = pane.extractions[folder].document["coverage"]["history"]  # type: ignore[index]
    assert history["status"] == "partial"
    assert history_options(settings, kit.root, folder) == ExtractOptions(max_commits=2)

    choose(qtbot, window, lambda: pane.history.count.setValue(50))
    choose(qtbot, window, lambda: pane.history.tag.setCurrentIndex(pane.history.tag.findData("v0.1")))
    assert changes(pane) == sorted(f"commit:{c}" for c in shas[2:])
    assert history_options(settings, kit.root, folder) == ExtractOptions(since_tag="v0.1")

    choose(qtbot, window, lambda: pane.history.tag.setCurrentIndex(0))
    assert len(changes(pane)) == 5
    assert settings.value(HISTORY_KEY) == "{}"  # the default window is not stored


def test_a_kept_window_is_read_again_when_the_vault_reopens_and_a_lost_tag_shows_missing(
    qtbot: QtBot,
    kit: VaultKit,
    open_window: Callable[..., MainWindow],
    repo: tuple[Path, list[str]],
    settings: QSettings,
) -> None:
    root, shas = repo
    folder = str(root.resolve())
    window = open_window(kit.root)
    window.repository.add_repository(root)
    wait_idle(qtbot, window)
    set_history_options(settings, kit.root, folder, ExtractOptions(max_commits=7, since_tag="v0.2"))
    window.open_vault(kit.root)  # reopening reads the kept window
    qtbot.waitUntil(lambda: window.repository.history.count.value() == 7, timeout=10_000)
    wait_idle(qtbot, window)
    pane = window.repository
    assert pane.history.tag.currentData() == "v0.2"
    assert changes(pane) == [f"commit:{shas[4]}"]

    RepoKit(root).repo.references.delete("refs/tags/v0.2")
    window.open_vault(kit.root)
    qtbot.waitUntil(lambda: pane.history.tag.currentText() == "v0.2 (missing)", timeout=10_000)
    wait_idle(qtbot, window)
    history = pane.extractions[folder].document["coverage"]["history"]  # type: ignore[index]
    assert (history["status"], history["reasons"][0]["code"]) == ("not-analyzed", "unknown-tag")
    assert changes(pane) == []
    assert [pane.history.tag.itemText(i) for i in range(pane.history.tag.count())] == [
        ALL_HISTORY,
        "v0.1",
        "v0.2 (missing)",
    ]


def test_stored_windows_that_are_not_valid_fall_back_to_the_default(
    kit: VaultKit, settings: QSettings
) -> None:
    for stored in ('{"x": 1}', "not json", "[]"):
        settings.setValue(HISTORY_KEY, stored)
        assert history_options(settings, kit.root, "/repo") == ExtractOptions()
    key = os.path.realpath(kit.root)
    for bad in ({"maxCommits": 0}, {"maxCommits": 999}, {"maxCommits": True}, {"sinceTag": 3}, "v1"):
        settings.setValue(HISTORY_KEY, json.dumps({key: {"/repo": bad}}))
        assert history_options(settings, kit.root, "/repo") == ExtractOptions()
