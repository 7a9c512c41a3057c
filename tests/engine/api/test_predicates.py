"""The predicate vocabulary and `predicateHint` resolution (issue 16 §1, Predicates; spec:
facts-entities-collections-api, "Core predicates" and "Writing facts"): full predicate, alias,
description, then `x.<hint>`; and the permission is checked against the resolved predicate."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.engine.api.access import authorize_fact_write, readable_predicates, subject_scope
from knowledge_desktop.engine.api.permissions import Permission, covers
from knowledge_desktop.engine.api.predicates import (
    CORE_PREDICATES,
    HintError,
    PredicateDef,
    Vocabulary,
    cardinality_of,
    resolve_hint,
)
from knowledge_desktop.engine.api.vocabulary_file import (
    VocabularyError,
    declare,
    load_declared,
    load_vocabulary,
    vocabulary_path,
)
from knowledge_desktop.engine.errors import ApiError, PermissionRefused

RATED = PredicateDef(
    "pref.food.rated",
    "many",
    "Dishes you rated highly. Example: braised pork",
    aliases=("top-rated dishes",),
)


def test_the_core_vocabulary_is_the_specs_table() -> None:
    names = {d.name: d.cardinality for d in CORE_PREDICATES}
    assert len(names) == 30
    assert names["identity.name"] == "one"
    assert names["identity.nickname"] == "many"
    assert names["identity.birthday"] == "one"
    assert names["identity.language"] == "many"
    assert names["contact.phone"] == "many"
    assert names["location.timezone"] == "one"
    assert names["relation.spouse"] == "one"
    assert names["relation.member_of"] == "many"
    assert names["work.title"] == "one"
    assert names["work.project"] == "many"
    assert names["pref.food.cuisine"] == "many"
    assert names["pref.communication.language"] == "one"
    assert names["schedule.event"] == "many"
    assert names["health.allergy"] == "many"
    assert names["finance.currency"] == "one"
    assert all(d.core and d.label and d.description for d in CORE_PREDICATES)


def test_declared_predicates_join_but_never_replace_core_ones() -> None:
    fake_core = PredicateDef("location.home.city", "many", "hijack")
    vocab = Vocabulary([RATED, fake_core])
    assert vocab["pref.food.rated"] == RATED
    assert vocab["location.home.city"].cardinality == "one"
    assert vocab.declared() == [RATED]
    assert cardinality_of("x.anything", vocab) == "many"
    assert cardinality_of("location.home.city", vocab) == "one"


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("pref.food.rated", "pref.food.rated"),  # full predicate
        ("location.home.city", "location.home.city"),
        ("top-rated dishes", "pref.food.rated"),  # alias
        ("  Top-Rated   Dishes ", "pref.food.rated"),  # alias, normalised
        ("Dishes you rated highly", "pref.food.rated"),  # first sentence of the description
        ("dishes you rated highly. example: braised pork", "pref.food.rated"),  # whole description
        ("City of residence", "location.home.city"),  # a core predicate's label
        ("favourite colour", "x.favourite_colour"),  # nothing matches
        ("Café au lait!", "x.cafe_au_lait"),
        ("pref.food.unknown", "x.pref_food_unknown"),  # well formed, but not in the vocabulary
        ("x.hobbies", "x.hobbies"),  # already an x predicate
    ],
)
def test_hint_resolution(hint: str, expected: str) -> None:
    assert resolve_hint(hint, Vocabulary([RATED])) == expected


def test_the_order_is_full_predicate_then_alias_then_description() -> None:
    # A predicate whose alias is another predicate's name: the full name wins.
    tricky = PredicateDef("x.tricky", "many", "top-rated dishes", aliases=("pref.food.rated", "cooking"))
    by_description = PredicateDef("x.cooking", "many", "Cooking")
    vocab = Vocabulary([RATED, tricky, by_description])
    assert resolve_hint("pref.food.rated", vocab) == "pref.food.rated"
    # "top-rated dishes" is RATED's alias and tricky's description: the alias wins.
    assert resolve_hint("top-rated dishes", vocab) == "pref.food.rated"
    # "cooking" is tricky's alias and by_description's description: the alias wins.
    assert resolve_hint("cooking", vocab) == "x.tricky"


def test_ambiguous_hints_and_empty_hints_are_errors() -> None:
    a = PredicateDef("x.a", "many", "Same words")
    b = PredicateDef("x.b", "many", "Same words")
    with pytest.raises(HintError, match=r"several predicates: x\.a, x\.b"):
        resolve_hint("same words", Vocabulary([a, b]))
    with pytest.raises(HintError, match="non-empty"):
        resolve_hint("   ", Vocabulary())
    with pytest.raises(HintError, match="no letters or digits"):
        resolve_hint("!!!", Vocabulary())


class Grants:
    """A stand-in for `grants.Extensions`: records what was checked."""

    def __init__(self, *granted: str) -> None:
        self.granted = granted
        self.checked: list[str] = []

    def allowed(self, name: str, needed: str | Permission) -> bool:
        return any(covers(g, needed) for g in self.granted)

    def check(self, name: str, needed: str | Permission) -> None:
        self.checked.append(str(needed))
        if not self.allowed(name, needed):
            raise PermissionRefused(f"extension {name} lacks knowledge permission {needed}")


def test_the_permission_is_checked_after_resolution() -> None:
    vocab = Vocabulary([RATED])
    grants = Grants("facts.write:self:pref.food.*")
    # the alias resolves into the granted prefix: allowed, though the hint itself names nothing
    assert authorize_fact_write(grants, "recipes", "self", "top-rated dishes", vocab) == "pref.food.rated"
    assert grants.checked == ["facts.write:self:pref.food.rated"]
    # a label that resolves outside the grant is refused with the resolved predicate
    with pytest.raises(
        PermissionRefused, match=r"lacks knowledge permission facts\.write:self:location\.home\.city"
    ):
        authorize_fact_write(grants, "recipes", "self", "City of residence", vocab)
    # nothing matches: x.<hint>, which needs its own permission
    with pytest.raises(PermissionRefused, match=r"facts\.write:self:x\.food_i_rated"):
        authorize_fact_write(grants, "recipes", "self", "food I rated", vocab)
    # the subject's kind is part of the permission
    with pytest.raises(PermissionRefused, match=r"facts\.write:person:pref\.food\.rated"):
        authorize_fact_write(grants, "recipes", "person", "pref.food.rated", vocab)


def test_query_methods_leave_out_what_is_not_granted() -> None:
    grants = Grants("facts.read:self:location.home.*")
    wanted = ["location.home.city", "location.work.city", "location.home.address"]
    assert readable_predicates(grants, "weather", "self", wanted) == [
        "location.home.city",
        "location.home.address",
    ]
    assert readable_predicates(grants, "weather", "person", wanted) == []
    with pytest.raises(ApiError, match="entity kind"):
        subject_scope("People")


def test_the_vocabulary_file_declares_merges_and_keeps(tmp_path: Path) -> None:
    assert load_declared(tmp_path) == []
    assert declare(tmp_path, [RATED], "recipes") == ["pref.food.rated"]
    more = PredicateDef("pref.food.rated", "many", "other words", aliases=("rated dishes",))
    assert declare(tmp_path, [more], "cookbook") == []
    (found,) = load_declared(tmp_path)
    assert found.description == RATED.description  # the first declaration's words stay
    assert found.aliases == ("top-rated dishes", "rated dishes")
    assert found.declared_by == ("recipes", "cookbook")
    assert resolve_hint("rated dishes", load_vocabulary(tmp_path)) == "pref.food.rated"
    with pytest.raises(VocabularyError, match="already declared with cardinality many"):
        declare(tmp_path, [PredicateDef("pref.food.rated", "one", "d")], "other")
    with pytest.raises(VocabularyError, match="core predicate"):
        declare(tmp_path, [PredicateDef("location.home.city", "one", "d")], "other")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("format: knowledge-predicates-v1\npredicates: [", "not readable as YAML"),
        ("just text", "not a knowledge-predicates-v1 file"),
        ("format: other\npredicates: []", "not a knowledge-predicates-v1 file"),
        ("format: knowledge-predicates-v1\npredicates: [3]", "each predicate is a mapping"),
        ("format: knowledge-predicates-v1\npredicates: [{predicate: food}]", "at least two levels"),
        (
            "format: knowledge-predicates-v1\npredicates: [{predicate: x.a, cardinality: some}]",
            "cardinality of x.a",
        ),
    ],
)
def test_a_damaged_vocabulary_file_is_a_clear_error_with_its_path(
    tmp_path: Path, text: str, why: str
) -> None:
    vocabulary_path(tmp_path).write_text(text, encoding="utf-8")
    with pytest.raises(VocabularyError) as caught:
        load_vocabulary(tmp_path)
    assert why in str(caught.value)
    assert str(vocabulary_path(tmp_path)) in str(caught.value)
