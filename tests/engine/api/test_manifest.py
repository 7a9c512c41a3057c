"""Extension manifests (issue 16 §2; spec: facts-entities-collections-api, "Requesting in the
manifest"): the shipped recipe example is valid, other keys are kept, and a bad manifest lists
every one of its errors, not just the first."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.api.manifest import load_manifest, manifest_errors, validate_manifest
from knowledge_desktop.engine.api.permissions import Permission
from knowledge_desktop.engine.errors import ManifestInvalid

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "recipe-gem" / "manifest.json"

GOOD: dict[str, Any] = {
    "name": "recipes",
    "description": "Save recipes the user has rated",
    "kind": "tool",
    "entry": "tools/rate.py",
    "knowledge": {
        "permissions": ["facts.read:self:pref.food.*", "facts.write:self:pref.food.*", "collections.create"],
        "predicates": [
            {
                "predicate": "pref.food.rated",
                "cardinality": "many",
                "description": "Dishes you rated highly. Example: braised pork",
                "aliases": ["top-rated dishes"],
            }
        ],
        "reason": "Remember the dishes you like",
    },
}


def errors_of(data: object) -> list[str]:
    manifest, errors = manifest_errors(data)
    assert (manifest is None) == bool(errors)
    return errors


def test_the_shipped_recipe_manifest_is_valid() -> None:
    manifest = load_manifest(EXAMPLE)
    assert manifest.name == "recipes"
    assert Permission("facts", "write", "self", "pref.food.*") in manifest.permissions
    assert [d.name for d in manifest.predicates] == ["pref.food.rated"]
    assert manifest.raw["kind"] == "tool"  # kept, ignored


def test_a_good_manifest_keeps_other_keys() -> None:
    manifest = validate_manifest(GOOD)
    assert manifest.raw["entry"] == "tools/rate.py"
    assert manifest.reason == "Remember the dishes you like"
    assert manifest.predicates[0].aliases == ("top-rated dishes",)
    assert manifest.predicates[0].cardinality == "many"


def test_knowledge_and_reason_may_be_left_out() -> None:
    manifest = validate_manifest({"name": "weather", "description": "Weather where you live"})
    assert manifest.permissions == ()
    assert manifest.reason is None


def test_every_error_is_listed() -> None:
    bad = {
        "name": "Recipes!",
        "description": "x" * 201,
        "knowledge": {
            "permissions": [
                "facts.read:self:location.*",
                "facts.write:self:pref.food.*",
                "collections.read:recipes",
                "collections.create",
                "collections.create",
                7,
            ],
            "predicates": [
                {
                    "predicate": "pref.food.rated",
                    "cardinality": "several",
                    "description": "",
                    "aliases": [""],
                },
                {"predicate": "location.home.city", "cardinality": "one", "description": "City"},
                {"predicate": "food", "cardinality": "many", "description": "d" * 201},
                {"cardinality": "many", "description": "no name"},
                {"predicate": "pref.food.*", "description": "a star"},
                "not an object",
            ],
            "reason": 12,
        },
    }
    errors = errors_of(bad)
    expected = [
        "name: 2-64 lowercase letters",
        "description: at most 200 characters (it has 201)",
        "knowledge.permissions[0]: 'facts.read:self:location.*': the predicate prefix must have",
        "knowledge.permissions[2]: 'collections.read:recipes': a collection target",
        "knowledge.permissions[4]: collections.create is listed twice",
        "knowledge.permissions[5]: a permission is a string",
        "knowledge.permissions: facts.write:self:pref.food.* must be covered by a facts.read",
        "knowledge.predicates[0].cardinality: one or many",
        "knowledge.predicates[0].description: must not be empty",
        "knowledge.predicates[0].aliases[0]: must not be empty",
        "knowledge.predicates[1].predicate: location.home.city is a core predicate",
        "knowledge.predicates[2].predicate: a predicate has at least two levels",
        "knowledge.predicates[2].description: at most 200 characters",
        "knowledge.predicates[3].predicate: required",
        "knowledge.predicates[4].predicate: a declared predicate is a full name",
        "knowledge.predicates[4].cardinality: one or many (required)",
        "knowledge.predicates[5]: must be an object",
        "knowledge.reason: must be text",
    ]
    for want in expected:
        assert any(e.startswith(want) for e in errors), (want, errors)
    assert len(errors) == len(expected), errors


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda m: m.pop("name"), "name: required"),
        (lambda m: m.update(name="a"), "name: 2-64"),
        (lambda m: m.update(name="re--cipes"), "name: 2-64"),
        (lambda m: m.update(name="recipes-"), "name: 2-64"),
        (lambda m: m.update(name="r" * 65), "name: at most 64"),
        (lambda m: m.pop("description"), "description: required"),
        (lambda m: m.update(description="   "), "description: must not be empty"),
        (lambda m: m.update(knowledge=[]), "knowledge: must be an object"),
        (lambda m: m["knowledge"].update(permissions="facts.read:self:pref.food.*"), "must be a list"),
        (lambda m: m["knowledge"].update(predicates={}), "knowledge.predicates: must be a list"),
        (lambda m: m["knowledge"]["predicates"][0].pop("description"), "description: required"),
        (lambda m: m["knowledge"]["predicates"][0].update(aliases="x"), "aliases: must be a list"),
        (lambda m: m["knowledge"]["predicates"][0].update(aliases=["a", "a"]), "listed twice"),
        (lambda m: m["knowledge"]["predicates"][0].update(aliases=["a\nb"]), "one line"),
        (
            lambda m: m["knowledge"]["predicates"].append(dict(m["knowledge"]["predicates"][0])),
            "declared twice",
        ),
        (lambda m: m["knowledge"].update(reason=""), "knowledge.reason: must not be empty"),
        (lambda m: m["knowledge"].update(reason="r" * 1001), "knowledge.reason: at most 1000"),
        (
            lambda m: m["knowledge"].update(
                permissions=["facts.read:self:pref.food.like", "facts.write:self:pref.food.*"]
            ),
            "must be covered by a facts.read",
        ),
        (
            lambda m: m["knowledge"].update(
                permissions=["facts.read:person:pref.food.*", "facts.write:self:pref.food.*"]
            ),
            "must be covered by a facts.read",
        ),
    ],
)
def test_each_rule(edit: Any, error: str) -> None:
    data = copy.deepcopy(GOOD)
    edit(data)
    errors = errors_of(data)
    assert any(error in e for e in errors), errors


def test_a_write_covered_by_a_wider_read_is_fine() -> None:
    data = copy.deepcopy(GOOD)
    data["knowledge"]["permissions"] = ["facts.read:self:pref.food.*", "facts.write:self:pref.food.rated"]
    assert errors_of(data) == []


def test_not_an_object() -> None:
    assert errors_of([1, 2]) == ["the manifest must be a JSON object"]


def test_load_names_the_file_and_raises_all_errors(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"name": "X", "description": ""}), encoding="utf-8")
    with pytest.raises(ManifestInvalid) as caught:
        load_manifest(path)
    assert len(caught.value.errors) == 2
    assert all(e.startswith(str(path)) for e in caught.value.errors)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ManifestInvalid, match="not JSON"):
        load_manifest(path)
    with pytest.raises(ManifestInvalid, match="cannot be read"):
        load_manifest(tmp_path / "missing.json")
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(ManifestInvalid, match="nested too deeply"):
        load_manifest(path)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ManifestInvalid, match="not JSON"):
        load_manifest(path)
