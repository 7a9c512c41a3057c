"""Collections are folders of the partition (docs/decisions.md, "The knowledge API mapped onto
the vault"; spec: facts-entities-collections-api, Collections): built-in diary and keep,
created ones with a hidden marker nested at most 5 levels, readability that follows a folder
a person moves, and a person's ticks for `user-selected`."""

from __future__ import annotations

import json
import shutil

import pytest

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.changes import Changer, list_changes, revert
from knowledge_desktop.engine.errors import ApiError, PermissionRefused, WriteTooLarge
from knowledge_desktop.engine.vault import Vault
from tests.engine.api.docs_kit import grant, install, revoke, session
from tests.vaultkit import VaultKit


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/notes/n.md", "pg_n", "A note")
    vault = kit.scan()
    install(vault)
    install(vault, "other")
    return vault


def names(vault: Vault, name: str = "diarist") -> dict[str, tuple[str | None, bool]]:
    return {c.name: (c.builtin, c.can_write) for c in cols.list_collections(session(vault, name))}


def test_only_granted_collections_are_listed(vault: Vault) -> None:
    assert names(vault) == {}
    grant(vault, "collections.read:diary", "collections.write:keep")
    assert names(vault) == {"diary": ("diary", False), "keep": ("keep", True)}
    listed = cols.list_collections(session(vault))[0].as_json()
    assert set(listed) == {"ref", "name", "builtin", "kind", "canWrite", "parent"}


def test_create_needs_the_permission_and_writes_a_marker(vault: Vault) -> None:
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission collections\.create"):
        cols.create_collection(session(vault), "Recipes")
    grant(vault, "collections.create")
    made = cols.create_collection(session(vault), "Recipes")
    marker = json.loads((vault.root / "private/collections/recipes" / cols.MARKER).read_text())
    assert (marker["name"], marker["created_by"]) == ("Recipes", "extension:diarist")
    assert set(marker) == {"id", "name", "created_by", "created_at"}
    assert names(vault) == {"Recipes": (None, True)}  # its creator reads and writes it
    assert names(vault, "other") == {}
    assert made.as_json()["parent"] is None
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["operation"], newest["actor"]) == (cols.CREATE_OP, "extension:diarist")


def test_nesting_stops_at_five_levels_and_never_inside_the_diary(vault: Vault) -> None:
    grant(vault, "collections.create", "collections.write:keep")
    s = session(vault)
    parent = cols.create_collection(s, "Level 1")
    for level in range(2, 6):
        parent = cols.create_collection(s, f"Level {level}", parent.ref)
    with pytest.raises(ApiError, match="at most 5 levels"):
        cols.create_collection(s, "Level 6", parent.ref)
    in_keep = cols.create_collection(s, "Sichuan", "keep")
    assert in_keep.parent == next(c.ref for c in cols.list_collections(s) if c.builtin == "keep")
    with pytest.raises(ApiError, match="diary"):
        cols.create_collection(s, "Inside", "diary")
    with pytest.raises(WriteTooLarge):
        cols.create_collection(s, "x" * 1001)


def test_a_parent_needs_write_permission(vault: Vault) -> None:
    grant(vault, "collections.create", "collections.read:keep")
    with pytest.raises(PermissionRefused, match=r"collections\.write:keep"):
        cols.create_collection(session(vault), "Sichuan", "keep")


def test_a_folder_moved_by_a_person_moves_its_readability(vault: Vault) -> None:
    grant(vault, "collections.read:keep")
    grant(vault, "collections.create", name="other")
    made = cols.create_collection(session(vault, "other"), "Travel")
    inner = vault.root / "private/collections/travel/trip.md"
    assert not cols.readable(session(vault), "private/collections/travel/trip.md")
    shutil.move(str(vault.root / "private/collections/travel"), str(vault.root / "private/keep/travel"))
    assert cols.readable(session(vault), "private/keep/travel/trip.md")
    assert not cols.writable(session(vault), "private/keep/travel/trip.md")
    assert cols.writable(session(vault, "other"), "private/keep/travel/trip.md")  # its creator
    assert cols.resolve(session(vault, "other"), made.ref).folder == "keep/travel"  # the ref stays
    assert not inner.exists()


def test_a_ticked_folder_is_reached_through_user_selected(vault: Vault) -> None:
    folder = vault.root / "private/notes"
    cols.select_folder(vault.store, vault.root, "diarist", "private", "notes")
    assert not cols.readable(session(vault), "private/notes/n.md")  # the switch is still off
    grant(vault, "collections.read:user-selected")
    assert cols.readable(session(vault), "private/notes/n.md")
    shutil.move(str(folder), str(vault.root / "private/moved"))
    assert cols.readable(session(vault), "private/moved/n.md")  # the tick follows the folder
    cols.unselect_folder(vault.store, vault.root, "diarist", "private", "moved")
    assert not cols.readable(session(vault), "private/moved/n.md")
    revoke(vault, "collections.read:user-selected")


def test_undo_removes_an_empty_created_collection_only(vault: Vault) -> None:
    grant(vault, "collections.create")
    s = session(vault)
    cols.create_collection(s, "Empty")
    full = cols.create_collection(s, "Full")
    docs.upsert(s, full.ref, title="Inside", body="Text.\n")
    seqs = [
        i["journalId"] for i in vault.journal()["items"] if i["operation"] == cols.CREATE_OP
    ]  # newest first: Full, Empty
    changer = Changer.of(s)
    assert [i.status for i in revert(changer, change_ref=changer.change_ref(seqs[0])).items] == ["skipped"]
    assert [i.status for i in revert(changer, change_ref=changer.change_ref(seqs[1])).items] == ["reverted"]
    assert not (vault.root / "private/collections/empty").exists()
    assert (vault.root / "private/collections/full").exists()
    assert next(c.op for c in list_changes(changer)) == "collection-create-undo"
    assert [c.status for c in list_changes(changer) if c.op == "collection-create"] == ["applied", "reverted"]
    again = revert(changer, change_ref=changer.change_ref(seqs[1])).items
    assert [(i.status, i.note) for i in again] == [("skipped", "already reverted")]
