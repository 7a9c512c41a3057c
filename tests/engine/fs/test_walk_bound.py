"""A folder with far more other files than notes is refused, not indexed for minutes (issue 24,
item 3; docs/limits.md, "Folders that are not vaults"). The bounds are made small here so the
folders stay small; the rule is the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.errors import VaultRefused
from knowledge_desktop.engine.fs import walk as walk_module
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit


@pytest.fixture(autouse=True)
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk_module, "OTHER_ENTRIES_ALLOWED", 50)
    monkeypatch.setattr(walk_module, "OTHER_PER_MARKDOWN", 20)
    monkeypatch.setattr(walk_module, "MAX_OTHER_ENTRIES", 400)


def others(folder: Path, count: int, suffix: str = ".c") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"f{i}{suffix}").write_bytes(b"x")


def test_a_source_tree_is_refused_before_anything_is_written(kit: VaultKit) -> None:
    """A README among 120 source files, in two folders (which count too)."""
    kit.page("src/README.md", "pg_readme", "Read me")
    others(kit.root / "src" / "lib", 120)
    with pytest.raises(VaultRefused, match=r"122 files and folders that are not Markdown, against 1 "):
        Vault.open(kit.root)
    assert not (kit.root / ".knowledge").exists()


def test_a_vault_with_attachments_opens_whichever_folder_is_read_first(kit: VaultKit) -> None:
    """Ten notes and 190 pictures: within 20 per note, though a walk may meet the pictures first."""
    for i in range(10):
        kit.page(f"private/notes/n{i}.md", f"pg_{i}", f"Note {i}")
    others(kit.root / "private" / "aaa-attachments", 189, ".png")
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        assert vault.counts()["records"] == 10


def test_a_walk_stops_at_the_hard_bound_however_many_notes(kit: VaultKit) -> None:
    for i in range(30):
        kit.page(f"private/notes/n{i}.md", f"pg_{i}", f"Note {i}")
    others(kit.root / "private" / "dump", 450)
    with pytest.raises(VaultRefused, match="reading stopped after"):
        Vault.open(kit.root)
    assert not (kit.root / ".knowledge").exists()


def test_a_vault_that_fills_up_later_is_refused_by_its_next_scan(
    kit: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    kit.page("private/a.md", "pg_a", "A")
    assert main(["scan", str(kit.root)]) == 0
    capsys.readouterr()
    others(kit.root / "private" / "build", 100, ".js")
    assert main(["scan", str(kit.root)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "is not a vault" in err
    assert "open the folder that holds your notes" in err
