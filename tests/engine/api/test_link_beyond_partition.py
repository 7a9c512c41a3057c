"""A record's link into another partition resolves for the vault's owner (docs/decisions.md,
"Links beyond a record's partition"), and an extension, which reads one partition only, learns
nothing of the other through it: not the target of the link, nor the backlink it makes (spec:
facts-entities-collections-api, "Permission strings": what is not authorized is not returned)."""

from __future__ import annotations

import copy

from knowledge_desktop.engine import vault_reads
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault_api import open_session
from tests.engine.api.test_visibility import AGENT
from tests.vaultkit import VaultKit


def test_an_extension_gets_no_link_target_nor_backlink_from_a_partition_it_cannot_read(
    kit: VaultKit,
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", body="Works with [[Bob Stone]].\n")
    kit.page("work/people/bob.md", "pg_bob", "Bob Stone", type="person", body="Bob.\n")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    for name, scope in (("agent", "private"), ("worker", "work")):
        manifest = copy.deepcopy(AGENT)
        manifest["name"] = name
        extensions.install(validate_manifest(manifest), scope)
        extensions.grant(name, "entities.read:person")

    # the owner: the link reaches Bob's record across partitions, and Bob's backlinks say so
    (reference,) = vault.show("private/people/ada.md")["references"]
    assert (reference["status"], reference["path"], reference["crossPartition"]) == (
        "resolved",
        "work/people/bob.md",
        True,
    )
    assert "private/people/ada.md" in {b["path"] for b in vault.show("work/people/bob.md")["backlinks"]}
    linked = vault.backlinks("work/people/bob.md", mentions=0)["linked"]  # the window's pane
    assert [entry["path"] for entry in linked] == ["private/people/ada.md"]

    # an extension of `private` reads Ada, but the link reads as one to nothing
    view = vault_reads.record(vault, open_session(vault, "agent"), "pg_ada")
    (seen,) = view.references
    assert (seen["status"], seen["id"], seen["path"], seen["crossPartition"]) == (
        "missing",
        None,
        None,
        False,
    )
    # an extension of `work` reads Bob, but not who links him from `private`
    view = vault_reads.record(vault, open_session(vault, "worker"), "pg_bob")
    assert view.backlinks == ()
