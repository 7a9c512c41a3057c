"""Durable lifecycle guards on the read side: a stale file cannot revive a withdrawn or
superseded record (spec: corrections-and-merges, Recovery and safeguards;
retrieval-and-dates, What is rebuildable)."""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.store import guards
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import CHANGE, VaultKit

C1, C2 = "private/claims/c1.md", "private/claims/c2.md"


def two_claims(kit: VaultKit) -> None:
    """cl_1 says the lantern is blue; cl_2 depends on it."""
    kit.claim(C1, "cl_1", "Lantern colour", body="The lantern is blue.\n", occurred_at="2026-09-01")
    kit.claim(C2, "cl_2", "Lantern paint", body="So its paint matches.\n", dependencies=["cl_1"])


def guard(vault: Vault, record_id: str, kind: str, *, by: str | None = None, lift: bool = False) -> None:
    with vault.store.write() as tx:
        guards.set_guard(
            tx,
            scope="private",
            record_id=record_id,
            guard=kind,
            by_id=by,
            request_id="req-1",
            reason="wrong colour",
            at="2026-10-01T09:00:00.000Z",
            lift=lift,
        )


def state(vault: Vault, record_id: str) -> tuple[str, bool]:
    rows = vault.find(record_id)
    assert len(rows) == 1
    return rows[0]["lifecycle"], rows[0]["eligible"]


def hits(vault: Vault, query: str, **options: Any) -> list[str]:
    return [h["id"] for h in vault.grep(GrepQuery(query, **options))["hits"]]


def test_a_withdrawal_guard_outlives_a_restored_active_file(kit: VaultKit) -> None:
    """Recovery and safeguards: the file was withdrawn, then a backup copy saying active
    came back; every read keeps it withdrawn and a diagnostic names the file."""
    two_claims(kit)
    vault = kit.scan()
    assert hits(vault, "lantern blue") == ["cl_1"]
    assert [i["id"] for i in vault.timeline()["items"]] == ["cl_1"]
    kit.claim(C1, "cl_1", "Lantern colour", body="The lantern is blue.\n", lifecycle="withdrawn",
              lifecycle_change=CHANGE, revision=2)  # fmt: skip
    guard(vault, "cl_1", "withdrawn")
    vault.reconcile()
    assert state(vault, "cl_1") == ("withdrawn", False)
    assert "lifecycle-guarded" not in kit.codes(C1)  # the file agrees with its guard

    two_claims(kit)  # the stale copy, back from a backup
    vault.reconcile()
    assert state(vault, "cl_1") == ("withdrawn", False)
    assert state(vault, "cl_2") == ("active", False)  # its dependency stays unavailable
    guarded = [d for d in vault.diagnostics() if d.code == "lifecycle-guarded"]
    assert [(d.path, d.record_id) for d in guarded] == [(C1, "cl_1")]
    assert "'active'" in guarded[0].message
    assert vault.lookup("cl_1")["status"] == "missing"
    assert vault.lookup("cl_1", RecordFilter(lifecycle="all"))["status"] == "missing"
    assert hits(vault, "lantern blue") == []
    assert hits(vault, "lantern blue", lifecycle="all") == []
    assert vault.timeline()["items"] == []
    assert vault.timeline(eligibility="include_inactive")["items"] == []
    assert "cl_1" not in [r["id"] for r in vault.records()["items"]]
    assert "cl_1" not in [r["id"] for r in vault.records(RecordFilter(lifecycle="all"))["items"]]


def test_a_guard_applies_without_the_file_changing(kit: VaultKit) -> None:
    """Recovery and safeguards: the guard alone is enough; the file may never have said
    withdrawn (a publish whose file write was lost, or another process's guard)."""
    two_claims(kit)
    vault = kit.scan()
    guard(vault, "cl_1", "withdrawn")
    change = vault.reconcile()
    assert "cl_1" in change.changed
    assert state(vault, "cl_1") == ("withdrawn", False)
    assert not vault.find("cl_2")[0]["deps_ok"]
    assert "lifecycle-guarded" in {d.code for d in vault.diagnostics()}


def test_withdrawal_outranks_supersession(kit: VaultKit) -> None:
    """Recovery and safeguards: a record both superseded and withdrawn reads as withdrawn,
    whatever its file says."""
    two_claims(kit)
    kit.claim("private/claims/c3.md", "cl_3", "Lantern colour, corrected", body="It is green.\n")
    vault = kit.scan()
    guard(vault, "cl_1", "superseded", by="cl_3")
    vault.reconcile()
    assert state(vault, "cl_1") == ("superseded", False)
    guard(vault, "cl_1", "withdrawn")
    vault.reconcile()
    assert state(vault, "cl_1") == ("withdrawn", False)
    kit.claim(C1, "cl_1", "Lantern colour", lifecycle="superseded", superseded_by="cl_3",
              lifecycle_change=CHANGE)  # fmt: skip
    vault.reconcile()
    assert state(vault, "cl_1") == ("withdrawn", False)


def test_a_superseded_guard_follows_the_replacement_in_search(kit: VaultKit) -> None:
    """Superseded wording (retrieval-and-dates): a guarded stale copy still leads its words
    to the current replacement the guard names."""
    two_claims(kit)
    kit.claim("private/claims/c3.md", "cl_3", "Lantern colour, corrected", body="It is green.\n")
    vault = kit.scan()
    guard(vault, "cl_1", "superseded", by="cl_3")
    vault.reconcile()
    result = vault.grep(GrepQuery("lantern blue"))
    assert [(h["id"], h.get("via", {}).get("id")) for h in result["hits"]] == [("cl_3", "cl_1")]
    assert hits(vault, "lantern blue", lifecycle="superseded") == ["cl_1"]


def test_only_lifting_the_guard_brings_a_superseded_record_back(kit: VaultKit) -> None:
    """Recovery and safeguards: rewriting the file active does not lift a supersession;
    a lifted guard (a published undo) does."""
    two_claims(kit)
    vault = kit.scan()
    guard(vault, "cl_1", "superseded", by="cl_2")
    vault.reconcile()
    kit.claim(C1, "cl_1", "Lantern colour", body="The lantern is blue, really.\n")
    vault.reconcile()
    assert state(vault, "cl_1") == ("superseded", False)
    guard(vault, "cl_1", "superseded", lift=True)
    vault.reconcile()
    assert state(vault, "cl_1") == ("active", True)
    assert "lifecycle-guarded" not in {d.code for d in vault.diagnostics()}
    assert hits(vault, "lantern really") == ["cl_1"]


def test_nothing_lifts_a_withdrawal() -> None:
    """Withdraw a record: there is no unwithdraw."""
    import sqlite3

    import pytest

    from knowledge_desktop.engine.store.db import Tx

    conn = sqlite3.connect(":memory:")
    with pytest.raises(ValueError, match="only a supersession"):
        guards.set_guard(
            Tx(conn),
            scope="s",
            record_id="r",
            guard="withdrawn",
            by_id=None,
            request_id="q",
            reason="r",
            at="t",
            lift=True,
        )


def test_guards_survive_reopening_and_a_projection_rebuild(kit: VaultKit) -> None:
    """What is rebuildable: projections are rebuilt from the Markdown, the guards stay
    and apply to the rebuilt rows."""
    two_claims(kit)
    vault = kit.scan()
    guard(vault, "cl_1", "withdrawn")
    vault.reconcile()
    vault = kit.open()
    vault.reconcile()
    assert state(vault, "cl_1") == ("withdrawn", False)
    vault.rebuild()
    assert state(vault, "cl_1") == ("withdrawn", False)
    assert "lifecycle-guarded" in {d.code for d in vault.diagnostics()}
    # A stale file edited again after the reopen (graph restored from its snapshot).
    kit.claim(C1, "cl_1", "Lantern colour", body="The lantern is blue!\n")
    vault.reconcile(["private/claims/c1.md"])
    assert state(vault, "cl_1") == ("withdrawn", False)


def test_a_guard_written_by_another_process_reaches_an_open_vault(kit: VaultKit) -> None:
    """Recovery and safeguards: the window keeps its graph in memory while the CLI
    publishes; its next reconcile follows the new guard."""
    two_claims(kit)
    window = kit.scan()
    window.reconcile(["private/claims/c1.md"])  # the window's graph is loaded
    with Vault.open(kit.root) as cli:
        cli.reconcile()
        guard(cli, "cl_1", "withdrawn")
        cli.reconcile()
        assert state(cli, "cl_1") == ("withdrawn", False)
    change = window.reconcile(["private/claims/c2.md"])
    assert "cl_1" in change.changed
    assert state(window, "cl_1") == ("withdrawn", False)
    assert not window.find("cl_2")[0]["eligible"]


def test_a_guard_on_a_record_that_is_not_there_is_harmless(kit: VaultKit) -> None:
    """What is rebuildable: a guard may outlive its file; nothing else is affected."""
    two_claims(kit)
    vault = kit.scan()
    guard(vault, "cl_gone", "withdrawn")
    vault.reconcile()
    assert state(vault, "cl_1") == ("active", True)
    kit.claim("private/claims/gone.md", "cl_gone", "Back again")
    vault.reconcile()
    assert state(vault, "cl_gone") == ("withdrawn", False)


def test_any_writer_of_a_guard_row_moves_the_version(kit: VaultKit) -> None:
    """Recovery and safeguards: a guard row inserted by plain SQL (any writer of the
    durable tables) is noticed by the next reconcile, and so is its removal."""
    two_claims(kit)
    vault = kit.scan()
    before = guards.version(vault.store.reader())
    with vault.store.write() as tx:
        tx.execute(
            "INSERT INTO lifecycle_guards_v1(scope, record_id, guard, by_id, request_id, created_at)"
            " VALUES ('private', 'cl_1', 'superseded', 'cl_2', 'r', 't')"
        )
    assert guards.version(vault.store.reader()) > before
    vault.reconcile()
    assert state(vault, "cl_1") == ("superseded", False)
    with vault.store.write() as tx:
        tx.execute("DELETE FROM lifecycle_guards_v1")
    vault.reconcile()
    assert state(vault, "cl_1") == ("active", True)
