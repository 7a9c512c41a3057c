"""The person's side of facts (issue 16 §4): a value typed in the window is said by the user and
overrides what an extension said; a conflict is accepted (the proposed value becomes the
person's) or rejected (the person's stays), and either way it leaves the open list."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from knowledge_desktop.engine.api import conflicts, facts, user_facts
from knowledge_desktop.engine.api.changes import Changer, list_changes, revert
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session, person_changes

Grant = Callable[..., None]
CITY = ("facts.read:self:location.home.*", "facts.write:self:location.home.*")


def self_city(vault: Vault) -> list[tuple[object, str | None]]:
    return [(r.value, r.origin) for r in user_facts.current(vault.store, "private", "pg_me", "location.home")]


def _conflict(vault: Vault, grant: Grant) -> int:
    """The person says Utrecht; the agent proposes Delft: one open conflict."""
    grant(*CITY)
    user_facts.put(person_changes(vault), vault.root, "private", "pg_me", "location.home.city", "Utrecht")
    agent = open_session(vault, "agent", run_id="run_agent")
    assert facts.put(agent, predicate_hint="location.home.city", value="Delft").status == "conflict"
    [open_one] = conflicts.open_conflicts(vault.store)
    return open_one.seq


def test_a_value_the_person_types_is_theirs_and_supersedes_an_extensions(vault: Vault, grant: Grant) -> None:
    grant(*CITY)
    agent = open_session(vault, "agent")
    facts.put(agent, predicate_hint="location.home.city", value="Delft")
    assert self_city(vault) == [("Delft", "extension:agent")]
    person = person_changes(vault, run_id="run_me")
    done = user_facts.put(person, vault.root, "private", "pg_me", "location.home.city", "Utrecht")
    assert done.status == "applied"
    assert len(done.superseded) == 1
    assert self_city(vault) == [("Utrecht", "user")]
    again = user_facts.put(person, vault.root, "private", "pg_me", "location.home.city", "Utrecht")
    assert again.status == "duplicate"
    [change] = list_changes(person, run_id="run_me")
    assert (change.actor, change.op) == ("user", "fact-put")
    revert(person, run_id="run_me")
    assert self_city(vault) == [("Delft", "extension:agent")]


def test_the_person_can_take_a_value_back(vault: Vault, grant: Grant) -> None:
    person = person_changes(vault)
    done = user_facts.put(person, vault.root, "private", "pg_me", "pref.food.like", "stew")
    assert user_facts.retract(person, done.claim_id) == "retracted"
    assert user_facts.current(vault.store, "private", "pg_me") == []
    assert user_facts.retract(person, done.claim_id) == "already_retracted"


def test_an_extension_cannot_write_as_the_person(vault: Vault, grant: Grant) -> None:
    agent = Changer.of(open_session(vault, "agent"))
    with pytest.raises(ApiError, match="only the person"):
        user_facts.put(agent, vault.root, "private", "pg_me", "location.home.city", "Delft")


def test_accept_makes_the_proposed_value_the_persons_and_closes_the_conflict(
    vault: Vault, grant: Grant
) -> None:
    seq = _conflict(vault, grant)
    [shown] = conflicts.open_conflicts(vault.store)
    assert (shown.predicate, shown.proposed, shown.current, shown.subject) == (
        "location.home.city",
        "Delft",
        "Utrecht",
        "Grace",
    )
    assert (shown.actor, shown.run_id) == ("extension:agent", "run_agent")
    result = conflicts.accept(person_changes(vault), vault.root, seq)
    assert result.status == "applied"
    assert self_city(vault) == [("Delft", "user")]
    assert conflicts.open_conflicts(vault.store) == []
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["operation"], newest["actor"]) == ("fact-put", "user")
    with pytest.raises(ApiError, match="already decided"):
        conflicts.accept(person_changes(vault), vault.root, seq)


def test_reject_keeps_the_persons_value_and_closes_the_conflict(vault: Vault, grant: Grant) -> None:
    seq = _conflict(vault, grant)
    conflicts.reject(person_changes(vault), seq)
    assert self_city(vault) == [("Utrecht", "user")]
    assert conflicts.open_conflicts(vault.store) == []
    with pytest.raises(ApiError, match="already decided"):
        conflicts.reject(person_changes(vault), seq)


def test_only_a_fact_conflict_can_be_decided(vault: Vault, grant: Grant) -> None:
    grant(*CITY)
    facts.put(open_session(vault, "agent"), predicate_hint="location.home.city", value="Delft")
    put_seq = int(vault.journal(limit=1)["items"][0]["journalId"])
    with pytest.raises(ApiError, match="no fact conflict"):
        conflicts.reject(person_changes(vault), put_seq)


def test_settings_lists_the_self_facts_an_extensions_permissions_cover(vault: Vault, grant: Grant) -> None:
    person = person_changes(vault)
    user_facts.put(person, vault.root, "private", "pg_me", "pref.food.like", "stew")
    user_facts.put(person, vault.root, "private", "pg_me", "location.home.city", "Utrecht")
    asked = ["facts.read:self:pref.food.*", "facts.write:self:pref.food.like", "collections.create"]
    found = user_facts.self_facts(vault.store, vault.root, "private", "pg_me", "agent", asked)
    assert [f.predicate for f in found] == [
        "pref.food.like",
        "pref.food.dislike",
        "pref.food.diet",
        "pref.food.cuisine",
        "pref.food.rated",
    ]
    like, rated = found[0], found[-1]
    assert (like.label, like.core, like.writes, [v[1:] for v in like.values]) == (
        "Foods liked",
        True,
        True,
        [("stew", "user")],
    )
    assert (rated.label, rated.core, rated.added_by_this, rated.writes) == (
        "Rated dishes",
        False,
        True,
        False,
    )
    assert (
        user_facts.self_facts(vault.store, vault.root, "private", "pg_me", "agent", ["collections.create"])
        == []
    )
