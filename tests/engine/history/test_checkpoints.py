"""Checkpoints: each publication committed to the app's own Git (issue 15, §1; spec:
retrieval-and-dates, What is rebuildable — history lives beside the projections)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import checkpoints
from tests.engine.history.gitkit import repo_of, withdraw
from tests.vaultkit import VaultKit


def test_a_publication_is_committed_with_its_bytes_message_and_author(kit: VaultKit) -> None:
    """The receipt says committed with the commit id; the commit's tree holds the exact bytes
    written, its author is the actor, its message names operation, records, request and actor."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert receipt["git"]["state"] == "committed"
    commit = repo_of(vault)[receipt["git"]["commit"]]
    on_disk = (kit.root / "private/claims/tea.md").read_bytes()
    assert commit.tree["private/claims/tea.md"].data == on_disk
    assert commit.author.name == "grace"
    for line in ("Operation: withdraw", "Records: cl_tea", "Request: rq-1", "Actor: grace"):
        assert line in commit.message
    assert vault.resume("rq-1")["git"] == receipt["git"]  # the stored receipt says so too


def test_a_broken_repository_leaves_the_publication_and_a_pending_checkpoint_retried_on_open(
    kit: VaultKit,
) -> None:
    """A corrupt repository never blocks or undoes a publication: the receipt is pending with
    the reason, and the next open commits it once the repository is usable again."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    broken = vault.state_dir / checkpoints.REPO_DIR
    broken.write_text("not a repository")
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert receipt["git"]["state"] == "pending"
    assert "repository" in receipt["git"]["reason"]
    assert vault.find("cl_tea")[0]["lifecycle"] == "withdrawn"
    vault.close()
    broken.unlink()
    vault = Vault.open(kit.root)
    assert vault.resume("rq-1")["git"]["state"] == "committed"
    (row,) = checkpoints.listing(vault.state_dir, vault.store.reader(), pending_only=False)["outbox"]
    assert row["state"] == "committed"
    assert (
        repo_of(vault)[row["commit"]].tree["private/claims/tea.md"].data
        == (kit.root / "private/claims/tea.md").read_bytes()
    )


def test_a_failing_commit_keeps_the_write_published(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """A locked or full repository (the commit raises) leaves the checkpoint pending."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()

    def full(*args: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoints, "_commit", full)
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert receipt["git"]["state"] == "pending"
    assert "No space left" in receipt["git"]["reason"]
    assert checkpoints.listing(vault.state_dir, vault.store.reader(), pending_only=True)["outbox"]


def test_history_lists_a_records_versions_newest_first(kit: VaultKit) -> None:
    """History of a withdrawn record by exact id: each checkpointed version, newest first,
    with its revision, hash and author."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    kit.claim("private/claims/dep.md", "cl_dep", "Depends", dependencies=["cl_tea"])
    vault = kit.scan()
    withdraw(vault, "cl_dep", "rq-0", actor="ada")
    first = withdraw(vault, "cl_tea", "rq-1", actor="grace")
    rows = checkpoints.history(vault.state_dir, vault.store, "cl_tea")
    assert rows[0]["commit"] == first["git"]["commit"]
    row, before = rows  # the withdrawal, then the baseline's version from before it
    assert (before["operation"], before["source"], before["revision"]) == ("baseline", "observed", 1)
    data = (kit.root / "private/claims/tea.md").read_bytes()
    assert row["hash"] == hashlib.sha256(data).hexdigest()
    assert (row["revision"], row["author"], row["operation"], row["source"]) == (
        2,
        "grace",
        "withdraw",
        "publish",
    )
    assert [r["author"] for r in checkpoints.history(vault.state_dir, vault.store, "cl_dep")] == [
        "ada",
        "unknown",
    ]


def test_the_state_folder_is_ignored_by_git_and_an_enclosing_repository_is_untouched(
    kit: VaultKit, tmp_path: Path
) -> None:
    """`.knowledge/.gitignore` is `*`; the checkpoint repository is the app's own, never the
    user's `.git` around the vault."""
    outer = pygit2.init_repository(str(kit.root))
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    before = sorted(p.name for p in Path(outer.path).rglob("*"))
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert (vault.state_dir / ".gitignore").read_text() == "*\n"
    assert receipt["git"]["state"] == "committed"
    assert outer.head_is_unborn
    assert sorted(p.name for p in Path(outer.path).rglob("*")) == before
    assert Path(repo_of(vault).path).resolve() == (vault.state_dir / "history.git").resolve()
