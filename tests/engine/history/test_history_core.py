"""The checkpoint engine (issue 15, §1): the baseline, observed checkpoints of outside
edits, the index `history` reads, renames, faults and the user's own repository."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history import trees
from knowledge_desktop.engine.vault import Vault
from tests.engine.history.gitkit import repo_of, withdraw
from tests.vaultkit import VaultKit

TEA = "private/claims/tea.md"


def tip(vault: Vault) -> str:
    return str(repo_of(vault).references[hrepo.BRANCH].target)


def loose_objects(vault: Vault) -> list[Path]:
    objects = vault.state_dir / hrepo.REPO_DIR / "objects"
    return [p for d in objects.iterdir() if len(d.name) == 2 for p in d.iterdir()]


def based(kit: VaultKit) -> Vault:
    """A scanned vault of two claims with its baseline committed."""
    kit.claim(TEA, "cl_tea", "Ada likes tea")
    kit.claim("private/claims/cake.md", "cl_cake", "Ada likes cake")
    vault = kit.scan()
    assert vault.history.ensure_baseline() is not None
    return vault


def edit_outside(kit: VaultKit, vault: Vault, title: str) -> bytes:
    path = kit.claim(TEA, "cl_tea", title)
    vault.reconcile()
    return path.read_bytes()


def test_the_baseline_records_every_file_once_in_a_pack(kit: VaultKit) -> None:
    vault = based(kit)
    tree = repo_of(vault)[tip(vault)].tree
    for rel in (TEA, "private/claims/cake.md"):
        assert tree[rel].data == (kit.root / rel).read_bytes()
    assert loose_objects(vault) == []  # written as a pack, not one loose file per object
    assert vault.history.ensure_baseline() is None
    (row,) = vault.history.versions("cl_tea")
    assert (row["operation"], row["source"], row["path"]) == ("baseline", "observed", TEA)


def test_an_outside_edit_becomes_an_observed_checkpoint_with_an_unknown_author(kit: VaultKit) -> None:
    vault = based(kit)
    data = edit_outside(kit, vault, "Ada likes green tea")
    assert vault.history.observed_due(time.time()) == 0.0
    result = vault.history.flush_observed()
    assert result["state"] == "committed"
    commit = repo_of(vault)[result["commit"]]
    assert commit.tree[TEA].data == data
    assert "Operation: observed" in commit.message
    assert "Records: cl_tea" in commit.message
    assert commit.author.name == "unknown"
    newest = vault.history.versions("cl_tea")[0]
    assert (newest["source"], newest["author"], newest["hash"]) == (
        "observed",
        "unknown",
        hashlib.sha256(data).hexdigest(),
    )
    assert vault.history.observed_due(time.time()) is None  # nothing waits any more
    (kit.root / TEA).unlink()
    vault.reconcile()
    assert vault.history.flush_observed()["state"] == "committed"
    assert trees.blob_id(repo_of(vault)[tip(vault)].tree, TEA) is None


def test_observed_checkpoints_are_coalesced(kit: VaultKit) -> None:
    vault = based(kit)
    edit_outside(kit, vault, "one")
    assert vault.history.flush_observed()["state"] == "committed"
    edit_outside(kit, vault, "two")
    edit_outside(kit, vault, "three")
    now = time.time()
    wait = vault.history.observed_due(now)
    assert wait is not None
    assert 4.0 < wait <= 5.0
    assert vault.history.observed_due(now + 6) == 0.0
    before = tip(vault)
    assert vault.history.flush_observed()["state"] == "committed"
    assert repo_of(vault)[tip(vault)].parents[0].id == pygit2.Oid(hex=before)  # one commit for both


def test_observed_checkpoints_can_be_turned_off(kit: VaultKit) -> None:
    vault = based(kit)
    vault.history.observed_enabled = False
    before = tip(vault)
    edit_outside(kit, vault, "unseen")
    assert vault.history.checkpoints()["observed"] == {"paths": 0, "reason": None, "enabled": False}
    assert vault.history.flush_observed()["state"] == "off"
    vault.close()
    assert not Vault.open(kit.root).history.observed_enabled  # kept in state.sqlite
    assert tip(vault) == before


def test_the_apps_own_publication_is_not_committed_again_as_observed(kit: VaultKit) -> None:
    vault = based(kit)
    receipt = withdraw(vault, "cl_tea", "rq-1")
    vault.history.note_observed([TEA])  # as if the watcher had seen the app's own write
    assert vault.history.flush_observed()["state"] == "unchanged"
    assert tip(vault) == receipt["git"]["commit"]


def test_the_author_of_observed_bytes_comes_from_the_journal(kit: VaultKit) -> None:
    vault = based(kit)
    original = (kit.root / TEA).read_bytes()
    withdraw(vault, "cl_tea", "rq-1", actor="grace")
    published = (kit.root / TEA).read_bytes()
    (kit.root / TEA).write_bytes(original)
    vault.reconcile()
    assert vault.history.flush_observed()["state"] == "committed"
    assert vault.history.versions("cl_tea")[0]["author"] == "unknown"
    (kit.root / TEA).write_bytes(published)  # an outside tool puts grace's bytes back
    vault.reconcile()
    result = vault.history.flush_observed()
    assert repo_of(vault)[result["commit"]].author.name == "grace"
    assert vault.history.versions("cl_tea")[0]["author"] == "grace"


def test_a_record_moved_to_another_folder_keeps_one_history(kit: VaultKit) -> None:
    vault = based(kit)
    edit_outside(kit, vault, "before the move")
    vault.history.flush_observed()
    moved = kit.root / "private/notes/tea.md"
    moved.parent.mkdir(parents=True)
    os.replace(kit.root / TEA, moved)
    vault.reconcile()
    vault.history.flush_observed()
    rows = vault.history.versions("cl_tea")
    assert [r["path"] for r in rows] == ["private/notes/tea.md", TEA, TEA]
    assert rows[0]["hash"] == rows[1]["hash"]


def test_the_index_is_rebuilt_from_the_repository(kit: VaultKit) -> None:
    vault = based(kit)
    withdraw(vault, "cl_tea", "rq-1", actor="grace")
    edit_outside(kit, vault, "after")
    vault.history.flush_observed()
    expected = vault.history.versions("cl_tea")
    assert len(expected) == 3
    with vault.store.write() as tx:  # the newest commit's rows lost: caught up
        tx.execute("DELETE FROM checkpoint_paths WHERE ord=(SELECT MAX(ord) FROM checkpoint_paths)")
    assert vault.history.versions("cl_tea") == expected
    with vault.store.write() as tx:  # every row lost: rebuilt by walking the repository
        tx.execute("DELETE FROM checkpoint_paths")
    rebuilt = vault.history.versions("cl_tea")
    assert [(r["commit"], r["hash"], r["author"], r["operation"]) for r in rebuilt] == [
        (r["commit"], r["hash"], r["author"], r["operation"]) for r in expected
    ]


def test_a_stale_ref_lock_leaves_the_checkpoint_pending_until_retry(kit: VaultKit) -> None:
    vault = based(kit)
    lock = vault.state_dir / hrepo.REPO_DIR / (hrepo.BRANCH + ".lock")
    lock.write_text("")
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert receipt["git"]["state"] == "pending"
    assert "lock" in receipt["git"]["reason"]
    assert vault.find("cl_tea")[0]["lifecycle"] == "withdrawn"
    edit = kit.claim("private/claims/cake.md", "cl_cake", "Ada likes carrot cake")
    vault.reconcile()
    assert vault.history.flush_observed()["state"] == "pending"
    assert vault.history.checkpoints()["observed"]["paths"] == 1  # still noted
    lock.unlink()
    left = vault.history.retry()
    assert left["outbox"] == []
    assert left["observed"]["paths"] == 0
    assert vault.resume("rq-1")["git"]["state"] == "committed"
    assert repo_of(vault)[tip(vault)].tree["private/claims/cake.md"].data == edit.read_bytes()


def test_a_full_disk_keeps_observed_paths_noted(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = based(kit)
    edit_outside(kit, vault, "while the disk is full")

    def full(*args: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(trees, "apply", full)
    result = vault.history.flush_observed()
    assert result["state"] == "pending"
    assert "No space left" in result["reason"]
    assert vault.history.checkpoints()["observed"]["reason"] == result["reason"]
    monkeypatch.undo()
    assert vault.history.flush_observed()["state"] == "committed"


def test_a_corrupt_repository_never_fails_a_reconcile(kit: VaultKit) -> None:
    vault = based(kit)
    repo_dir = vault.state_dir / hrepo.REPO_DIR
    for ref in (repo_dir / "refs/heads").iterdir():
        ref.write_text("not an object id\n")
    data = edit_outside(kit, vault, "into a broken repository")
    assert vault.find("cl_tea")[0]["title"] == "into a broken repository"
    assert vault.history.flush_observed()["state"] == "pending"
    assert vault.history.versions("cl_tea")  # answered from the index
    with pytest.raises(QueryError, match="checkpoint repository cannot be read"):
        vault.history.show_at("cl_tea", "2099-01-01")  # said as such, not "did not exist"
    assert vault.history.checkpoints()["observed"]["paths"] == 1
    assert (kit.root / TEA).read_bytes() == data


def test_the_users_enclosing_repository_is_never_adopted(kit: VaultKit) -> None:
    outer = pygit2.init_repository(str(kit.root))
    kit.claim(TEA, "cl_tea", "Ada likes tea")
    vault = kit.scan()
    refs_before = list(outer.references)
    status_before = outer.status()
    assert vault.history.ensure_baseline() is not None
    edit_outside(kit, vault, "edited")
    assert vault.history.flush_observed()["state"] == "committed"
    assert list(outer.references) == refs_before
    assert outer.head_is_unborn
    assert not [p for p in outer.status() if p.startswith(".knowledge")]
    assert set(outer.status()) == set(status_before)
    assert outer.path_is_ignored(".knowledge/history.git/HEAD")
    assert Path(repo_of(vault).path).resolve() == (vault.state_dir / hrepo.REPO_DIR).resolve()


def test_publications_leave_packing_to_maintain(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Packing takes seconds, so a publication leaves it (unless far overdue) and the
    window's worker packs through `maintain` (issue 15 §4: packed as Git does)."""
    from knowledge_desktop.engine.write import publish

    monkeypatch.setattr(hrepo, "loose_estimate", lambda repo: len(hrepo._loose_files(repo)))
    monkeypatch.setattr(hrepo, "LOOSE_LIMIT", 1)
    vault = based(kit)
    withdraw(vault, "cl_tea", "rq-1")
    assert loose_objects(vault)  # below the publish path's limit: left loose
    assert publish.PUBLISH_LOOSE_LIMIT > 1
    assert vault.history.maintain() > 0
    assert loose_objects(vault) == []
    assert vault.history.versions("cl_tea")[0]["operation"] == "withdraw"  # readable from the pack


def test_versions_until_a_checkpoint_leave_out_what_came_after(kit: VaultKit) -> None:
    """A past view's History lists the versions up to its checkpoint (issue 15 §3)."""
    vault = based(kit)
    first = withdraw(vault, "cl_tea", "rq-1")["git"]["commit"]
    edit_outside(kit, vault, "Ada likes green tea")
    assert vault.history.flush_observed()["state"] == "committed"
    everything = [v["operation"] for v in vault.history.versions("cl_tea")]
    assert everything == ["observed", "withdraw", "baseline"]
    until = vault.history.versions("cl_tea", until=first)
    assert (until[0]["operation"], until[0]["commit"]) == ("withdraw", first)
    assert [v["operation"] for v in until] == ["withdraw", "baseline"]
    assert vault.history.versions("cl_tea", until="0" * 40) == []  # no such checkpoint


def test_a_truncated_checkpoint_object_leaves_the_checkpoint_pending_instead_of_hanging(
    kit: VaultKit,
) -> None:
    """libgit2 never returns from inflating a truncated loose object: each one the
    checkpoint path reads is checked first, so the publication gets `pending` with the
    reason and the vault still opens (run in a child process, killed if it hangs)."""
    import subprocess
    import sys

    vault = based(kit)
    withdraw(vault, "cl_cake", "rq-1")  # a loose commit and trees on top of the baseline's pack
    tree = repo_of(vault)[tip(vault)].tree_id
    kit.close()
    loose = vault.state_dir / hrepo.REPO_DIR / "objects" / str(tree)[:2] / str(tree)[2:]
    data = loose.read_bytes()
    loose.chmod(0o644)
    loose.write_bytes(data[:10])
    script = (
        "import sys, json\n"
        "from knowledge_desktop.engine.vault import Vault\n"
        "from tests.engine.history.gitkit import withdraw\n"
        "with Vault.open(sys.argv[1]) as v:\n"
        "    v.reconcile()\n"
        "    print(json.dumps(withdraw(v, 'cl_tea', 'rq-2')['git']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(kit.root)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
        check=False,
    )
    assert done.returncode == 0, done.stderr
    git = json.loads(done.stdout.strip().splitlines()[-1])
    assert git["state"] == "pending"
    assert "truncated" in git["reason"]
    assert "withdrawn" in (kit.root / TEA).read_text(encoding="utf-8")  # the publication stands


def test_an_oversized_file_is_left_out_and_the_other_outside_edits_are_committed(kit: VaultKit) -> None:
    vault = based(kit)
    big = kit.root / "private" / "notes" / "huge.md"
    big.parent.mkdir(parents=True, exist_ok=True)
    big.write_bytes(b"x" * (9 * 1024 * 1024))
    edit_outside(kit, vault, "Ada likes green tea")  # reconciles: both files noted
    result = vault.history.flush_observed()
    assert result["state"] == "committed"
    assert [s["path"] for s in result["skipped"]] == ["private/notes/huge.md"]
    assert "larger than" in result["skipped"][0]["reason"]
    assert vault.history.checkpoints()["observed"]["paths"] == 0  # nothing left waiting
    assert vault.history.versions("cl_tea")[0]["operation"] == "observed"
