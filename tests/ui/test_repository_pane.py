"""The Repository pane (issue 17 §3): a documentation repository added to the vault lists
its decisions (with their supersession chain), concepts and changes with evidence; a click
opens the cited lines highlighted or the commit with its touched paths; coverage is shown;
a claim naming an ADR supports it both ways; an edit in the repository refreshes the pane."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.repository import ROLE, RepositoryPane
from knowledge_desktop.ui.repositories import RepositoryWatcher, added_repositories, linked_git_folders
from tests.repokit import RepoKit
from tests.vaultkit import VaultKit, wait_idle

OLD = (
    "# 1. Use JSON\n\nDate: 2023-01-10\n\n## Status\n\n"
    "Superseded by [2. Use YAML](0002-use-yaml.md)\n\n## Decision\n\nJSON.\n"
)
NEW = (
    "---\nstatus: accepted\ndate: 2024-03-01\nsupersedes: 0001-use-json.md\n---\n"
    "# Use YAML\n\n## Context\n\nRecords need fields.\n\n## Decision\n\nYAML frontmatter.\n"
)
GLOSSARY = "# Glossary\n\n**Vault**: a folder of records.\n\n**Claim**: an assertion with evidence.\n"
CHANGELOG = "# Changelog\n\n## [1.0.0] - 2024-05-01\n\n### Added\n\n- First release.\n- Search.\n"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    rk = RepoKit(tmp_path / "docs-repo")
    rk.write("adr/0001-use-json.md", OLD)
    rk.write("notes.md", "# Notes\n")
    first = rk.commit("docs: first decision")
    rk.write("adr/0002-use-yaml.md", NEW)
    rk.write("GLOSSARY.md", GLOSSARY)
    rk.write("CHANGELOG.md", CHANGELOG)
    (rk.root / "notes.md").rename(rk.root / "notes-moved.md")
    second = rk.commit("feat(adr)!: supersede JSON with YAML")
    return rk.root, {"first": first, "second": second}


@pytest.fixture
def window(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow], repo: tuple[Path, dict[str, str]]
) -> MainWindow:
    kit.claim(
        "private/claims/yaml.md", "cl_yaml", "We chose YAML", "We keep `adr/0002-use-yaml.md` as decided.\n"
    )
    kit.claim("private/claims/other.md", "cl_other", "Unrelated", "Nothing about the repository.\n")
    win = open_window(kit.root)
    win.repository.add_repository(repo[0])
    wait_idle(qtbot, win)
    return win


def top(tree: QTreeWidget) -> dict[str, QTreeWidgetItem]:
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return {item.data(0, ROLE)[1]: item for item in items}


def child(item: QTreeWidgetItem, role: str) -> list[QTreeWidgetItem]:
    return [item.child(i) for i in range(item.childCount()) if item.child(i).data(0, ROLE)[0] == role]


def test_decisions_concepts_and_changes_are_listed_with_evidence(
    window: MainWindow, repo: tuple[Path, dict[str, str]], kit: VaultKit
) -> None:
    pane: RepositoryPane = window.repository
    assert added_repositories(window.settings, kit.root) == [str(repo[0].resolve())]
    decisions = top(pane.trees["decision"])
    new = decisions["decision:adr/0002-use-yaml.md"]
    assert [new.text(c) for c in range(4)] == [
        "Use YAML",
        "accepted",
        "2024-03-01",
        "1. Use JSON → [Use YAML]",
    ]
    old = decisions["decision:adr/0001-use-json.md"]
    assert old.text(3) == "[1. Use JSON] → Use YAML"
    assert old.text(1) == "Superseded by 2. Use YAML"  # the declared status as it reads, link text only
    assert [c.text(0) for c in child(new, "evidence")] == ["Evidence: adr/0002-use-yaml.md · lines 6–14"]
    concepts = top(pane.trees["concept"])
    assert set(concepts) == {"concept:Vault", "concept:Claim"}
    assert concepts["concept:Vault"].text(2) == "**Vault**: a folder of records."
    changes = top(pane.trees["change"])
    entry = changes["change:CHANGELOG.md#[1.0.0] - 2024-05-01#First release."]
    assert entry.text(1) == "[1.0.0] - 2024-05-01"
    tree = pane.trees["change"]
    release_width = tree.fontMetrics().horizontalAdvance(entry.text(1))
    assert release_width < tree.columnWidth(1) <= 170  # the release is not cut short
    commit = changes[f"commit:{repo[1]['second']}"]
    assert [commit.text(c) for c in range(4)] == [
        "feat(adr)!: supersede JSON with YAML",
        f"commit {repo[1]['second'][:12]}",
        "feat(adr)",
        "breaking",
    ]
    # The filter hides what does not match.
    pane.filter.setText("yaml")
    assert not new.isHidden()
    assert old.isHidden()


def test_a_click_opens_the_region_highlighted_or_the_commit_with_its_paths(
    qtbot: QtBot, window: MainWindow, repo: tuple[Path, dict[str, str]]
) -> None:
    pane = window.repository
    tree = pane.trees["decision"]
    (evidence,) = child(top(tree)["decision:adr/0002-use-yaml.md"], "evidence")
    tree.itemActivated.emit(evidence, 0)
    qtbot.waitUntil(lambda: pane.viewer.region is not None)
    assert pane.viewer.highlighted_lines() == (6, 14)
    assert pane.viewer.text.toPlainText().startswith("---\nstatus: accepted\n")
    assert pane.viewer.region is not None
    assert pane.viewer.region.matches
    commits = pane.trees["change"]
    commits.itemClicked.emit(top(commits)[f"commit:{repo[1]['second']}"], 0)
    qtbot.waitUntil(lambda: pane.viewer.commit is not None)
    shown = pane.viewer.text.toPlainText()
    assert "added     adr/0002-use-yaml.md" in shown
    assert "renamed   notes.md → notes-moved.md" in shown
    assert "Author: Ada <ada@example.org>" in shown


def test_coverage_is_shown_with_reasons_in_words(window: MainWindow) -> None:
    pane = window.repository
    rows = {pane.coverage.topLevelItem(i).text(0): pane.coverage.topLevelItem(i) for i in range(7)}
    assert rows["Code symbols"].text(1) == "complete"  # the repository holds no code
    assert rows["Documents"].text(1) == "complete"
    assert rows["Vault claims"].text(1) == "complete"
    assert "Coverage: complete" in pane.summary.text()


def test_a_claim_naming_an_adr_supports_it_both_ways(qtbot: QtBot, window: MainWindow) -> None:
    pane = window.repository
    new = top(pane.trees["decision"])["decision:adr/0002-use-yaml.md"]
    (support,) = child(new, "claim")
    assert support.text(0) == "Supported by claim cl_yaml"
    assert child(top(pane.trees["decision"])["decision:adr/0001-use-json.md"], "claim") == []
    pane.trees["decision"].itemActivated.emit(support, 0)
    qtbot.waitUntil(lambda: window.current_path == "private/claims/yaml.md")
    wait_idle(qtbot, window)
    docs = window.backlinks.documentation
    assert not docs.isHidden()
    assert [docs.list.item(i).text() for i in range(docs.list.count())] == ["Decision: Use YAML"]
    window.open_record("cl_other")
    qtbot.waitUntil(lambda: window.current_path == "private/claims/other.md")
    wait_idle(qtbot, window)
    assert docs.isHidden()
    assert docs.list.count() == 0
    window.open_record("cl_yaml")
    wait_idle(qtbot, window)
    pane.tabs.setCurrentIndex(1)
    docs.list.itemActivated.emit(docs.list.item(0))
    assert pane.tabs.currentWidget() is pane.trees["decision"]
    assert (
        pane.trees["decision"].currentItem() is top(pane.trees["decision"])["decision:adr/0002-use-yaml.md"]
    )


def test_editing_a_repository_file_refreshes_the_pane_in_place(
    qtbot: QtBot, window: MainWindow, repo: tuple[Path, dict[str, str]]
) -> None:
    pane = window.repository
    tree = pane.trees["concept"]
    tree.setCurrentItem(top(tree)["concept:Vault"])
    (repo[0] / "GLOSSARY.md").write_text(GLOSSARY + "\n**Pane**: one view.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "concept:Pane" in top(pane.trees["concept"]), timeout=10_000)
    assert tree.currentItem() is top(tree)["concept:Vault"]


def test_a_new_commit_moving_head_refreshes_the_changes(
    qtbot: QtBot, window: MainWindow, repo: tuple[Path, dict[str, str]]
) -> None:
    rk = RepoKit(repo[0])
    rk._tick = 5
    sha = rk.commit("fix: a third commit")
    qtbot.waitUntil(lambda: f"commit:{sha}" in top(window.repository.trees["change"]), timeout=10_000)


def test_remove_repository_forgets_it_for_the_vault(window: MainWindow, kit: VaultKit) -> None:
    window.repository.remove_repository()
    assert added_repositories(window.settings, kit.root) == []
    assert not window.repository.empty.isHidden()


def test_a_commit_in_a_linked_worktree_is_seen_through_its_git_file(qtbot: QtBot, tmp_path: Path) -> None:
    """A linked worktree's `.git` is a file: its HEAD and branches live in the main
    repository's Git folder, which is watched too."""
    main = RepoKit(tmp_path / "main")
    main.write("README.md", "# Docs\n")
    main.commit("docs: start")
    worktree = main.repo.add_worktree("side", str(tmp_path / "side"))
    side = Path(worktree.path)
    assert (side / ".git").is_file()
    assert linked_git_folders(side)
    watcher = RepositoryWatcher()
    try:
        # Ready on return: watchdog's inotify emitter adds its watches in `start()`
        # (`on_thread_start` runs before the thread does), so no wait is needed.
        watcher.watch(side)
        with qtbot.waitSignal(watcher.changed, timeout=10_000) as blocker:
            kit = RepoKit(side)
            kit._repo = pygit2.Repository(str(side))
            kit._tick = 5
            kit.commit("fix: moved in the worktree")
        assert blocker.args == [str(side)]
    finally:
        watcher.stop()
        watcher.deleteLater()  # deleted here, on the UI thread


@pytest.mark.parametrize(
    "content",
    [b"gitdir: a\x00b\n", b"gitdir:\n", b"gitdir: ..\n", b"gitdir: " + b"x" * 5000 + b"\n", b"\xff\xfe"],
)
def test_a_malformed_git_file_names_no_folder_and_never_raises(tmp_path: Path, content: bytes) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / ".git").write_bytes(content)
    assert linked_git_folders(root) == []
