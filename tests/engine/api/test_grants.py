"""Installed extensions and their grants (issue 16 §2): durable in `state.sqlite`, every
permission off at install, each switch counting from the next call, refusals worded as the spec
says, and the per-extension ref key kept."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.api.vocabulary_file import load_declared
from knowledge_desktop.engine.errors import ApiError, ManifestInvalid, PermissionRefused, UnknownExtension
from knowledge_desktop.engine.store import schema
from knowledge_desktop.engine.store.db import Store

RECIPES: dict[str, Any] = {
    "name": "recipes",
    "description": "Save recipes the user has rated",
    "kind": "tool",
    "knowledge": {
        "permissions": ["facts.read:self:pref.food.*", "facts.write:self:pref.food.*", "collections.create"],
        "predicates": [
            {"predicate": "pref.food.rated", "cardinality": "many", "description": "Rated dishes"}
        ],
        "reason": "Remember the dishes you like",
    },
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "vault" / "private").mkdir(parents=True)
    (tmp_path / "vault" / "work").mkdir()
    (tmp_path / "vault" / ".knowledge").mkdir()
    return tmp_path / "vault"


@pytest.fixture
def store(root: Path) -> Iterator[Store]:
    s = Store(root / ".knowledge" / "state.sqlite")
    yield s
    s.close()


def test_the_migration_adds_durable_tables(store: Store) -> None:
    names = {r[0] for r in store.reader().execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table in ("extensions_v1", "extension_grants_v1", "extension_quota_v1", "extension_refs_v1"):
        assert table in names
        assert table in schema.DURABLE_TABLES
    assert store.identity("durable_schema") == str(len(schema.DURABLE_MIGRATIONS))


def test_a_database_from_migration_4_gets_the_refs_table(root: Path) -> None:
    path = root / ".knowledge" / "state.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE extension_refs_v1")
        conn.execute("DROP INDEX journal_run")  # and what came after migration 5
        conn.execute("ALTER TABLE journal DROP COLUMN run_id")
        conn.execute("UPDATE store_identity SET value='4' WHERE key='durable_schema'")
    conn.close()
    again = Store(path)
    try:
        names = {r[0] for r in again.reader().execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "extension_refs_v1" in names
        assert again.identity("durable_schema") == str(len(schema.DURABLE_MIGRATIONS))
    finally:
        again.close()


def test_install_turns_every_permission_off_and_declares_predicates(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    installed = ext.install(validate_manifest(RECIPES), "private")
    assert installed.granted == ()
    shown = installed.as_json()
    assert [p["granted"] for p in shown["permissions"]] == [False, False, False]
    assert shown["partition"] == "private"
    assert shown["reason"] == "Remember the dishes you like"
    assert [d.name for d in load_declared(root / "private")] == ["pref.food.rated"]
    assert load_declared(root / "work") == []
    assert not ext.allowed("recipes", "facts.read:self:pref.food.like")
    assert len(ext.key("recipes")) == 32


def test_grants_survive_a_reopen(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    assert ext.grant("recipes", "facts.read:self:pref.food.*") is True
    assert ext.grant("recipes", "facts.read:self:pref.food.*") is False
    key = ext.key("recipes")
    store.close()
    again = Store(root / ".knowledge" / "state.sqlite")
    try:
        reopened = Extensions(again, root)
        assert [str(p) for p in reopened.granted("recipes")] == ["facts.read:self:pref.food.*"]
        assert reopened.key("recipes") == key
        assert [e.name for e in reopened.list()] == ["recipes"]
    finally:
        again.close()


def test_a_grant_counts_from_the_next_call_even_from_another_connection(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    needed = "facts.write:self:pref.food.rated"
    with pytest.raises(PermissionRefused) as caught:
        ext.check("recipes", needed)
    assert (
        str(caught.value) == "extension recipes lacks knowledge permission facts.write:self:pref.food.rated"
    )
    ext.grant("recipes", "facts.write:self:pref.food.*")
    ext.check("recipes", needed)
    # another process (the window) turns it off: the very next check sees it
    other = sqlite3.connect(root / ".knowledge" / "state.sqlite")
    with other:
        other.execute("DELETE FROM extension_grants_v1 WHERE name='recipes'")
    other.close()
    with pytest.raises(
        PermissionRefused, match=r"lacks knowledge permission facts\.write:self:pref\.food\.rated"
    ):
        ext.check("recipes", needed)
    assert ext.allowed("recipes", needed) is False


def test_revoke(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    ext.grant("recipes", "collections.create")
    assert ext.allowed("recipes", "collections.create")
    assert ext.revoke("recipes", "collections.create") is True
    assert ext.revoke("recipes", "collections.create") is False
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission collections\.create"):
        ext.check("recipes", "collections.create")


def test_only_requested_permissions_can_be_granted(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    with pytest.raises(ApiError, match="not requested by the manifest of extension recipes"):
        ext.grant("recipes", "changes.manage")
    with pytest.raises(ApiError, match="not requested"):
        ext.grant("recipes", "facts.read:self:pref.food.like")  # narrower is still not a switch
    with pytest.raises(ApiError, match="at least two levels"):
        ext.grant("recipes", "facts.read:self:*")
    with pytest.raises(UnknownExtension, match="no extension named 'nobody'"):
        ext.grant("nobody", "collections.create")
    with pytest.raises(UnknownExtension):
        ext.check("nobody", "collections.create")


def test_install_errors(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    manifest = validate_manifest(RECIPES)
    with pytest.raises(ApiError, match="no partition named 'elsewhere'"):
        ext.install(manifest, "elsewhere")
    with pytest.raises(ApiError, match="not a partition name"):
        ext.install(manifest, "../private")
    ext.install(manifest, "private")
    with pytest.raises(ApiError, match="already installed"):
        ext.install(manifest, "work")
    clash = copy.deepcopy(RECIPES)
    clash["name"] = "cookbook"
    clash["knowledge"]["predicates"][0]["cardinality"] = "one"
    with pytest.raises(ManifestInvalid, match="already declared with cardinality many"):
        ext.install(validate_manifest(clash), "private")
    assert [e.name for e in ext.list()] == ["recipes"]
    # the same declaration in another partition is its own vocabulary
    ext.install(validate_manifest(clash), "work")
    assert load_declared(root / "work")[0].cardinality == "one"


def test_keys_differ_per_extension(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    other = copy.deepcopy(RECIPES)
    other["name"] = "weather"
    other["knowledge"]["predicates"] = []
    ext.install(validate_manifest(other), "private")
    assert ext.key("recipes") != ext.key("weather")
    with pytest.raises(UnknownExtension):
        ext.key("nobody")


def test_a_damaged_stored_manifest_is_a_clear_error(store: Store, root: Path) -> None:
    ext = Extensions(store, root)
    ext.install(validate_manifest(RECIPES), "private")
    with store.write() as w:
        w.execute("UPDATE extensions_v1 SET manifest=?", (json.dumps({"name": 3}),))
    with pytest.raises(ApiError, match="stored manifest is damaged"):
        ext.get("recipes")
