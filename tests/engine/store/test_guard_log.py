"""The log of guard changes (store/guards.py, durable migration 8): a reconciler following a
known version reads only what changed, with the same outcome as reading every guard
(spec: corrections-and-merges, Recovery and safeguards)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import pytest

from knowledge_desktop.engine.graph.guards import GuardMap
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store import guards, schema
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit

IDS = [f"cl_{i}" for i in range(6)]


def claims(kit: VaultKit) -> Vault:
    for record_id in IDS:
        kit.claim(f"private/claims/{record_id}.md", record_id, f"Claim {record_id}")
    return kit.scan()


def step(vault: Vault, rng: random.Random) -> None:
    """One random withdraw, supersede or supersede undo (each a publication's guard write)."""
    record_id = rng.choice(IDS)
    kind = rng.choice(["withdrawn", "superseded", "lift"])
    with vault.store.write() as tx:
        guards.set_guard(
            tx,
            scope="private",
            record_id=record_id,
            guard="superseded" if kind == "lift" else kind,
            by_id=rng.choice(IDS) if kind == "superseded" else None,
            request_id="req",
            reason="r",
            at="2026-10-01T09:00:00.000Z",
            lift=kind == "lift",
        )
        if rng.random() < 0.3:
            guards.prune(tx, keep=rng.randint(0, 4))


def reference(graph: VaultGraph, old: GuardMap, conn: sqlite3.Connection) -> tuple[list[str], GuardMap]:
    """Every guard read and compared with `old`: what the full read gives."""
    fresh = guards.read(conn)
    keys = {k for k in set(fresh) | set(old) if fresh.get(k) != old.get(k)}
    return sorted({p for s, r in keys for p in graph.ids.get(s, r)}), fresh


@pytest.mark.parametrize("seed", range(6))
def test_the_log_gives_what_reading_every_guard_gives(kit: VaultKit, seed: int) -> None:
    """Random withdrawals, supersessions, undos and prunes; readers following older versions
    (some behind the pruned log, who read every guard) end with the full read's guards and
    paths, and a reader the log reaches reads it."""
    rng = random.Random(seed)
    vault = claims(kit)
    conn = vault.store.reader()
    graph = vault.reconciler.graph()
    followers: list[tuple[int, GuardMap]] = [(guards.version(conn), guards.read(conn))]
    used_log = fell_back = 0
    for _ in range(40):
        step(vault, rng)
        followed, old = rng.choice(followers)
        expected_paths, expected = reference(graph, old, conn)
        graph.guards = dict(old)
        logged = guards.changes_since(conn, followed)
        paths, on_disk = guards.changed_paths(graph, conn, followed)
        assert (paths, graph.guards, on_disk) == (expected_paths, expected, guards.version(conn))
        if logged is None:
            fell_back += 1
            assert guards.floor(conn) > followed
        else:
            used_log += 1
        followers.append((on_disk, dict(graph.guards)))
    assert used_log
    assert fell_back


def test_a_reader_behind_the_pruned_log_reads_every_guard(kit: VaultKit) -> None:
    """Pruning never hides a change: a reader older than the floor reads every guard."""
    vault = claims(kit)
    conn = vault.store.reader()
    graph = vault.reconciler.graph()
    followed, old = guards.version(conn), guards.read(conn)
    rng = random.Random(3)
    for _ in range(5):
        step(vault, rng)
    with vault.store.write() as tx:
        guards.prune(tx, keep=1)
    assert guards.changes_since(conn, followed) is None
    expected_paths, expected = reference(graph, old, conn)
    graph.guards = dict(old)
    assert guards.changed_paths(graph, conn, followed)[0] == expected_paths
    assert graph.guards == expected
    assert conn.execute("SELECT min(version) FROM guard_changes_v1").fetchone()[0] == guards.floor(conn) + 1


def test_a_reader_the_log_reaches_reads_no_other_guard(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two vaults on one folder: the window follows the CLI's withdrawal from the log alone."""
    vault = claims(kit)
    vault.reconcile()
    window = Vault.open(kit.root)
    window.reconcile()
    window.reconciler.graph()
    with Vault.open(kit.root) as cli:
        cli.reconcile()
        with cli.store.write() as tx:
            guards.set_guard(tx, scope="private", record_id="cl_2", guard="withdrawn", by_id=None,
                             request_id="q", reason="r", at="2026-10-01T09:00:00.000Z")  # fmt: skip

    def no_full_read(conn: object) -> GuardMap:
        raise AssertionError("every guard read")

    monkeypatch.setattr(guards, "read", no_full_read)
    change = window.reconcile()
    assert "cl_2" in change.changed
    assert window.find("cl_2")[0]["lifecycle"] == "withdrawn"
    window.close()


def test_an_older_database_gains_the_log_by_migration(tmp_path: Path) -> None:
    """A state database of durable schema 7 with guards: opening it adds the log, which
    starts at the version then (earlier changes unlogged: a reader of those reads all)."""
    path = tmp_path / "state.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(schema.DURABLE_SQL)
    for statements in schema.DURABLE_MIGRATIONS[:7]:
        for statement in statements:
            conn.execute(statement)
    conn.execute("INSERT INTO store_identity(key, value) VALUES ('durable_schema', '7')")
    conn.execute("INSERT INTO keyword_withdrawals_v1 VALUES ('private', 'cl_1', 'q', 'r', 't')")
    conn.commit()
    conn.close()
    store = Store(path)
    reader = store.reader()
    assert guards.version(reader) == 1
    assert guards.floor(reader) == 1
    assert guards.changes_since(reader, 0) is None
    with store.write() as tx:
        tx.execute("INSERT INTO keyword_withdrawals_v1 VALUES ('private', 'cl_2', 'q', 'r', 't')")
    assert list(reader.execute("SELECT version, record_id FROM guard_changes_v1")) == [(2, "cl_2")]
    assert guards.changes_since(reader, 1) == (2, {("private", "cl_2"): guards.Guard("withdrawn", None)})
    store.close()


class Racing:
    """A reader connection before whose first log read another writer changes a guard."""

    def __init__(self, conn: sqlite3.Connection, race: Callable[[], None]) -> None:
        self.conn = conn
        self.race: Callable[[], None] | None = race

    def execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        if "guard_changes_v1" in sql and self.race is not None:
            race, self.race = self.race, None
            race()
        return self.conn.execute(sql, params)


def test_a_guard_written_while_the_log_is_read_is_read_again(kit: VaultKit) -> None:
    """A writer moves the version between the reader's version read and its log read: the
    reader reads again, so the version it returns is the one its guards are of."""
    vault = claims(kit)
    conn = vault.store.reader()
    followed = guards.version(conn)
    step(vault, random.Random(1))

    def race() -> None:
        with vault.store.write() as tx:
            guards.set_guard(tx, scope="private", record_id="cl_5", guard="withdrawn", by_id=None,
                             request_id="q", reason="r", at="2026-10-01T09:00:00.000Z")  # fmt: skip

    found = guards.changes_since(cast(sqlite3.Connection, Racing(conn, race)), followed)
    assert found is not None
    on_disk, now = found
    assert on_disk == guards.version(conn)
    assert now[("private", "cl_5")] == guards.Guard("withdrawn", None)
    every = guards.read(conn)
    assert now == {k: every.get(k) for k in now}
