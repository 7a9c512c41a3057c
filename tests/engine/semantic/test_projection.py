"""The embedding projection and search by meaning (issue 27 §2, §3): queued by reconcile,
embedded by the first search that needs it, incremental, tied to its model, and as
disposable as the other projections."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.semantic import model
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit

TOMAS = (
    "# Tomás\n\nTomás builds the mobile app and the photo pipeline.\n\n"
    "He is on parental leave until September, looking after his baby daughter.\n"
)


@pytest.fixture
def kit(tmp_path: Path) -> VaultKit:
    kit = VaultKit(tmp_path / "v")
    kit.page("private/people/tomas.md", "pg_tomas", "Tomás Lindqvist", TOMAS, type="person")
    kit.page("private/notes/budget.md", "pg_budget", "Budget", "The board froze all spending.\n", type="note")
    kit.page(
        "private/notes/maps.md", "pg_maps", "Maps", "Vector tiles cached for offline hiking.\n", type="note"
    )
    return kit


@pytest.fixture
def vault(kit: VaultKit) -> Iterator[Vault]:
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        yield vault


def chunks(vault: Vault) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list[tuple[int, str]]] = {}
    for rowid, path, sha in vault.store.reader().execute(
        "SELECT rowid, path, sha256 FROM semantic_chunks_v1 ORDER BY path, chunk"
    ):
        out.setdefault(path, []).append((rowid, sha))
    return out


def ids(result: dict[str, object]) -> list[str]:
    results = result["results"]
    assert isinstance(results, list)
    return [r["id"] for r in results]


def test_a_scan_only_queues_and_the_first_search_by_meaning_embeds(vault: Vault) -> None:
    assert chunks(vault) == {}
    vault.search(GrepQuery("spending", limit=5), "keyword")
    assert chunks(vault) == {}, "a keyword search never pays for the model"
    vault.search(GrepQuery("spending", limit=5), "semantic")
    found = chunks(vault)
    assert set(found) == {"private/people/tomas.md", "private/notes/budget.md", "private/notes/maps.md"}
    assert len(found["private/people/tomas.md"]) == 2, "a lone heading is read with the block below it"


def test_meaning_finds_what_the_words_do_not(vault: Vault) -> None:
    q = GrepQuery("newborn paternity absence", limit=5)
    assert ids(vault.search(q, "keyword")) == []
    result = vault.search(q, "semantic")
    assert ids(result)[0] == "pg_tomas"
    best = result["results"][0]
    assert best["semanticRank"] == 1
    assert best["keywordRank"] is None
    assert "parental leave" in best["snippet"]["text"], "the snippet is the best passage"
    assert best["snippet"]["lineStart"] == best["snippet"]["lineEnd"]
    hybrid = vault.search(q, "hybrid")
    assert hybrid["mode"] == "hybrid"
    assert ids(hybrid)[0] == "pg_tomas"


def test_filters_apply_to_both_halves(vault: Vault) -> None:
    for mode in ("hybrid", "semantic", "keyword"):
        q = GrepQuery("Tomás on leave, spending", types=frozenset({"note"}), limit=10)
        result = vault.search(q, mode)
        assert "pg_tomas" not in ids(result), mode
        assert {r["type"] for r in result["results"]} <= {"note"}
    assert ids(vault.search(GrepQuery("anything", kind="claim"), "semantic")) == []


def test_one_edit_re_embeds_one_file(kit: VaultKit, vault: Vault) -> None:
    vault.index_keywords()
    vault.index_meaning()
    before = chunks(vault)
    kit.page("private/notes/budget.md", "pg_budget", "Budget", "The board thawed spending.\n", type="note")
    vault.reconcile()
    vault.index_keywords()
    assert vault.index_meaning() == 1
    after = chunks(vault)
    assert after["private/notes/maps.md"] == before["private/notes/maps.md"]
    assert after["private/notes/budget.md"] != before["private/notes/budget.md"]
    (kit.root / "private/notes/maps.md").unlink()
    vault.reconcile()
    vault.search(GrepQuery("maps", limit=5), "semantic")
    assert "private/notes/maps.md" not in chunks(vault)


class Other:
    """Another model: the bundled one's vectors under another name."""

    name = "another-model"
    dim = 256

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.texts += len(texts)
        if self.fail:
            raise KeyboardInterrupt  # as a kill would stop it, mid-transaction
        return model.embedder().embed(texts)


def test_another_model_re_embeds_everything(vault: Vault) -> None:
    vault.index_keywords()
    vault.index_meaning()
    before = chunks(vault)
    other = Other()
    assert vault.index_meaning(model=other) == 3
    assert other.texts == 3 + 4, "three titles and four passages embedded again"
    assert {p: len(rows) for p, rows in chunks(vault).items()} == {p: len(rows) for p, rows in before.items()}
    row = vault.store.reader().execute("SELECT model FROM semantic_state_v1 WHERE scope=''").fetchone()
    assert row[0] == "another-model:256"


def test_an_interrupted_embedding_leaves_the_old_rows_and_the_queue(kit: VaultKit, vault: Vault) -> None:
    vault.index_keywords()
    vault.index_meaning()
    before = chunks(vault)
    kit.page("private/notes/budget.md", "pg_budget", "Budget", "Spending resumes.\n", type="note")
    vault.reconcile()
    vault.index_keywords()
    with pytest.raises(KeyboardInterrupt):
        vault.index_meaning(model=Other(fail=True))
    assert chunks(vault) == before
    assert vault.index_meaning() == 1


def test_a_rebuild_drops_the_vectors_and_the_next_search_makes_them_again(vault: Vault) -> None:
    q = GrepQuery("newborn paternity absence", limit=3)
    first = vault.search(q, "hybrid")
    vault.rebuild()
    assert chunks(vault) == {}
    again = vault.search(q, "hybrid")
    assert [(r["id"], r["score"]) for r in again["results"]] == [
        (r["id"], r["score"]) for r in first["results"]
    ]


def test_an_unknown_mode_is_a_query_error(vault: Vault) -> None:
    from knowledge_desktop.engine.errors import QueryError

    with pytest.raises(QueryError, match="mode"):
        vault.search(GrepQuery("x"), "fuzzy")


def test_vectors_held_in_memory_are_not_reused_after_a_rebuild(kit: VaultKit, vault: Vault) -> None:
    q = GrepQuery("newborn baby sleeping", limit=3)
    vault.search(q, "semantic")  # the partition's vectors are now held in memory
    body = "Newborn babies sleep most of the day.\n"
    kit.page("private/notes/maps.md", "pg_maps", "Maps", body, type="note")
    vault.rebuild()
    best = vault.search(q, "semantic")["results"][0]
    assert best["id"] == "pg_maps"
    assert best["snippet"]["text"] == body.strip()
