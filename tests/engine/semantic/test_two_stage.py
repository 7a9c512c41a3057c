"""Search by meaning in two stages (issue 27 §2, goal ≤ 30 ms at 100k): one vector per
file, kept by the same incremental path as the passages', picks the candidates whose
passages are then scored exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from knowledge_desktop.engine.query import hybrid
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.semantic.model import embedder, normalise
from knowledge_desktop.engine.store.projections.semantic import STORED
from knowledge_desktop.engine.vault import Vault
from tests.engine.semantic.five_pages import PAGES, five_pages
from tests.vaultkit import VaultKit


@pytest.fixture
def kit(tmp_path: Path) -> VaultKit:
    return five_pages(tmp_path / "v")


@pytest.fixture
def vault(kit: VaultKit) -> Iterator[Vault]:
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        vault.index_keywords()
        vault.index_meaning()
        yield vault


def file_vectors(vault: Vault) -> dict[str, np.ndarray]:
    rows = vault.store.reader().execute("SELECT path, vector FROM semantic_records_v1")
    return {path: np.frombuffer(blob, dtype=STORED) for path, blob in rows}


def passage_mean(vault: Vault, path: str) -> np.ndarray:
    (blob,) = (
        vault.store.reader()
        .execute("SELECT passages FROM semantic_records_v1 WHERE path=?", (path,))
        .fetchone()
    )
    count = vault.store.reader().execute("SELECT count(*) FROM semantic_chunks_v1 WHERE path=?", (path,))
    stacked = np.frombuffer(blob, dtype=STORED).reshape(-1, 256).astype(np.float32)
    assert len(stacked) == count.fetchone()[0], "one vector per passage"
    return normalise(stacked.sum(axis=0, keepdims=True))[0].astype(STORED)


def test_each_file_has_one_vector_the_mean_of_its_passages(vault: Vault) -> None:
    found = file_vectors(vault)
    assert set(found) == {f"private/notes/{name}.md" for name in PAGES}
    for path, vector in found.items():
        assert np.array_equal(vector, passage_mean(vault, path)), path


def test_an_edit_replaces_the_files_vector_and_a_removal_drops_it(kit: VaultKit, vault: Vault) -> None:
    before = file_vectors(vault)
    kit.page("private/notes/budget.md", "pg_budget", "Budget", "Spending resumes in May.\n", type="note")
    (kit.root / "private/notes/maps.md").unlink()
    vault.reconcile()
    vault.index_keywords()
    assert vault.index_meaning() == 2
    after = file_vectors(vault)
    assert "private/notes/maps.md" not in after
    assert not np.array_equal(after["private/notes/budget.md"], before["private/notes/budget.md"])
    assert np.array_equal(after["private/notes/budget.md"], passage_mean(vault, "private/notes/budget.md"))
    assert np.array_equal(after["private/notes/harbour.md"], before["private/notes/harbour.md"])


def test_the_second_stage_scores_only_the_first_stages_candidates(vault: Vault) -> None:
    conn = vault.store.reader()
    db = str(vault.store.path)
    vector = embedder().embed(["ferry boats at the pier"])[0]
    q = GrepQuery("ferry boats at the pier")
    exact = hybrid.neighbours(conn, db, "private", vector, q, 5)
    assert exact[0].path == "private/notes/harbour.md"
    # with one candidate, the answer is the file nearest by its own vector, scored by its
    # best passage: the exact search's best passage for that file
    first = file_vectors(vault)
    nearest = max(first, key=lambda p: float(first[p].astype(np.float32) @ vector))
    (only,) = hybrid.neighbours(conn, db, "private", vector, q, 1, candidates=1)
    assert only.path == nearest
    score, chunk = next((n.score, n.chunk) for n in exact if n.path == nearest)
    assert only.chunk == chunk
    assert only.score == pytest.approx(score, abs=1e-6), "the same product, in another BLAS order"


def test_candidates_left_out_by_a_filter_are_replaced_by_the_next(vault: Vault) -> None:
    conn = vault.store.reader()
    db = str(vault.store.path)
    vector = embedder().embed(["ferry boats at the pier"])[0]
    q = GrepQuery("ferry boats at the pier")
    away = {"private/notes/harbour.md"}
    found = hybrid.neighbours(conn, db, "private", vector, q, 2, keep=lambda p: p not in away, candidates=2)
    assert len(found) == 2
    assert away.isdisjoint(n.path for n in found)
