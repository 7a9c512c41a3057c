"""One undo protocol for every write, and uninstall (issue 16 §1 Changes, §2 Uninstall;
docs/decisions.md, "The knowledge API mapped onto the vault"): `changes.revert` of a run that
mixes facts, documents and collections gives every file back as it was, whether the extension
or the person reverts; an uninstall's Delete is one run of the person that a revert undoes; Keep
leaves the knowledge; private state goes either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.changes import Changer, list_changes, revert
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.api.uninstall import EXPIRE, contributions, uninstall
from knowledge_desktop.engine.errors import UnknownExtension
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session, person_changes
from tests.vaultkit import VaultKit, frontmatter_of

GRANTED = [
    "facts.read:self:pref.food.*",
    "facts.write:self:pref.food.*",
    "collections.read:keep",
    "collections.write:keep",
    "collections.create",
]
COOK: dict[str, Any] = {
    "name": "cook",
    "description": "Keeps recipes",
    "knowledge": {
        "permissions": [*GRANTED, "changes.manage"],
        "predicates": [
            {"predicate": "pref.food.rated", "cardinality": "many", "description": "Rated dishes"}
        ],
    },
}


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    kit.page("private/notes/n.md", "pg_n", "A note")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(COOK), "private")
    for permission in GRANTED:
        extensions.grant("cook", permission)
    return vault


def files(vault: Vault) -> dict[str, bytes]:
    """Every file of the partition, hidden markers included, by relative path."""
    base = vault.root / "private"
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def claims(vault: Vault) -> dict[str, str]:
    """Each claim file's fact value and lifecycle."""
    out = {}
    for path in (vault.root / "private").rglob("claims/*.md"):
        data = frontmatter_of(path.read_bytes())
        out[str(data["fact"]["value"])] = str(data["lifecycle"])  # type: ignore[index]
    return out


@pytest.mark.parametrize("reverter", ["extension", "person"])
def test_reverting_a_mixed_run_gives_every_file_back(vault: Vault, reverter: str) -> None:
    earlier = open_session(vault, "cook", run_id="run_earlier")
    kept = docs.upsert(earlier, "keep", title="Kept", body="Stays.\n")
    gone = docs.upsert(earlier, "keep", title="Gone", body="Goes.\n")
    before = files(vault)

    run = open_session(vault, "cook", run_id="run_mixed")
    facts.put(run, predicate_hint="pref.food.like", value="soup")
    docs.upsert(run, "keep", title="New", body="Fresh.\n", key="new")
    docs.upsert(run, "keep", title="Kept", body="Changed.\n", ref=kept.ref)
    docs.delete(run, gone.ref)
    recipes = cols.create_collection(run, "Recipes")
    docs.upsert(run, recipes.ref, title="Stew", body="Slowly.\n")
    assert files(vault) != before

    who = (
        Changer.of(open_session(vault, "cook", run_id="run_undo"))
        if reverter == "extension"
        else person_changes(vault)
    )
    result = revert(who, run_id="run_mixed")
    assert [(i.op, i.status) for i in result.items] == [
        (docs.CREATE, "reverted"),
        (cols.CREATE_OP, "reverted"),
        (docs.DELETE, "reverted"),
        (docs.UPDATE, "reverted"),
        (docs.CREATE, "reverted"),
        (facts.PUT, "reverted"),
    ]
    after = files(vault)
    new = {path for path in after if path not in before}
    assert {path: after[path] for path in before} == before  # every earlier file, byte for byte
    assert all(path.startswith("claims/") for path in new)  # a put's undo withdraws its claim
    assert claims(vault) == {"soup": "withdrawn"}
    assert not (vault.root / "private/collections/recipes").exists()

    again = revert(who, run_id="run_mixed")
    assert again.reverted == 0
    assert {i.status for i in again.items} == {"skipped"}
    shown = {c.op: c.status for c in list_changes(person_changes(vault), run_id="run_mixed")}
    assert set(shown.values()) == {"reverted"}


@pytest.fixture
def contributed(vault: Vault, kit: VaultKit) -> dict[str, bytes]:
    """`cook` wrote a fact, a document in keep, a collection with a nested one, each with a
    document; the person then put a page and a picture into the collection. The files then."""
    s = open_session(vault, "cook")
    facts.put(s, predicate_hint="pref.food.like", value="soup")
    docs.upsert(s, "keep", title="Loose", body="In keep.\n")
    recipes = cols.create_collection(s, "Recipes")
    docs.upsert(s, recipes.ref, title="Stew", body="Slowly.\n", key="stew")
    inner = cols.create_collection(s, "Soups", parent=recipes.ref)
    docs.upsert(s, inner.ref, title="Broth", body="Simmer.\n")
    kit.page("private/collections/recipes/mine.md", "pg_mine", "My own recipe")
    kit.write("private/collections/recipes/photo.jpg", b"\xff\xd8 not really a picture")
    vault.reconcile()
    return files(vault)


def test_contributions_count_what_the_extension_wrote(vault: Vault, contributed: dict[str, bytes]) -> None:
    assert contributions(vault.store, vault.root, "cook").as_json() == {
        "facts": 1,
        "documents": 3,
        "collections": 2,
    }


def private_state(vault: Vault) -> dict[str, int]:
    conn = vault.store.reader()
    tables = ("extensions_v1", "extension_grants_v1", "extension_refs_v1", "extension_selected_v1")
    return {t: conn.execute(f"SELECT count(*) FROM {t} WHERE name='cook'").fetchone()[0] for t in tables}


def test_keep_leaves_the_knowledge_and_removes_the_private_state(
    vault: Vault, contributed: dict[str, bytes]
) -> None:
    cols.select_folder(vault.store, vault.root, "cook", "private", "notes")
    assert all(private_state(vault).values())
    before = files(vault)
    done = uninstall(vault.store, vault.root, vault.write, "cook")
    assert done.as_json()["mode"] == "keep"
    assert done.run_id is None
    assert files(vault) == before
    assert private_state(vault) == dict.fromkeys(private_state(vault), 0)
    with pytest.raises(UnknownExtension):
        Extensions(vault.store, vault.root).get("cook")
    assert "pref.food.rated" in (vault.root / "private/predicates.yaml").read_text()


def test_delete_is_one_run_of_the_person_that_a_revert_undoes(
    vault: Vault, contributed: dict[str, bytes]
) -> None:
    done = uninstall(vault.store, vault.root, vault.write, "cook", delete=True)
    assert done.run_id is not None
    assert done.as_json()["contributed"] == {"facts": 1, "documents": 3, "collections": 2}
    assert done.kept == ["private/collections/recipes/photo.jpg"]  # not a record: it stays
    left = files(vault)
    assert not any(p.endswith((".md", cols.MARKER)) and "collections/" in p for p in left)
    assert not any(p.startswith("keep/") for p in left)
    assert claims(vault) == {"soup": "active"}  # expired, not withdrawn
    assert facts.projection.current(vault.store.reader(), "private", "pg_me", "9999-01-01T00:00:00Z") == []
    changes = list_changes(person_changes(vault), run_id=done.run_id)
    assert {c.actor for c in changes} == {"user"}
    assert sorted(c.op for c in changes) == [cols.DELETE_OP, docs.DELETE, EXPIRE]
    assert private_state(vault) == dict.fromkeys(private_state(vault), 0)

    result = revert(person_changes(vault), run_id=done.run_id)
    assert result.reverted == 3
    assert files(vault) == contributed  # every file, markers too, byte for byte
    assert (
        len(facts.projection.current(vault.store.reader(), "private", "pg_me", "9999-01-01T00:00:00Z")) == 1
    )
    with pytest.raises(UnknownExtension):  # the private state is not given back
        Extensions(vault.store, vault.root).get("cook")
    assert revert(person_changes(vault), run_id=done.run_id).reverted == 0


def test_a_deleted_collection_is_found_where_a_person_moved_it(
    vault: Vault, contributed: dict[str, bytes]
) -> None:
    (vault.root / "private/moved").mkdir()
    Path(vault.root / "private/collections/recipes").rename(vault.root / "private/moved/recipes")
    vault.reconcile()
    moved = files(vault)
    done = uninstall(vault.store, vault.root, vault.write, "cook", delete=True)
    assert not (vault.root / "private/moved/recipes/stew.md").exists()
    revert(person_changes(vault), run_id=done.run_id)
    assert files(vault) == moved
