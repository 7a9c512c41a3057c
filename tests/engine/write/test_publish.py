"""The one publish path: journal, atomic replacement, projections, receipts, request ids,
conflicts, crash recovery and durable guards (spec: corrections-and-merges, Recovery and
safeguards; Impact and visibility)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import publish
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.plan import FileWrite, GuardChange, Plan, WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.engine.write.conftest import A, B, Crash
from tests.vaultkit import VaultKit, fresh_snapshot, snapshot

IDS = {A: "pg_a", B: "pg_b"}


def rewrite(root: Path, bodies: dict[str, str], guards: list[GuardChange] | None = None) -> publish.Planner:
    """A planner that gives each file a new body and the next revision."""

    def planner(ctx: WriteContext) -> Plan:
        writes = []
        for rel, body in bodies.items():
            current = ctx.lookup(IDS[rel])
            data = current.data.replace(b"revision: 1", b"revision: 2").split(b"---\n")
            text = b"---\n".join([*data[:2], body.encode()])
            writes.append(FileWrite(rel, text, current.sha256, current.record_id, 2))
        return Plan("save", writes[0].record_id, "because", writes, guards=guards or [])

    return planner


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_publish_writes_reconciles_and_returns_the_receipt(vault: Vault, kit: VaultKit) -> None:
    """A publish replaces the file, the projections show the new revision at once, and the
    receipt has exactly the documented fields (spec: Impact and visibility, receipts)."""
    receipt = vault.write(make_request("save", {"x": 1}, actor="ada"), rewrite(kit.root, {A: "New.\n"}))
    assert set(receipt) == {
        "requestId", "operation", "targetId", "reason", "items", "impact", "indexed", "git",
        "journalId", "at",
    }  # fmt: skip
    assert receipt["items"] == [{"id": "pg_a", "revision": 2, "hash": sha(kit.root / A), "path": A}]
    assert receipt["git"]["state"] == "committed"
    assert receipt["indexed"] is True
    assert (kit.root / A).read_text().endswith("---\nNew.\n")
    view = vault.show("pg_a")
    assert (view["revision"], view["hash"], view["body"]) == (2, sha(kit.root / A), "New.\n")
    assert view["writtenByAgentId"] == "ada"
    assert snapshot(vault) == fresh_snapshot(kit.root, kit.root.parent)
    assert not list((kit.root / "private" / "notes").glob(".*.tmp"))


def test_same_request_and_payload_returns_the_first_receipt_and_writes_nothing(
    vault: Vault, kit: VaultKit
) -> None:
    """A retried request (lost response) gets the first receipt; nothing is written again
    (spec: Recovery and safeguards)."""
    request = make_request("save", {"body": "New.\n"}, request_id="rq_same")
    first = vault.write(request, rewrite(kit.root, {A: "New.\n"}))
    (kit.root / A).touch()
    before = (kit.root / A).stat().st_mtime_ns

    def must_not_plan(ctx: WriteContext) -> Plan:
        raise AssertionError("a replay must not plan again")

    again = vault.write(make_request("save", {"body": "New.\n"}, request_id="rq_same"), must_not_plan)
    assert again == first
    assert (kit.root / A).stat().st_mtime_ns == before
    assert vault.journal()["total"] == 1


def test_same_request_with_another_payload_is_rejected(vault: Vault, kit: VaultKit) -> None:
    """A changed payload under a used request id is refused (spec: Recovery and safeguards)."""
    vault.write(make_request("save", {"body": "one"}, request_id="rq_1"), rewrite(kit.root, {A: "One.\n"}))
    with pytest.raises(WriteRejected) as caught:
        vault.write(
            make_request("save", {"body": "two"}, request_id="rq_1"), rewrite(kit.root, {A: "Two.\n"})
        )
    assert caught.value.code == "request-reused"
    assert (kit.root / A).read_text().endswith("One.\n")


def test_a_stale_file_fence_writes_nothing(vault: Vault, kit: VaultKit) -> None:
    """A file whose bytes differ from what the plan expects is not written, and nothing is
    journaled (spec: fences; a mismatch writes nothing)."""

    def stale(ctx: WriteContext) -> Plan:
        return Plan("save", "pg_a", None, [FileWrite(A, b"x", "0" * 64, "pg_a", 2)])

    before = (kit.root / A).read_bytes()
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("save", {}), stale)
    assert caught.value.code == "fence-hash"
    assert caught.value.current["hash"] == hashlib.sha256(before).hexdigest()
    assert (kit.root / A).read_bytes() == before
    assert vault.journal()["total"] == 0


def test_the_vault_fence_names_the_current_vault_id(vault: Vault, kit: VaultKit) -> None:
    """An expected vault id that differs is rejected with the vault's id (spec: fences)."""
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("save", {}, expected_vault_id="vlt_other"), rewrite(kit.root, {A: "x\n"}))
    assert caught.value.code == "fence-vault"
    assert caught.value.current == {"vaultId": vault.vault_id}


def test_a_crash_mid_plan_is_finished_on_the_next_open(
    vault: Vault, kit: VaultKit, crash_at: list[str]
) -> None:
    """Killed after the first of two files was replaced: the next open finishes the plan, so
    both records are new, the journal says published and the projections equal a fresh scan
    (spec: Recovery and safeguards; docs/writing.md)."""
    crash_at.append("replaced:0")
    request = make_request("save", {"two": True}, request_id="rq_crash", actor="ada")
    with pytest.raises(Crash):
        vault.write(request, rewrite(kit.root, {A: "New A.\n", B: "New B.\n"}))
    assert (kit.root / A).read_text().endswith("New A.\n")
    assert (kit.root / B).read_text().endswith("Beta body.\n")  # half done: the state to repair
    crash_at.clear()
    reopened = kit.open()
    assert [r["requestId"] for r in reopened.recovered] == ["rq_crash"]
    reopened.reconcile()
    assert (kit.root / B).read_text().endswith("New B.\n")
    entry = reopened.journal()["items"][0]
    assert (entry["state"], entry["receipt"]["requestId"]) == ("published", "rq_crash")
    assert reopened.resume("rq_crash") == entry["receipt"]
    assert snapshot(reopened) == fresh_snapshot(kit.root, kit.root.parent)
    assert reopened.show("pg_b")["writtenByAgentId"] == "ada"


def test_resume_finishes_an_interrupted_request(vault: Vault, kit: VaultKit, crash_at: list[str]) -> None:
    """`resume` carries out an entry left pending right after its intent was journaled."""
    crash_at.append("journaled")
    with pytest.raises(Crash):
        vault.write(make_request("save", {}, request_id="rq_r"), rewrite(kit.root, {A: "Later.\n"}))
    crash_at.clear()
    assert [d.code for d in vault.vault_diagnostics()] == ["write-interrupted"]
    receipt = vault.resume("rq_r")
    assert receipt["items"][0]["hash"] == sha(kit.root / A)
    assert vault.vault_diagnostics() == []


def test_an_outside_edit_before_resume_rolls_back_and_keeps_all_versions(
    vault: Vault, kit: VaultKit, crash_at: list[str]
) -> None:
    """After a crash, a file edited by someone else is never overwritten: the files already
    replaced are put back, the proposed, original and displaced bytes are kept, and the
    record reports the conflict until it is reviewed (spec: Recovery and safeguards)."""
    original_a, original_b = (kit.root / A).read_bytes(), (kit.root / B).read_bytes()
    crash_at.append("replaced:0")
    with pytest.raises(Crash):
        vault.write(
            make_request("save", {}, request_id="rq_c"), rewrite(kit.root, {A: "Mine A.\n", B: "Mine B.\n"})
        )
    crash_at.clear()
    outside = original_b.replace(b"Beta body.", b"Edited elsewhere.")
    (kit.root / B).write_bytes(outside)
    with pytest.raises(WriteRejected) as caught:
        vault.resume("rq_c")
    assert caught.value.code == "write-conflict"
    assert (kit.root / A).read_bytes() == original_a
    assert (kit.root / B).read_bytes() == outside
    folder = Path(caught.value.current["conflictDir"])
    assert (folder / "displaced" / B).read_bytes() == outside
    assert (folder / "original" / B).read_bytes() == original_b
    assert (folder / "proposed" / B).read_bytes().endswith(b"Mine B.\n")
    assert json.loads((folder / "conflict.json").read_text())["files"][1]["conflict"] is True
    vault.reconcile()
    assert "write-conflict" in [d["code"] for d in vault.show("pg_b")["diagnostics"]]
    assert vault.journal()["items"][0]["state"] == "rolled-back"
    with pytest.raises(WriteRejected):
        vault.resume("rq_c")  # still the conflict: resume never overwrites it
    reviewed = vault.resume("rq_c", reviewed=True)
    assert reviewed["reviewedAt"]
    assert "write-conflict" not in [d["code"] for d in vault.show("pg_b")["diagnostics"]]
    assert (kit.root / B).read_bytes() == outside


def test_an_outside_edit_between_intent_and_replace_is_a_conflict(
    vault: Vault, kit: VaultKit, crash_at: list[str]
) -> None:
    """An edit that lands after the intent is journaled stops the publish without writing."""

    def edit_b(name: str) -> None:
        if name == "replaced:0":
            (kit.root / B).write_text((kit.root / B).read_text() + "outside\n")

    publish.STEP = edit_b
    before_a = (kit.root / A).read_bytes()
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("save", {}), rewrite(kit.root, {A: "Mine A.\n", B: "Mine B.\n"}))
    assert caught.value.code == "write-conflict"
    assert (kit.root / A).read_bytes() == before_a
    assert (kit.root / B).read_text().endswith("outside\n")


def test_guards_are_recorded_and_only_a_supersession_is_lifted(vault: Vault, kit: VaultKit) -> None:
    """Durable guards land with the publish; a supersession guard lifts, a withdrawal never
    does (spec: Recovery and safeguards)."""
    guards = [
        GuardChange("private", "pg_a", "withdrawn", None),
        GuardChange("private", "pg_b", "superseded", "pg_a"),
    ]
    vault.write(make_request("withdraw", {}), rewrite(kit.root, {A: "W.\n"}, guards))
    conn = vault.store.reader()
    assert sorted(conn.execute("SELECT record_id, guard, by_id FROM lifecycle_guards_v1")) == [
        ("pg_a", "withdrawn", None),
        ("pg_b", "superseded", "pg_a"),
    ]
    assert [r[0] for r in conn.execute("SELECT record_id FROM keyword_withdrawals_v1")] == ["pg_a"]
    lift = [GuardChange("private", "pg_b", "superseded", "pg_a", lift=True)]
    vault.write(make_request("unsupersede", {}), rewrite(kit.root, {B: "U.\n"}, lift))
    assert [r[0] for r in conn.execute("SELECT record_id FROM lifecycle_guards_v1")] == ["pg_a"]
    never = [GuardChange("private", "pg_a", "withdrawn", None, lift=True)]
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("x", {}), rewrite(kit.root, {B: "V.\n"}, never))
    assert caught.value.code == "guard-permanent"


def test_saved_by_follows_the_bytes_it_was_journaled_for(vault: Vault, kit: VaultKit) -> None:
    """The byline belongs to the revision and bytes the write journaled: an outside edit that
    keeps the revision has none (spec: records-and-ontology, Displayed author)."""
    vault.write(make_request("save", {}, actor="ada"), rewrite(kit.root, {A: "Mine.\n"}))
    assert vault.show("pg_a")["writtenByAgentId"] == "ada"
    (kit.root / A).write_text((kit.root / A).read_text() + "more\n")
    vault.reconcile()
    assert "writtenByAgentId" not in vault.show("pg_a")


def test_the_journal_lists_entries_newest_first_with_receipts(vault: Vault, kit: VaultKit) -> None:
    """`journal`: receipts newest first, with paging."""
    for n in range(3):
        vault.write(make_request("save", {"n": n}, request_id=f"rq_{n}"), rewrite(kit.root, {A: f"{n}\n"}))
    page = vault.journal(limit=2)
    assert [i["requestId"] for i in page["items"]] == ["rq_2", "rq_1"]
    assert page["nextOffset"] == 2
    assert page["items"][0]["receipt"]["journalId"] == page["items"][0]["journalId"]
    assert [i["requestId"] for i in vault.journal(limit=2, offset=2)["items"]] == ["rq_0"]


def test_a_request_of_a_run_is_journaled_with_its_run(vault: Vault, kit: VaultKit) -> None:
    """A run id given with the request (an extension's run, issue 16) is kept on the entry;
    a request of no run has none."""
    vault.write(make_request("save", {}, request_id="rq_a", run_id="run_1"), rewrite(kit.root, {A: "a\n"}))
    vault.write(make_request("save", {}, request_id="rq_b"), rewrite(kit.root, {A: "b\n"}))
    items = vault.journal()["items"]
    assert [(i["requestId"], i["runId"]) for i in items] == [("rq_b", None), ("rq_a", "run_1")]


def test_recovery_waits_for_a_live_writer(vault: Vault, kit: VaultKit, crash_at: list[str]) -> None:
    """An entry whose writer still holds the vault's write lock is not 'recovered' by another
    open, nor reported as interrupted while the lock is held (a write in progress, issue 29
    §1); once nobody holds the lock it is reported as interrupted."""
    from knowledge_desktop.engine.fs.lock import exclusive

    crash_at.append("journaled")
    with pytest.raises(Crash):
        vault.write(make_request("save", {}, request_id="rq_live"), rewrite(kit.root, {A: "Live.\n"}))
    crash_at.clear()
    with exclusive(vault.state_dir / publish.LOCK_NAME, 1.0):
        other = Vault.open(kit.root)
        try:
            assert other.recovered == []
            assert [d.code for d in other.vault_diagnostics()] == []
        finally:
            other.close()
    assert [d.code for d in vault.vault_diagnostics()] == ["write-interrupted"]
    assert (kit.root / A).read_text().endswith("Alpha body.\n")


def test_durable_tables_from_before_the_write_side_are_migrated(tmp_path: Path) -> None:
    """A state.sqlite made before the journal had states keeps its rows and gains the new
    columns and tables; durable tables are altered, never dropped."""
    from knowledge_desktop.engine.store.db import Store

    db = tmp_path / "state.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL,"
        " operation TEXT NOT NULL, scope TEXT, payload TEXT NOT NULL, created_at TEXT NOT NULL);"
        "INSERT INTO journal(request_id, operation, payload, created_at) VALUES ('rq_old','x','{}','t');"
        "CREATE TABLE provenance (scope TEXT NOT NULL, record_id TEXT NOT NULL, revision INTEGER NOT NULL,"
        " agent_id TEXT NOT NULL, journal_seq INTEGER, PRIMARY KEY (scope, record_id, revision));"
    )
    conn.close()
    store = Store(db)
    try:
        reader = store.reader()
        columns = {r[1] for r in reader.execute("PRAGMA table_info(journal)")}
        assert {"state", "plan", "actor", "payload_sha256", "outcome"} <= columns
        assert [r[0] for r in reader.execute("SELECT request_id FROM journal")] == ["rq_old"]
        assert "sha256" in {r[1] for r in reader.execute("PRAGMA table_info(provenance)")}
        assert reader.execute("SELECT count(*) FROM journal_files").fetchone() == (0,)
    finally:
        store.close()
    Store(db).close()  # a second open applies nothing twice


def test_writes_go_only_to_markdown_inside_a_partition(vault: Vault, kit: VaultKit) -> None:
    """A plan cannot write outside the vault, into .knowledge, or through a link."""
    for bad in ("../x.md", "notes.md", "private/.hidden/x.md", "private/x.txt", "/tmp/x.md"):

        def planner(ctx: WriteContext, rel: str = bad) -> Plan:
            return Plan("new", "pg_x", None, [FileWrite(rel, b"x", None, "pg_x", 1)])

        with pytest.raises(WriteRejected) as caught:
            vault.write(make_request("new", {"p": bad}), planner)
        assert caught.value.code == "bad-path", bad
    (kit.root / "private" / "link.md").symlink_to(kit.root / A)

    def through_link(ctx: WriteContext) -> Plan:
        return Plan("save", "pg_a", None, [FileWrite("private/link.md", b"x", sha(kit.root / A), "pg_a", 2)])

    with pytest.raises(WriteRejected):
        vault.write(make_request("save", {}), through_link)
    assert vault.journal()["total"] == 0


def test_a_read_only_vault_refuses_writes(kit: VaultKit) -> None:
    """A vault whose .knowledge folder cannot be written takes no writes: its guards and
    journal would live in a cache folder."""
    kit.page(A, "pg_a", "Alpha", type="note")
    vault = kit.scan()
    vault.publisher.read_only = True
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("save", {}), rewrite(kit.root, {A: "x\n"}))
    assert caught.value.code == "read-only"


def test_a_host_hears_each_publish_as_a_changeset(vault: Vault, kit: VaultKit) -> None:
    """The window updates its panes from the publish's own ChangeSet (the watcher, reconciling
    after it, finds nothing new)."""
    heard: list[tuple[str, list[str], list[str]]] = []
    vault.on_publish = lambda change: heard.append((change.source, change.paths, change.changed))
    vault.write(make_request("save", {}), rewrite(kit.root, {A: "Heard.\n"}))
    assert heard == [("publish", [A], ["pg_a"])]
    assert vault.reconcile([A], "watcher").empty


def test_a_host_hears_of_a_write_once_its_entry_is_published(vault: Vault, kit: VaultKit) -> None:
    """`on_publish` gets the write's ChangeSet after the journal marks the entry published, so
    a host that reads the vault on it (the window's panes) never sees the write pending, which
    the window showed as `write-interrupted` (issue 29, §1)."""
    heard: list[tuple[list[str], list[str], list[str]]] = []

    def on_publish(change: object) -> None:
        states = [item["state"] for item in vault.journal()["items"]]
        interrupted = [d.code for d in vault.vault_diagnostics()]
        heard.append((sorted(getattr(change, "paths", [])), states, interrupted))

    vault.on_publish = on_publish
    vault.write(make_request("save", {}), rewrite(kit.root, {A: "New.\n"}))
    assert heard == [([A], ["published"], [])]
