"""Changes and undo (issue 16 §1): every write is a journal entry with actor and run id,
conflicts included; revert by run undoes each change newest first through the write path, or
one change by its ref, and each kind of fact and entity write has its undo."""

from __future__ import annotations

from collections.abc import Callable

from knowledge_desktop.engine.api import entities, facts
from knowledge_desktop.engine.api.changes import UNDO, Changer, list_changes, revert
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session, person_changes
from tests.vaultkit import frontmatter_of

Grant = Callable[..., None]
FOOD = ("facts.read:self:pref.food.*", "facts.write:self:pref.food.*")
CITY = ("facts.read:self:location.home.*", "facts.write:self:location.home.*")


def lifecycles(vault: Vault) -> dict[str, str]:
    """Each claim's value and lifecycle (values are unique in these tests)."""
    out = {}
    for path in (vault.root / "private").rglob("claims/*.md"):
        data = frontmatter_of(path.read_bytes())
        out[f"{data['fact']['value']}#{data['id']}"] = str(data["lifecycle"])  # type: ignore[index]
    return out


def by_value(vault: Vault, value: str) -> list[str]:
    return sorted(state for key, state in lifecycles(vault).items() if key.startswith(value + "#"))


def test_changes_list_shows_an_extensions_own_changes_and_the_person_sees_all(
    vault: Vault, grant: Grant
) -> None:
    grant(*FOOD, *CITY, "origin.override")
    grant(*FOOD, name="other")
    agent = open_session(vault, "agent", run_id="run_a")
    facts.put(agent, predicate_hint="location.home.city", value="Utrecht", origin="user")
    facts.put(agent, predicate_hint="location.home.city", value="Delft")
    facts.put(open_session(vault, "other", run_id="run_o"), predicate_hint="pref.food.like", value="stew")
    other = Changer.of(open_session(vault, "other"))
    assert [(c.actor, c.op, c.status) for c in list_changes(other)] == [
        ("extension:other", "fact-put", "applied")
    ]
    everyone = list_changes(person_changes(vault))
    assert [(c.op, c.status, c.run_id) for c in everyone] == [
        ("fact-put", "applied", "run_o"),
        ("fact-conflict", "conflict", "run_a"),
        ("fact-put", "applied", "run_a"),
    ]
    assert "pref.food.like = stew" in everyone[0].summary  # named by the written record's title
    [conflict] = list_changes(Changer.of(agent), status="conflict")
    assert conflict.proposed["proposed"]["value"] == "Delft"
    assert conflict.proposed["current"]["value"] == "Utrecht"
    assert conflict.as_json()["runId"] == "run_a"


def test_revert_by_run_undoes_puts_newest_first_and_restores_what_they_superseded(
    vault: Vault, grant: Grant
) -> None:
    grant(*CITY, *FOOD)
    first = open_session(vault, "agent", run_id="run_1")
    facts.put(first, predicate_hint="location.home.city", value="Utrecht")
    nightly = open_session(vault, "agent", run_id="run_2")
    facts.put(nightly, predicate_hint="location.home.city", value="Delft")
    facts.put(nightly, predicate_hint="location.home.city", value="Leiden")
    facts.put(nightly, predicate_hint="pref.food.like", value="stew")
    reverter = Changer.of(open_session(vault, "agent", run_id="run_undo"))
    result = revert(reverter, run_id="run_2")
    assert (result.reverted, [i.op for i in result.items]) == (3, ["fact-put"] * 3)
    assert by_value(vault, "Utrecht") == ["active"]
    assert by_value(vault, "Delft") == ["withdrawn"]
    assert by_value(vault, "Leiden") == ["withdrawn"]
    assert by_value(vault, "stew") == ["withdrawn"]
    assert [f.value for f in facts.lookup(first, "self")] == ["Utrecht"]
    assert {c.status for c in list_changes(reverter, run_id="run_2")} == {"reverted"}
    undos = list_changes(reverter, run_id="run_undo")
    assert {(c.actor, c.op) for c in undos} == {("extension:agent", "fact-put-undo")}
    again = revert(reverter, run_id="run_2")
    assert (again.reverted, {i.note for i in again.items}) == (0, {"already reverted"})


def test_a_retract_is_undone_by_saying_the_fact_again(vault: Vault, grant: Grant) -> None:
    grant(*FOOD)
    session = open_session(vault, "agent", run_id="run_r")
    put = facts.put(session, predicate_hint="pref.food.like", value="stew")
    facts.retract(session, put.ref)
    assert facts.lookup(session, "self") == []
    changer = Changer.of(session)
    retract_change = next(c for c in list_changes(changer) if c.op == "fact-retract")
    result = revert(changer, change_ref=retract_change.ref)
    assert result.items[0].status == "reverted"
    assert "new claim" in result.items[0].note
    assert by_value(vault, "stew") == ["active", "withdrawn"]
    [again] = facts.lookup(session, "self")
    assert (again.value, again.ref != put.ref) == ("stew", True)


def test_an_extension_reverts_only_its_own_changes_without_changes_manage(vault: Vault, grant: Grant) -> None:
    grant(*FOOD, name="other")
    other = open_session(vault, "other", run_id="shared")
    facts.put(other, predicate_hint="pref.food.like", value="stew")
    agent = Changer.of(open_session(vault, "agent"))
    assert revert(agent, run_id="shared").items == []
    grant("changes.manage")
    assert revert(agent, run_id="shared").reverted == 1
    assert by_value(vault, "stew") == ["withdrawn"]


def test_entity_writes_are_undone_and_a_conflict_has_nothing_to_undo(vault: Vault, grant: Grant) -> None:
    grant(*CITY, "origin.override", "entities.write:person", "entities.read:person")
    session = open_session(vault, "agent", run_id="run_x")
    facts.put(session, predicate_hint="location.home.city", value="Utrecht", origin="user")
    made = entities.resolve(session, {"email": "cy@example.org", "name": "Cy"}, create=True)
    ada = entities.resolve(session, {"email": "ada@example.org"})
    assert made is not None
    assert ada is not None
    entities.add_identifier(session, ada.ref, "handle", "github:ada")
    facts.put(session, predicate_hint="location.home.city", value="Delft")
    result = revert(person_changes(vault), run_id="run_x")
    assert [(i.op, i.status) for i in result.items] == [
        ("fact-conflict", "skipped"),
        ("entity-add-identifier", "reverted"),
        ("entity-create", "reverted"),
        ("fact-put", "reverted"),
    ]
    assert entities.get(session, ada.ref).identifiers == ("email:ada@example.org",)
    assert entities.resolve(session, {"email": "cy@example.org"}) is None
    assert by_value(vault, "Utrecht") == ["withdrawn"]
    newest = vault.journal(limit=1)["items"][0]
    assert newest["actor"] == "user"


def test_every_fact_and_entity_write_has_a_registered_undo() -> None:
    assert {facts.PUT, facts.RETRACT, entities.CREATE, entities.ADD_IDENTIFIER} <= set(UNDO)
