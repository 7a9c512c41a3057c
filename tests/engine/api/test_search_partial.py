"""The knowledge API's `search` never waits for a whole partition's vectors (issue 27 on a
big vault): each call embeds a bounded part of the queue, answers from the keyword half
and the vectors it has, and says its index is partial until the queue is empty."""

from __future__ import annotations

import itertools

import pytest

from knowledge_desktop.engine import vault_api
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.search import search
from knowledge_desktop.engine.vault import Vault
from tests.engine.api.docs_kit import grant, install, session
from tests.vaultkit import VaultKit


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    vault = kit.scan()
    install(vault)
    grant(vault, "collections.read:diary", "collections.write:diary")
    s = session(vault)
    for day, body in enumerate(("Tomato soup.", "Rice and beans.", "Lentil stew.", "Tomato salad."), 21):
        docs.upsert(s, "diary", key=f"2026-09-{day}", title=f"Day {day}", body=body + "\n")
    vault.reconcile()
    return vault


def test_a_long_queue_is_embedded_a_bounded_chunk_per_call(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vault_api, "EMBED_PER_CALL", 2)
    queued = vault.meaning_pending(["private"])
    assert queued >= 4
    first = search(session(vault), "rice").as_json()
    assert first["index"] == {"state": "partial", "pending": queued - 2}
    # the keyword half sees every page, embedded or not
    assert "Day 22" in [h["title"] for h in first["hits"]]
    answers = [search(session(vault), "rice").as_json()["index"] for _ in range(queued)]
    assert answers[-1] == {"state": "ready"}
    pending = [first["index"]["pending"], *(a.get("pending", 0) for a in answers)]
    assert all(a - b in (0, 1, 2) for a, b in itertools.pairwise(pending))
    assert vault.meaning_pending(["private"]) == 0


def test_a_short_queue_is_embedded_before_the_answer(vault: Vault) -> None:
    result = search(session(vault), "soup").as_json()
    assert result["index"] == {"state": "ready"}
    assert vault.meaning_pending(["private"]) == 0
