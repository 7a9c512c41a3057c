"""The method groups of the Python facade (issue 16 §3): `ext.profile`, `ext.facts`,
`ext.entities`, `ext.search`, `ext.documents`, `ext.collections`, `ext.changes` — typed
answers, the spec's refusals, writes in the extension's run or the one a call names, and
state read afresh on every call — and the tool table that puts each of them over MCP."""

from __future__ import annotations

import re
from typing import Any

import pytest

from knowledge_desktop.api import Extension
from knowledge_desktop.api.tools import BY_NAME, TOOLS
from knowledge_desktop.engine.api.documents import NoDocument
from knowledge_desktop.engine.api.facts import Fact, PutResult
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.errors import PermissionRefused, QueryError
from knowledge_desktop.engine.vault_api import open_session
from tests.vaultkit import VaultKit

MANIFEST: dict[str, Any] = {
    "name": "helper",
    "description": "Keeps what it learns about food and people",
    "knowledge": {
        "permissions": [
            "facts.read:self:pref.food.*",
            "facts.write:self:pref.food.*",
            "entities.resolve:person",
            "entities.read:person",
            "entities.write:person",
            "collections.create",
            "collections.read:diary",
            "collections.write:diary",
        ],
        "predicates": [{"predicate": "pref.food.rated", "cardinality": "many", "description": "Rated"}],
        "reason": "Remember dishes and people",
    },
}
RUN = "run_facade"


@pytest.fixture
def ext(kit: VaultKit) -> Extension:
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", aliases=["email:ada@example.org"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(MANIFEST), "private")
    for permission in MANIFEST["knowledge"]["permissions"]:
        if permission != "facts.write:self:pref.food.*":
            extensions.grant("helper", permission)
    return Extension(vault, open_session(vault, "helper", run_id=RUN))


def grant(ext: Extension, permission: str) -> None:
    Extensions(ext.vault.store, ext.vault.root).grant("helper", permission)


def journal(ext: Extension) -> list[tuple[str, str | None]]:
    """(operation, run id) of each write, oldest first."""
    return [(i["operation"], i["runId"]) for i in reversed(ext.vault.journal()["items"])]


def test_facts_are_refused_until_granted_then_written_in_the_run_a_call_names(ext: Extension) -> None:
    with pytest.raises(
        PermissionRefused, match=re.escape("lacks knowledge permission facts.write:self:pref.food")
    ):
        ext.facts.put("pref.food.rated", "lentil soup")
    grant(ext, "facts.write:self:pref.food.*")
    soup = ext.facts.put("pref.food.rated", "lentil soup", source_ref="record/1")
    stew = ext.facts.put("pref.food.rated", "stew", run_id="run_batch")
    assert isinstance(soup, PutResult)
    assert (soup.status, soup.predicate, stew.status) == ("applied", "pref.food.rated", "applied")
    assert ext.facts.put("pref.food.rated", "stew").status == "duplicate"
    assert journal(ext) == [("fact-put", RUN), ("fact-put", "run_batch")]
    found = ext.facts.lookup("self", "pref.food")
    assert all(isinstance(f, Fact) for f in found)
    assert {(f.ref, f.value) for f in found} == {(soup.ref, "lentil soup"), (stew.ref, "stew")}
    assert {(p.predicate, p.value) for p in ext.profile.get("pref.food")} == {
        ("pref.food.rated", "lentil soup"),
        ("pref.food.rated", "stew"),
    }
    assert ext.facts.retract(soup.ref).status == "retracted"
    assert [f.value for f in ext.facts.lookup(prefix="pref.food")] == ["stew"]


def test_entities_resolve_get_list_and_add_identifiers(ext: Extension) -> None:
    ada = ext.entities.resolve({"email": "ADA@example.org"})
    assert ada is not None
    assert (ada.display_name, ada.created) == ("Ada", False)
    assert ext.entities.resolve({"name": "Nobody"}) is None
    bob = ext.entities.resolve({"name": "Bob"}, create=True, run_id="run_people")
    assert bob is not None
    assert bob.created
    assert ext.entities.get(ada.ref).identifiers == ("email:ada@example.org",)
    assert [e.display_name for e in ext.entities.list("person")] == ["Ada", "Bob"]
    assert [e.display_name for e in ext.entities.list(query="bo")] == ["Bob"]
    assert ext.entities.add_identifier(bob.ref, "phone", "+31 6 1234 5678").status == "added"
    assert ext.entities.add_identifier(bob.ref, "phone", "+31 6 1234 5678").status == "exists"
    with pytest.raises(PermissionRefused, match=re.escape("lacks knowledge permission entities.read:org")):
        ext.entities.list("org")
    assert journal(ext) == [("entity-create", "run_people"), ("entity-add-identifier", RUN)]


def test_collections_documents_and_search(ext: Extension) -> None:
    recipes = ext.collections.create("Recipes")
    assert {(c.name, c.builtin, c.can_write) for c in ext.collections.list()} == {
        ("diary", "diary", True),
        ("Recipes", None, True),
    }
    first = ext.documents.upsert(recipes.ref, key="stew", title="Stew", body="Slow beef stew.\n")
    again = ext.documents.upsert(recipes.ref, key="stew", title="Stew", body="Slow beef stew.\n")
    assert (first.status, again.status, again.ref) == ("created", "unchanged", first.ref)
    got = ext.documents.get_by_key(recipes.ref, "stew")
    assert got is not None
    assert (got.ref, got.title, got.body) == (first.ref, "Stew", "Slow beef stew.\n")
    assert ext.documents.get_by_key(recipes.ref, "soup") is None
    day = ext.documents.upsert("diary", key="2026-09-29", title="Tuesday", body="Cooked stew.\n")
    assert [d.ref for d in ext.documents.list("diary", time_range={"from": "2026-09-29"})] == [day.ref]
    assert ext.documents.list("diary", time_range={"to": "2026-09-28"}) == []
    hits = ext.search("stew").hits
    assert {h.document for h in hits} == {first.ref, day.ref}
    assert [h.document for h in ext.search("stew", collections=["diary"]).hits] == [day.ref]
    ext.documents.delete(first.ref)
    with pytest.raises(NoDocument):
        ext.documents.get(first.ref)
    with pytest.raises(
        PermissionRefused, match=re.escape("lacks knowledge permission collections.write:keep")
    ):
        ext.documents.upsert("keep", title="Note", body="")


def test_changes_list_and_revert_the_extensions_run(ext: Extension) -> None:
    grant(ext, "facts.write:self:pref.food.*")
    put = ext.facts.put("pref.food.rated", "lentil soup")
    ext.facts.put("pref.food.rated", "pie", run_id="run_other")
    listed = ext.changes.list(run_id=RUN)
    assert [(c.op, c.status, c.run_id) for c in listed] == [("fact-put", "applied", RUN)]
    assert listed[0].target == put.ref
    assert len(ext.changes.list()) == 2
    result = ext.changes.revert(run_id=RUN)
    assert result.reverted == 1
    assert [f.value for f in ext.facts.lookup(prefix="pref.food")] == ["pie"]
    assert [c.status for c in ext.changes.list(run_id=RUN)][-1] == "reverted"


def test_calls_see_a_persons_edits_made_after_the_extension_opened(ext: Extension) -> None:
    doc = ext.documents.upsert("diary", key="2026-09-29", title="Tuesday", body="Soup.\n")
    path = ext.vault.root / "private/diary/2026-09-29.md"
    path.write_text(path.read_text().replace("Soup.", "Stew, not soup."))
    assert ext.documents.get(doc.ref).body == "Stew, not soup.\n"


KNOWLEDGE_METHODS = {
    "knowledge_profile_get",
    "knowledge_facts_lookup",
    "knowledge_facts_put",
    "knowledge_facts_retract",
    "knowledge_entities_resolve",
    "knowledge_entities_get",
    "knowledge_entities_list",
    "knowledge_entities_add_identifier",
    "knowledge_search",
    "knowledge_documents_upsert",
    "knowledge_documents_get",
    "knowledge_documents_get_by_key",
    "knowledge_documents_list",
    "knowledge_documents_delete",
    "knowledge_collections_list",
    "knowledge_collections_create",
    "knowledge_changes_list",
    "knowledge_changes_revert",
}
READ_TOOLS = {
    "knowledge_grep",
    "knowledge_lookup",
    "knowledge_record",
    "knowledge_timeline",
    "knowledge_chronicle_day",
}


def test_the_tool_table_holds_each_method_once_with_the_specs_argument_names() -> None:
    names = [t.name for t in TOOLS]
    assert len(names) == len(set(names))
    assert set(names) == KNOWLEDGE_METHODS | READ_TOOLS
    put = BY_NAME["knowledge_facts_put"].input_schema()
    assert set(put["properties"]) >= {"subject", "predicateHint", "value", "object", "sourceRef", "runId"}
    assert put["required"] == ["predicateHint", "value"]
    upsert = BY_NAME["knowledge_documents_upsert"].input_schema()["properties"]
    assert {"collection", "key", "title", "body", "meta"} <= set(upsert)
    assert all(t.description for t in TOOLS)


def test_tools_take_camel_case_arguments_and_answer_json(ext: Extension) -> None:
    grant(ext, "facts.write:self:pref.food.*")
    put = BY_NAME["knowledge_facts_put"].call(
        ext, {"predicateHint": "pref.food.rated", "value": "soup", "sourceRef": "r/1", "runId": "run_t"}
    )
    assert (put["status"], put["predicate"]) == ("applied", "pref.food.rated")
    looked = BY_NAME["knowledge_facts_lookup"].call(ext, {"prefix": "pref.food"})
    assert [(f["ref"], f["value"]) for f in looked] == [(put["ref"], "soup")]
    assert BY_NAME["knowledge_entities_resolve"].call(ext, {"identifiers": {"name": "Nobody"}}) is None
    doc = BY_NAME["knowledge_documents_upsert"].call(
        ext, {"collection": "diary", "key": "2026-09-29", "title": "T", "body": "B", "meta": {"x": 1}}
    )
    assert BY_NAME["knowledge_documents_list"].call(ext, {"collection": "diary"})[0]["meta"] == {
        "x": 1,
        "date": "2026-09-29",
    }
    assert BY_NAME["knowledge_documents_delete"].call(ext, {"ref": doc["ref"]}) == {
        "status": "deleted",
        "ref": doc["ref"],
    }
    reverted = BY_NAME["knowledge_changes_revert"].call(ext, {"runId": "run_t"})
    assert reverted["reverted"] == 1
    with pytest.raises(QueryError, match="each of collections must be a JSON string"):
        BY_NAME["knowledge_search"].call(ext, {"collections": [1]})
    with pytest.raises(QueryError, match="meta must be a JSON object"):
        BY_NAME["knowledge_documents_upsert"].call(
            ext, {"collection": "diary", "title": "T", "body": "B", "meta": "x"}
        )
