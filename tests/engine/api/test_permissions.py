"""Permission strings (spec: facts-entities-collections-api, "Permission strings"): every form the
spec allows parses to one canonical value, every other form is refused with the rule it broke,
`covers` matches scopes as the spec defines, and each permission has a sentence for a person."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.api.permissions import (
    Permission,
    PermissionSyntaxError,
    covers,
    parse_permission,
    predicate_problem,
)
from knowledge_desktop.engine.api.wording import sentence
from knowledge_desktop.engine.errors import KnownError

VALID = [
    ("facts.read:self:location.home.*", Permission("facts", "read", "self", "location.home.*")),
    ("facts.read:self:location.home.city", Permission("facts", "read", "self", "location.home.city")),
    ("facts.write:self:pref.food.*", Permission("facts", "write", "self", "pref.food.*")),
    ("facts.read:self:identity.name", Permission("facts", "read", "self", "identity.name")),
    ("facts.read:person:relation.colleague", Permission("facts", "read", "person", "relation.colleague")),
    ("facts.write:org:work.company", Permission("facts", "write", "org", "work.company")),
    ("facts.read:self:x.top_rated.*", Permission("facts", "read", "self", "x.top_rated.*")),
    ("facts.read:self:pref.food.like.*", Permission("facts", "read", "self", "pref.food.like.*")),
    ("entities.resolve:person", Permission("entities", "resolve", "person")),
    ("entities.read:org", Permission("entities", "read", "org")),
    ("entities.write:place", Permission("entities", "write", "place")),
    ("entities.read:research-group", Permission("entities", "read", "research-group")),
    ("collections.read:diary", Permission("collections", "read", "diary")),
    ("collections.write:keep", Permission("collections", "write", "keep")),
    ("collections.read:user-selected", Permission("collections", "read", "user-selected")),
    ("collections.create", Permission("collections", "create")),
    ("collections.bulk", Permission("collections", "bulk")),
    ("changes.manage", Permission("changes", "manage")),
    ("origin.override", Permission("origin", "override")),
]

INVALID = [
    ("", "without spaces"),
    (" facts.read:self:location.home.*", "without spaces"),
    ("facts.read:self:location.home .*", "without spaces"),
    ("facts.read", "needs a scope"),
    ("facts.read:self", "facts.read:<subject>:<prefix>"),
    ("facts.read:self:", "facts.read:<subject>:<prefix>"),
    ("facts.read:self:*", "at least two levels"),
    ("facts.read:self:location.*", "at least two levels"),
    ("facts.read:self:location", "at least two levels"),
    ("facts.write:self:pref.*", "at least two levels"),
    ("facts.read:self:location.*.city", "'*' may only end"),
    ("facts.read:self:location.home*", "'*' may only end"),
    ("facts.read:self:weather.home.*", "first level"),
    ("facts.read:self:Location.home.*", "first level"),
    ("facts.read:self:location.Home.*", "lowercase"),
    ("facts.read:self:location..city", "no empty level"),
    ("facts.read:Self:location.home.*", "subject"),
    ("facts.read:*:location.home.*", "subject"),
    ("facts.delete:self:location.home.*", "unknown action"),
    ("fact.read:self:location.home.*", "unknown data type"),
    ("facts:self:location.home.*", "unknown data type"),
    ("entities.read", "needs a scope"),
    ("entities.read:self", "not an entity kind"),
    ("entities.read:*", "entity kind"),
    ("entities.read:Person", "entity kind"),
    ("entities.read:person:extra", "takes one scope"),
    ("entities.delete:person", "unknown action"),
    ("entities.merge:person", "unknown action"),
    ("collections.read", "needs a scope"),
    ("collections.read:recipes", "collection target"),
    ("collections.write:*", "collection target"),
    ("collections.read:diary:2026", "takes one scope"),
    ("collections.create:keep", "takes no scope"),
    ("collections.bulk:keep", "takes no scope"),
    ("changes.manage:all", "takes no scope"),
    ("changes.view", "unknown action"),
    ("origin.override:user", "takes no scope"),
    ("email.read", "unknown data type"),
    ("facts.read:self:location.home." + "a" * 300, "characters"),
]


@pytest.mark.parametrize(("text", "expected"), VALID)
def test_every_valid_form_parses_to_its_canonical_value(text: str, expected: Permission) -> None:
    parsed = parse_permission(text)
    assert parsed == expected
    assert str(parsed) == text


@pytest.mark.parametrize(("text", "why"), INVALID)
def test_every_invalid_form_is_refused_with_its_rule(text: str, why: str) -> None:
    with pytest.raises(PermissionSyntaxError) as caught:
        parse_permission(text)
    assert why in str(caught.value)
    assert isinstance(caught.value, KnownError)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(PermissionSyntaxError, match="a permission is a string"):
        parse_permission(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("location.home.city", True),
        ("x.anything", True),
        ("pref.food.rated", True),
        ("location", False),
        ("nothing.home", False),
        ("pref.food.*", False),
        ("pref..food", False),
        ("pref.Food", False),
    ],
)
def test_predicate_names(name: str, ok: bool) -> None:
    assert (predicate_problem(name) is None) is ok


COVERS = [
    ("facts.read:self:location.home.*", "facts.read:self:location.home.city", True),
    ("facts.read:self:location.home.*", "facts.read:self:location.home", True),
    ("facts.read:self:location.home.*", "facts.read:self:location.home.*", True),
    ("facts.read:self:location.home.*", "facts.read:self:location.home.city.*", True),
    ("facts.read:self:location.home.*", "facts.read:self:location.homeland", False),
    ("facts.read:self:location.home.*", "facts.read:self:location.work.city", False),
    ("facts.read:self:location.home.city", "facts.read:self:location.home.city", True),
    ("facts.read:self:location.home.city", "facts.read:self:location.home.address", False),
    ("facts.read:self:location.home.city", "facts.read:self:location.home.*", False),
    ("facts.read:self:location.home.*", "facts.write:self:location.home.city", False),
    ("facts.write:self:location.home.*", "facts.read:self:location.home.city", False),
    ("facts.read:self:relation.colleague", "facts.read:person:relation.colleague", False),
    ("facts.read:person:relation.spouse.*", "facts.read:self:relation.spouse", False),
    ("facts.read:person:relation.spouse.*", "facts.read:person:relation.spouse", True),
    ("entities.write:person", "entities.resolve:person", True),
    ("entities.write:person", "entities.read:person", False),
    ("entities.read:person", "entities.resolve:person", False),
    ("entities.write:person", "entities.resolve:org", False),
    ("entities.resolve:person", "entities.write:person", False),
    ("collections.read:diary", "collections.read:diary", True),
    ("collections.read:diary", "collections.read:keep", False),
    ("collections.write:keep", "collections.read:keep", False),
    ("collections.create", "collections.create", True),
    ("collections.create", "collections.bulk", False),
    ("changes.manage", "changes.manage", True),
    ("origin.override", "changes.manage", False),
]


@pytest.mark.parametrize(("granted", "needed", "expected"), COVERS)
def test_covers(granted: str, needed: str, expected: bool) -> None:
    assert covers(granted, needed) is expected
    assert covers(parse_permission(granted), parse_permission(needed)) is expected


@pytest.mark.parametrize(
    ("permission", "words"),
    [
        ("facts.read:self:location.home.*", "Read where you live"),
        ("facts.write:self:pref.food.*", "Record your food preferences"),
        ("facts.read:self:location.home.city", "Read your city of residence"),
        ("facts.read:self:x.hobbies.*", "Read facts about you under “x.hobbies”"),
        ("facts.read:person:relation.friend.*", "Read facts about people under “relation.friend”"),
        ("entities.resolve:person", "Look up one of your people"),
        ("entities.read:org", "View your list of organizations"),
        ("entities.write:person", "Add people"),
        ("collections.read:diary", "Read your diary"),
        ("collections.write:keep", "Write in your keepsakes"),
        ("collections.read:user-selected", "Read the collections you choose"),
        ("collections.create", "Create collections of its own"),
        ("collections.bulk", "200 million characters"),
        ("changes.manage", "undo what any app wrote"),
        ("origin.override", "on behalf of other apps"),
    ],
)
def test_each_permission_has_a_sentence_for_a_person(permission: str, words: str) -> None:
    assert words in sentence(permission)


def test_sentences_differ_between_permissions() -> None:
    texts = [sentence(text) for text, _ in VALID]
    assert len(set(texts)) == len(texts)
