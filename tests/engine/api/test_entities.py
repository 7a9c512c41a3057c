"""Entities for extensions (issue 16 §1): pages of entity types found by normalized identifier
aliases, then names; created and given identifiers through the write path; refs that follow a
merge to the page kept and fail with `no entity` once the page is gone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from knowledge_desktop.engine.api import entities
from knowledge_desktop.engine.errors import NoEntity, PermissionRefused
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.engine.write.lifecycle import merge
from tests.vaultkit import VaultKit, fence_of, frontmatter_of

Grant = Callable[..., None]


def test_resolve_matches_identifiers_normalized_then_names(vault: Vault, grant: Grant) -> None:
    session = open_session(vault, "agent")
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission entities\.resolve:person"):
        entities.resolve(session, {"email": "ada@example.org"})
    grant("entities.resolve:person")
    by_email = entities.resolve(session, {"email": " ADA@Example.org "})
    by_name = entities.resolve(session, {"name": "ada  lovelace"})
    assert by_email is not None
    assert by_email == by_name
    assert (by_email.kind, by_email.display_name, by_email.created) == ("person", "Ada Lovelace", False)
    assert entities.resolve(session, {"email": "nobody@example.org"}) is None
    with pytest.raises(PermissionRefused, match=r"entities\.resolve:org"):
        entities.resolve(session, {"domain": "acme.nl"}, kind="org")


def test_resolve_creates_a_page_only_with_entities_write(vault: Vault, grant: Grant) -> None:
    grant("entities.resolve:person")
    session = open_session(vault, "agent", run_id="run_e")
    with pytest.raises(PermissionRefused, match=r"entities\.write:person"):
        entities.resolve(session, {"email": "cy@example.org", "name": "Cy"}, create=True)
    grant("entities.write:person")
    made = entities.resolve(session, {"email": "Cy@Example.org", "name": "Cy"}, create=True)
    assert made is not None
    assert (made.display_name, made.created) == ("Cy", True)
    [path] = (vault.root / "private" / "people").glob("cy*.md")
    data = frontmatter_of(path.read_bytes())
    assert (data["type"], data["aliases"]) == ("person", ["email:cy@example.org"])
    assert entities.resolve(session, {"email": "cy@example.org"}) == entities.Resolved(
        made.ref, "person", "Cy", False
    )
    newest = vault.journal(limit=1)["items"][0]
    assert (newest["operation"], newest["runId"]) == ("entity-create", "run_e")


def test_get_list_and_add_identifier(vault: Vault, grant: Grant) -> None:
    grant("entities.resolve:person")
    session = open_session(vault, "agent")
    ada = entities.resolve(session, {"email": "ada@example.org"})
    assert ada is not None
    # checked before the ref is looked up, so the refusal cannot name the entity's kind
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission entities\.read:<kind>"):
        entities.get(session, ada.ref)
    grant("entities.read:person")
    assert entities.get(session, ada.ref).identifiers == ("email:ada@example.org",)
    assert [e.display_name for e in entities.list_entities(session, "person")] == ["Ada Lovelace", "Bob"]
    assert [e.display_name for e in entities.list_entities(session, "person", "LOVE")] == ["Ada Lovelace"]
    with pytest.raises(PermissionRefused, match=r"lacks knowledge permission entities\.write:<kind>"):
        entities.add_identifier(session, ada.ref, "phone", "+31 6 1234 5678")
    grant("entities.write:person")
    assert entities.add_identifier(session, ada.ref, "phone", "+31 6 1234 5678").status == "added"
    assert entities.add_identifier(session, ada.ref, "phone", "0031612345678").status == "exists"
    assert entities.get(session, ada.ref).identifiers == ("email:ada@example.org", "phone:+31612345678")
    assert entities.resolve(session, {"phone": "+31 (6) 12345678"}) == ada


def test_a_merged_ref_reaches_the_survivor_and_a_deleted_one_has_no_entity(
    kit: VaultKit, vault: Vault, grant: Grant
) -> None:
    kit.page("private/people/ada2.md", "pg_ada2", "Countess of Lovelace", type="person")
    vault = kit.scan()
    grant("entities.resolve:person", "entities.read:person")
    session = open_session(vault, "agent")
    countess = entities.resolve(session, {"name": "Countess of Lovelace"})
    bob = entities.resolve(session, {"name": "Bob"})
    assert countess is not None
    assert bob is not None
    merge(vault.write, fence_of(vault, "pg_ada"), fence_of(vault, "pg_ada2"), "the same person")
    assert entities.get(session, countess.ref).display_name == "Ada Lovelace"
    (vault.root / "private" / "people" / "bob.md").unlink()
    vault = kit.scan()
    with pytest.raises(NoEntity, match="no entity"):
        entities.get(open_session(vault, "agent"), bob.ref)
