"""Facts for extensions (issue 16 §1): a put is a claim with a `fact:` mapping, resolved to a
predicate before its permission is checked; cardinality one supersedes through the write path
unless the user said the current value; lookup leaves out what no grant covers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from knowledge_desktop.engine.api import entities, facts, profile
from knowledge_desktop.engine.api.quotas import DAILY_WRITES
from knowledge_desktop.engine.errors import ApiError, PermissionRefused, QuotaExceeded, WriteTooLarge
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from tests.vaultkit import frontmatter_of

Grant = Callable[..., None]
CITY = ("facts.read:self:location.home.*", "facts.write:self:location.home.*")


def claim_files(vault: Vault) -> dict[str, dict[str, object]]:
    return {
        str(data["id"]): data
        for data in (frontmatter_of(p.read_bytes()) for p in (vault.root / "private").rglob("claims/*.md"))
    }


def test_a_put_writes_a_claim_about_self_that_lookup_returns(vault: Vault, grant: Grant) -> None:
    grant(*CITY)
    session = open_session(vault, "agent", run_id="run_1")
    result = facts.put(session, predicate_hint="location.home.city", value="Utrecht", source_ref="rec/7")
    assert (result.status, result.predicate) == ("applied", "location.home.city")
    [claim] = claim_files(vault).values()
    assert claim["entities"] == ["pg_me"]
    assert claim["fact"] == {
        "predicate": "location.home.city",
        "value": "Utrecht",
        "origin": "extension:agent",
        "source": "extracted",
        "source_ref": "rec/7",
    }
    assert claim["evidence"] == [{"url": "extension:agent/rec/7", "attribution": "extension agent"}]
    found = facts.lookup(session, "self", "location.home")
    assert [f.as_json() for f in found] == [
        {
            "ref": result.ref,
            "predicate": "location.home.city",
            "value": "Utrecht",
            "object": None,
            "validFrom": None,
        }
    ]
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["operation"], newest["actor"], newest["runId"]) == ("fact-put", "extension:agent", "run_1")


def test_the_hint_is_resolved_before_the_permission_is_checked(vault: Vault, grant: Grant) -> None:
    grant("facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
    session = open_session(vault, "agent")
    with pytest.raises(
        PermissionRefused, match=r"lacks knowledge permission facts\.write:self:location\.home\.city"
    ):
        facts.put(session, predicate_hint="City of residence", value="Delft")
    assert facts.put(session, predicate_hint="Rated dishes", value="stew").predicate == "pref.food.rated"
    with pytest.raises(PermissionRefused, match=r"facts\.write:self:x\.favourite_colour"):
        facts.put(session, predicate_hint="favourite colour", value="green")
    assert len(claim_files(vault)) == 1


def test_a_description_of_a_new_predicate_is_kept_with_the_fact(vault: Vault, grant: Grant) -> None:
    """`description` (spec: Writing facts) says what an `x.…` predicate means; it is kept in the
    claim's `fact:` mapping, and one over 200 characters is refused before anything is written."""
    grant("facts.read:self:x.mood", "facts.write:self:x.mood")
    session = open_session(vault, "agent")
    with pytest.raises(ApiError, match="200 characters"):
        facts.put(session, predicate_hint="mood", value="calm", description="d" * 201)
    assert claim_files(vault) == {}
    put = facts.put(session, predicate_hint="mood", value="calm", description="How you  feel today")
    assert put.predicate == "x.mood"
    [claim] = claim_files(vault).values()
    assert claim["fact"] == {
        "predicate": "x.mood",
        "value": "calm",
        "origin": "extension:agent",
        "source": "extracted",
        "description": "How you feel today",
    }


def test_lookup_and_profile_leave_out_what_no_grant_covers(vault: Vault, grant: Grant) -> None:
    grant(*CITY, "facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
    session = open_session(vault, "agent")
    facts.put(session, predicate_hint="location.home.city", value="Utrecht")
    facts.put(session, predicate_hint="pref.food.like", value="stew")
    other = open_session(vault, "other")
    assert facts.lookup(other, "self") == []
    grant("facts.read:self:pref.food.*", name="other")
    assert [f.value for f in facts.lookup(other, "self")] == ["stew"]
    assert [p.as_json() for p in profile.get(other)] == [{"predicate": "pref.food.like", "value": "stew"}]
    assert [p.predicate for p in profile.get(session, "location")] == ["location.home.city"]


def test_cardinality_one_supersedes_and_many_keeps_every_value(vault: Vault, grant: Grant) -> None:
    grant(*CITY, "facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
    session = open_session(vault, "agent")
    first = facts.put(session, predicate_hint="location.home.city", value="Utrecht")
    second = facts.put(session, predicate_hint="location.home.city", value="Delft")
    assert second.superseded == (first.ref,)
    assert [f.value for f in facts.lookup(session, "self", "location.home.city")] == ["Delft"]
    states = {str(c["title"]).rsplit(" = ", 1)[1]: c for c in claim_files(vault).values()}
    assert states["Utrecht"]["lifecycle"] == "superseded"
    assert states["Utrecht"]["superseded_by"] == states["Delft"]["id"]
    assert states["Delft"]["lifecycle"] == "active"
    facts.put(session, predicate_hint="pref.food.like", value="stew")
    facts.put(session, predicate_hint="pref.food.like", value="soup")
    assert sorted(f.value for f in facts.lookup(session, "self", "pref.food")) == ["soup", "stew"]
    assert facts.put(session, predicate_hint="pref.food.like", value="soup").status == "duplicate"


def test_a_value_the_user_said_is_not_overwritten_and_the_conflict_is_journaled(
    vault: Vault, grant: Grant
) -> None:
    grant(*CITY, "origin.override")
    session = open_session(vault, "agent", run_id="run_c")
    said = facts.put(session, predicate_hint="location.home.city", value="Utrecht", origin="user")
    before = len(claim_files(vault))
    result = facts.put(session, predicate_hint="location.home.city", value="Delft")
    assert (result.status, result.ref) == ("conflict", said.ref)
    assert len(claim_files(vault)) == before
    assert [f.value for f in facts.lookup(session, "self", "location.home")] == ["Utrecht"]
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["operation"], newest["state"], newest["runId"]) == ("fact-conflict", "conflict", "run_c")


def test_origin_needs_its_own_switch_and_values_have_a_size_limit(vault: Vault, grant: Grant) -> None:
    grant(*CITY)
    session = open_session(vault, "agent")
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission origin\.override"):
        facts.put(session, predicate_hint="location.home.city", value="Utrecht", origin="user")
    with pytest.raises(WriteTooLarge, match="65,536"):
        facts.put(session, predicate_hint="location.home.city", value="x" * 70_000)
    assert claim_files(vault) == {}


def test_facts_about_a_person_and_an_object_entity(vault: Vault, grant: Grant) -> None:
    grant(
        "entities.resolve:person", "facts.read:person:relation.friend", "facts.write:person:relation.friend"
    )
    session = open_session(vault, "agent")
    ada = entities.resolve(session, {"email": "ada@example.org"})
    bob = entities.resolve(session, {"name": "bob"})
    assert ada is not None
    assert bob is not None
    put = facts.put(session, subject=ada.ref, predicate_hint="relation.friend", value="Bob", object=bob.ref)
    [found] = facts.lookup(session, ada.ref, "relation")
    assert (found.ref, found.object) == (put.ref, bob.ref)
    with pytest.raises(PermissionRefused, match=r"facts\.write:person:relation\.spouse"):
        facts.put(session, subject=ada.ref, predicate_hint="relation.spouse", value="x")


def test_retract_withdraws_and_needs_changes_manage_for_another_writer(vault: Vault, grant: Grant) -> None:
    grant("facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
    grant("facts.read:self:pref.food.*", "facts.write:self:pref.food.*", name="other")
    mine = facts.put(open_session(vault, "other"), predicate_hint="pref.food.like", value="stew")
    session = open_session(vault, "agent")
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission changes\.manage"):
        facts.retract(session, facts.lookup(session, "self")[0].ref)
    other = open_session(vault, "other")
    assert facts.retract(other, mine.ref).status == "retracted"
    assert facts.retract(other, mine.ref).status == "already_retracted"
    assert facts.lookup(other, "self") == []
    [claim] = claim_files(vault).values()
    assert claim["lifecycle"] == "withdrawn"


def test_each_put_counts_against_the_daily_quota(vault: Vault, grant: Grant) -> None:
    grant("facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
    session = open_session(vault, "agent")
    with vault.store.write() as w:
        w.execute(
            "INSERT INTO extension_quota_v1(name, day, writes, chars) VALUES (?, ?, ?, 0)",
            ("agent", session.quotas.usage("agent").day, DAILY_WRITES),
        )
    with pytest.raises(QuotaExceeded, match="quota"):
        facts.put(session, predicate_hint="pref.food.like", value="stew")
    assert claim_files(vault) == {}
