"""The stored walk digest: an unchanged vault is known fresh without loading the files
table, and no write can leave a digest that describes something else."""

from __future__ import annotations

import os

from knowledge_desktop.engine.store import freshness
from tests.hostile_cases import locked, locked_files
from tests.vaultkit import VaultKit


def stored(kit: VaultKit) -> str | None:
    vault = kit._vault or kit.open()
    row = (
        vault.store.reader()
        .execute("SELECT value FROM projection_meta WHERE key=?", (freshness.KEY,))
        .fetchone()
    )
    return row[0] if row else None


def people(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/people/bo.md", "pg_bo", "Bo", type="person")


def test_an_unchanged_vault_is_fresh_without_loading_what_was_read(kit: VaultKit) -> None:
    people(kit)
    kit.scan()
    assert stored(kit) is not None
    vault = kit.open()
    change = vault.reconcile()
    assert (change.stat_checked, change.read) == (2, 0)
    assert vault.reconciler._known_files is None  # the 100k-row load never happened


def test_every_kind_of_outside_change_is_still_seen_after_a_fresh_open(kit: VaultKit) -> None:
    people(kit)
    kit.scan()
    ada = kit.root / "private/people/ada.md"
    steps = [
        lambda: kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person"),
        lambda: os.utime(ada, ns=(1, 1)),  # touched only: the stat moved, not the bytes
        lambda: kit.page("private/people/cy.md", "pg_cy", "Cy", type="person"),
        (kit.root / "private/people/bo.md").unlink,
    ]
    for step in steps:
        step()
        vault = kit.open()
        change = vault.reconcile()
        assert change.read + len(change.removed) >= 1, step
        assert stored(kit) is not None  # the full walk that caught up records it again
        assert kit.open().reconcile().read == 0
    assert {r["id"] for r in kit.scan().records()["items"]} == {"pg_ada", "pg_cy"}


def test_a_partial_reconcile_forgets_the_digest_in_its_own_write(kit: VaultKit) -> None:
    """A watcher's reconcile of a few paths writes `files` but walks nothing whole: the
    old digest must go, or a later walk could match a table it no longer describes."""
    people(kit)
    vault = kit.scan()
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    vault.reconcile(["private/people/ada.md"], "watch")
    assert stored(kit) is None
    change = kit.open().reconcile()
    assert change.read == 0  # the slow comparison, which finds the table current
    assert stored(kit) is not None


def test_the_digest_goes_with_the_projections(kit: VaultKit) -> None:
    people(kit)
    kit.scan().store.rebuild_projections()
    assert stored(kit) is None
    assert kit.open().reconcile().read == 2
    assert kit.scan().rebuild().read == 2


def test_an_unreadable_file_keeps_being_retried_after_a_fresh_open(kit: VaultKit) -> None:
    """A file that could not be read is kept with a stat that matches no walk, so it is
    read again; the walk digest must never vouch for it (making a file readable again
    moves no mtime)."""
    people(kit)
    locked_files(kit.root)
    with locked(kit.root):
        kit.scan()
        assert "file-unreadable" in kit.codes("private/notes/locked/secret.md")
        assert stored(kit) is None
    vault = kit.open()
    assert vault.reconcile().read >= 1
    assert "file-unreadable" not in kit.codes("private/notes/locked/secret.md")
