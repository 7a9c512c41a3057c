"""Two processes on one vault: one loads or uses its in-memory graph while the other
rewrites the shared parse cache (`files.node`). The graph must never pair one file's
hash with another version's parse, and a file the other process reconciled is taken
up as a change, not a `StaleDetail` that fails the run (ARCHITECTURE.md: state.sqlite,
Data flow). Each interleaving is forced with a seam, not timing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit, fresh_snapshot, snapshot

ADA = "private/people/ada.md"
BOB = "private/people/bob.md"


def two_people(kit: VaultKit) -> None:
    """Ada links to Bob by name, so renaming Bob re-derives Ada (her detail is read back)."""
    kit.page(ADA, "pg_ada", "Ada", type="person", body="Works with [[Bob]].\n")
    kit.page(BOB, "pg_bob", "Bob", type="person")


def other_process_edits_ada(kit: VaultKit, other: Vault) -> None:
    kit.page(ADA, "pg_ada", "Ada", type="person", body="Works with [[Bob]] every day.\n")
    other.reconcile([ADA], "watcher")


def rename_bob(kit: VaultKit) -> None:
    kit.page(BOB, "pg_bob", "Robert", type="person")


def opened_twice(kit: VaultKit) -> tuple[Vault, Vault]:
    two_people(kit)
    kit.scan()
    kit.close()
    return Vault.open(kit.root), Vault.open(kit.root)


def assert_matches_a_fresh_scan(kit: VaultKit, vault: Vault, scratch: Path) -> None:
    vault.reconcile()
    assert snapshot(vault) == fresh_snapshot(kit.root, scratch)


def stored_hash(vault: Vault) -> str:
    return str(vault.store.reader().execute("SELECT sha256 FROM files WHERE path=?", (ADA,)).fetchone()[0])


def before(target: Callable[..., Any], step: Callable[[], None]) -> Callable[..., Any]:
    """`target`, with `step` run once just before its first call (the other process's turn)."""
    pending = [step]

    def seam(*args: Any, **kwargs: Any) -> Any:
        while pending:
            pending.pop()()
        return target(*args, **kwargs)

    return seam


def test_a_file_rewritten_between_reading_the_files_table_and_the_snapshot_loads_as_one_version(
    kit: VaultKit, tmp_path: Path
) -> None:
    """Loading the graph (as `Vault.warm_up` does, after the first look at the files): the
    hashes and the graph snapshot are read in one read transaction, so a node's hash is
    that of the parse its snapshot row came from. Before, the hashes came from the files
    table as this process read it earlier (`_known`) and the snapshot from the other
    process's later commit: Ada kept her old hash with the new state, and deriving her
    again raised StaleDetail."""
    mine, other = opened_twice(kit)
    try:
        reconciler = mine.reconciler
        assert ADA in reconciler._known  # this process has read the files table
        other_process_edits_ada(kit, other)  # its turn, before this one loads the graph
        reconciler.graph()
        assert reconciler.graph().nodes[ADA].sha256 == stored_hash(mine)
        rename_bob(kit)
        change = mine.reconcile([BOB], "watcher")
        assert ADA in change.affected_paths
        assert_matches_a_fresh_scan(kit, mine, tmp_path)
    finally:
        mine.close()
        other.close()


def test_a_file_another_process_reconciled_after_the_load_is_taken_up_as_a_change(
    kit: VaultKit, tmp_path: Path
) -> None:
    """A graph loaded before the other process rewrote Ada's parse: the next run here that
    re-derives Ada takes the stored parse as Ada's change (through the one apply path)
    instead of failing on a detail whose hash is not the node's."""
    mine, other = opened_twice(kit)
    try:
        mine.reconciler.graph()
        other_process_edits_ada(kit, other)
        rename_bob(kit)
        change = mine.reconcile([BOB], "watcher")
        assert ADA in change.affected_paths
        assert mine.reconciler.graph().nodes[ADA].sha256 == stored_hash(mine)
        assert_matches_a_fresh_scan(kit, mine, tmp_path)
    finally:
        mine.close()
        other.close()


def test_a_parse_cache_rewritten_during_a_run_is_not_seen_half_way(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The other process commits after this run looked for changes but before it reads
    Ada's detail back: the run reads from one snapshot of the store, so it derives Ada as
    that snapshot holds her, and the next run takes up the newer parse."""
    mine, other = opened_twice(kit)
    try:
        graph = mine.reconciler.graph()
        monkeypatch.setattr(graph, "apply", before(graph.apply, lambda: other_process_edits_ada(kit, other)))
        rename_bob(kit)
        mine.reconcile([BOB], "watcher")
        monkeypatch.undo()
        kit.page(BOB, "pg_bob", "Bob", type="person")  # Ada's link resolves again
        mine.reconcile([BOB], "watcher")
        assert mine.reconciler.graph().nodes[ADA].sha256 == stored_hash(mine)
        assert_matches_a_fresh_scan(kit, mine, tmp_path)
    finally:
        mine.close()
        other.close()
