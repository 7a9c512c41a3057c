"""Deleting a file through the one publish path (a `FileWrite` whose data is None): journaled
with the old bytes so it can be finished or put back after a crash, receipted, and recorded
in the Git checkpoint as the path's removal (docs/writing.md, "Deleting a file")."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history import trees
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.engine.write.conftest import A, B, Crash
from tests.vaultkit import VaultKit, fresh_snapshot, snapshot


def delete_a_rewrite_b(ctx: WriteContext) -> Plan:
    """Delete A, then give B a new body: the deletion is file 0, the replacement file 1."""
    a, b = ctx.lookup("pg_a"), ctx.lookup("pg_b")
    new_b = b.data.replace(b"revision: 1", b"revision: 2").replace(b"Beta body.", b"Beta again.")
    return Plan(
        "delete",
        "pg_a",
        None,
        [FileWrite(A, None, a.sha256, "pg_a", 1), FileWrite(B, new_b, b.sha256, "pg_b", 2)],
    )


def test_a_deletion_publishes_and_is_checkpointed(vault: Vault, kit: VaultKit) -> None:
    old_a = (kit.root / A).read_bytes()
    receipt = vault.write(make_request("delete", {"n": 1}, request_id="rq_d"), delete_a_rewrite_b)
    assert not (kit.root / A).exists()
    assert next((i["path"], i["hash"]) for i in receipt["items"]) == (A, None)
    assert snapshot(vault) == fresh_snapshot(kit.root, kit.root.parent)
    (stored,) = [f for f in journal.files(vault.store.reader(), receipt["journalId"]) if f.path == A]
    assert (stored.deletes, stored.old_data) == (True, old_a)
    raw = vault.store.reader().execute(
        "SELECT new_sha256, length(new_data) FROM journal_files WHERE seq=? AND path=?",
        (receipt["journalId"], A),
    )
    assert raw.fetchone() == (journal.DELETED_MARK, 0)
    if hrepo.unavailable_reason() is None:
        assert receipt["git"]["state"] == "committed"
        repo = hrepo.open_repo(vault.state_dir, create=False)
        tree = hrepo.head(repo).tree
        assert trees.read(repo, tree, A) is None
        assert trees.read(repo, tree, B) == (kit.root / B).read_bytes()


def test_a_deletion_needs_the_bytes_it_deletes(vault: Vault, kit: VaultKit) -> None:
    def stale(ctx: WriteContext) -> Plan:
        return Plan("delete", "pg_a", None, [FileWrite(A, None, "0" * 64, "pg_a", 1)])

    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("delete", {}), stale)
    assert caught.value.code == "fence-hash"
    assert (kit.root / A).exists()


def test_a_deletion_killed_half_way_is_finished_on_open(
    vault: Vault, kit: VaultKit, crash_at: list[str]
) -> None:
    crash_at.append("replaced:0")
    with pytest.raises(Crash):
        vault.write(make_request("delete", {}, request_id="rq_k"), delete_a_rewrite_b)
    assert not (kit.root / A).exists()
    assert (kit.root / B).read_text().endswith("Beta body.\n")
    crash_at.clear()
    reopened = kit.open()
    assert [r["requestId"] for r in reopened.recovered] == ["rq_k"]
    reopened.reconcile()
    assert not (kit.root / A).exists()
    assert (kit.root / B).read_text().endswith("Beta again.\n")
    assert reopened.journal()["items"][0]["state"] == "published"
    assert snapshot(reopened) == fresh_snapshot(kit.root, kit.root.parent)


def test_a_deletion_rolled_back_puts_the_file_back(vault: Vault, kit: VaultKit, crash_at: list[str]) -> None:
    """Killed after the deletion; B is then edited elsewhere: resume restores A's bytes."""
    old_a = (kit.root / A).read_bytes()
    crash_at.append("replaced:0")
    with pytest.raises(Crash):
        vault.write(make_request("delete", {}, request_id="rq_rb"), delete_a_rewrite_b)
    crash_at.clear()
    (kit.root / B).write_text((kit.root / B).read_text() + "outside\n")
    with pytest.raises(WriteRejected) as caught:
        vault.resume("rq_rb")
    assert caught.value.code == "write-conflict"
    assert (kit.root / A).read_bytes() == old_a
    assert (kit.root / B).read_text().endswith("outside\n")


def test_a_deletion_finds_the_file_edited_elsewhere_and_leaves_it(
    vault: Vault, kit: VaultKit, crash_at: list[str]
) -> None:
    crash_at.append("journaled")
    with pytest.raises(Crash):
        vault.write(make_request("delete", {}, request_id="rq_e"), delete_a_rewrite_b)
    crash_at.clear()
    (kit.root / A).write_text((kit.root / A).read_text() + "kept\n")
    with pytest.raises(WriteRejected) as caught:
        vault.resume("rq_e")
    assert caught.value.code == "write-conflict"
    assert (kit.root / A).read_text().endswith("kept\n")
    state = vault.store.reader().execute("SELECT state FROM journal WHERE request_id='rq_e'").fetchone()
    assert state == ("rolled-back",)
