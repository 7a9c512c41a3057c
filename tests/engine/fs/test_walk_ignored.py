"""Other tools' own folders are never read (issue 25, §7): Obsidian's `.obsidian/` and `.trash/`,
Git's `.git/`, npm's `node_modules/`, Logseq's `logseq/bak/`, Foam's `.foam/`. Their Markdown is
a setting, a deleted note, a package's README or a backup copy — never a note of the vault — and
what they hold does not count toward the walk's bound on other entries, so a Foam or docs
repository with a big `node_modules/` opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.engine.fs import walk as walk_module
from knowledge_desktop.engine.fs.events import is_watched_file, is_watched_folder
from knowledge_desktop.engine.fs.walk import classify_path, stat_one, walk
from knowledge_desktop.engine.vault import Vault, _looks_like_vault
from tests.vaultkit import VaultKit

OTHER_TOOLS = [
    ".obsidian/workspace.md",
    ".trash/Deleted note.md",
    ".git/description.md",
    ".foam/templates/daily.md",
    "node_modules/pkg/README.md",
    "private/node_modules/pkg/README.md",
    "private/docs/node_modules/deep/pkg/README.md",
    "logseq/bak/pages/Page/2026-01-01.md",
    "private/logseq/bak/pages/Page.md",
]


def vault_with_other_tools(kit: VaultKit) -> None:
    kit.page("private/notes/a.md", "pg_a", "A")
    kit.page("logseq/pages/kept.md", "pg_kept", "Kept")  # `logseq/` itself is read; its `bak/` is not
    kit.page("private/bak/kept.md", "pg_bak", "Kept too")  # `bak/` only under `logseq/`
    for rel in OTHER_TOOLS:
        kit.write(rel, "# a copy\n")


def test_the_walk_never_lists_other_tools_folders(kit: VaultKit) -> None:
    vault_with_other_tools(kit)
    listed = sorted(entry.path for entry in walk(kit.root))
    assert listed == ["logseq/pages/kept.md", "private/bak/kept.md", "private/notes/a.md"]


@pytest.mark.parametrize("rel", OTHER_TOOLS)
def test_one_path_and_the_watcher_filter_agree_with_the_walk(kit: VaultKit, rel: str) -> None:
    vault_with_other_tools(kit)
    assert classify_path(rel) is None
    assert stat_one(kit.root, rel) is None
    assert not is_watched_file(rel)
    assert not is_watched_folder(rel.rsplit("/", 1)[0])


def test_folders_named_like_them_elsewhere_are_read(kit: VaultKit) -> None:
    assert classify_path("private/bak/kept.md") == ("private", "markdown")
    assert classify_path("logseq/pages/kept.md") == ("logseq", "markdown")
    assert is_watched_folder("private/bak")
    assert is_watched_folder("logseq")


def test_a_scan_counts_only_the_vaults_own_notes(kit: VaultKit) -> None:
    vault_with_other_tools(kit)
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        assert vault.scopes() == ["logseq", "private"]
        assert vault.counts()["records"] == 3


def test_a_repository_with_a_big_node_modules_opens(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three notes beside 300 package files: past every bound (made small here, the rule is the
    same) were they counted, yet none is, so the vault opens."""
    monkeypatch.setattr(walk_module, "OTHER_ENTRIES_ALLOWED", 50)
    monkeypatch.setattr(walk_module, "OTHER_PER_MARKDOWN", 20)
    monkeypatch.setattr(walk_module, "MAX_OTHER_ENTRIES", 200)
    for i in range(3):
        kit.page(f"docs/n{i}.md", f"pg_{i}", f"Note {i}")
    for rel in ("node_modules", "docs/node_modules", ".git/objects"):
        folder = kit.root / rel
        folder.mkdir(parents=True)
        for i in range(100):
            (folder / f"f{i}.js").write_bytes(b"x")
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        assert vault.counts()["records"] == 3


def test_a_folder_holding_notes_only_in_node_modules_is_not_a_vault(tmp_path: Path) -> None:
    (tmp_path / "project" / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "project" / "node_modules" / "pkg" / "README.md").write_text("# pkg\n")
    assert not walk_module.is_ignored_path("project")
    assert not _looks_like_vault(tmp_path)
