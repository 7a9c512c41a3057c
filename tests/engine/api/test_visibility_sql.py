"""Visibility is part of a search's SQL (issue 28 §2): an extension's search ranks and counts
only what it may see, and does not build hits (snippets, matches) for records it will never
be shown, so a word that many hidden records hold costs what it costs among the visible."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine import vault_reads
from knowledge_desktop.engine.query import grep as grep_module
from knowledge_desktop.engine.vault_api import open_session
from tests.engine.api.test_visibility import agent_vault
from tests.vaultkit import CHANGE, VaultKit

HIDDEN = 120
"""Notes holding the word, none of them visible to the agent: more than two raw pages."""


def test_hidden_matches_are_never_made_into_hits(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    kit.lantern_notes(HIDDEN)
    vault = agent_vault(kit)
    session = open_session(vault, "agent")
    built: list[str] = []
    complete = grep_module.complete

    def counting(conn: Any, hit: Any, *args: Any) -> dict[str, Any]:
        out: dict[str, Any] = complete(conn, hit, *args)
        built.append(out["path"])
        return out

    monkeypatch.setattr(grep_module, "complete", counting)
    page = vault_reads.grep(vault, session, "lantern", limit=2)
    assert len(page.hits) == 2
    assert (page.total, page.total_exact, page.next_offset) == (3, True, 2)
    rest = vault_reads.grep(vault, session, "lantern", limit=2, offset=2)
    assert {h.record.id for h in page.hits + rest.hits} == {"pg_ada", "pg_me", "cl_soup"}
    # each search builds the fact claims that match (three, judged one by one) and its page
    assert not [p for p in built if p.startswith("private/notes/")]
    assert len(built) <= 2 * 3 + 2 + 1


def test_a_visible_fact_found_through_its_superseded_wording(kit: VaultKit) -> None:
    """The SQL does not see the earlier record a replacement is reached through: such a
    search is judged hit by hit, and finds the current fact when the earlier one is visible."""
    vault = agent_vault(kit)
    fact = {"predicate": "pref.food.rated", "value": "soup"}
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Likes marrow soup",
        entities=["pg_me"],
        fact=fact,
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=CHANGE,
    )
    kit.claim(
        "private/claims/new.md", "cl_new", "Likes soup", entities=["pg_me"], fact=fact, supersedes="cl_old"
    )
    vault.reconcile()
    page = vault_reads.grep(vault, open_session(vault, "agent"), "marrow")
    assert [(h.record.id, h.via_id) for h in page.hits] == [("cl_new", "cl_old")]
    assert page.total == 1
