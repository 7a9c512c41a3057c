"""A server's first read after opening an unchanged vault (issue 28 §3, start to first
answer): the opening reconcile found the files as the store describes them, so the first
question about the partitions (`Reconciler.ontologies`) is answered without loading every
file's row, which took 0.4 s of a 10k vault's first grep."""

from __future__ import annotations

from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit


def test_the_first_read_of_an_unchanged_vault_loads_no_file_rows(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("work/people/bo.md", "pg_bo", "Bo", type="person")
    kit.scan()
    kit.close()
    with Vault.open(kit.root) as vault:
        vault.reconcile()  # nothing changed since the scan
        assert set(vault.reconciler.ontologies()) == {"private", "work"}
        assert vault.reconciler._known_files is None  # every file's row, loaded on first use
        # a partition made afterwards is still found
        kit.page("home/people/cy.md", "pg_cy", "Cy", type="person")
        vault.reconcile()
        assert set(vault.reconciler.ontologies()) == {"private", "work", "home"}
