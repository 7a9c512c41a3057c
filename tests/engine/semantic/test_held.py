"""The vectors search by meaning keeps in memory (issue 27, ≤ 30 ms at 100k): every
passage as int8 beside the files' vectors, patched from the projection's log of changed
files (or read again for the changed files alone), equal to a fresh read after an edit,
and an answer scored from the stored vectors all the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from knowledge_desktop.engine.query import hybrid, semantic_held
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.semantic.model import embedder
from knowledge_desktop.engine.store.projections import semantic as projection
from knowledge_desktop.engine.store.projections.semantic import STORED
from knowledge_desktop.engine.store.projections.semantic_queue import NOTES
from knowledge_desktop.engine.vault import Vault
from tests.engine.semantic.five_pages import PAGES, five_pages
from tests.vaultkit import VaultKit


@pytest.fixture
def kit(tmp_path: Path) -> VaultKit:
    return five_pages(tmp_path / "v")


@pytest.fixture
def vault(kit: VaultKit) -> Iterator[Vault]:
    semantic_held.forget()
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        vault.index_keywords()
        vault.index_meaning()
        yield vault
    semantic_held.forget()


def stored(vault: Vault) -> dict[str, np.ndarray]:
    rows = vault.store.reader().execute("SELECT path, passages FROM semantic_records_v1")
    return {p: np.frombuffer(b, dtype=STORED).reshape(-1, 256).astype(np.float32) for p, b in rows}


def held_rows(held: semantic_held.Held) -> dict[str, np.ndarray]:
    return {
        p: held.passages[held.starts[i] : held.starts[i + 1]].astype(np.float32)
        * held.scales[held.starts[i] : held.starts[i + 1], None]
        for p, i in held.where.items()
    }


def held_now(vault: Vault) -> semantic_held.Held:
    return semantic_held.held(vault.store.reader(), str(vault.store.path), "private", 256)


def test_every_stored_passage_is_held_within_half_a_step() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((50, 256)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[7] = 0.0
    rows, scales = semantic_held.quantise(vectors.copy())
    assert rows.dtype == np.int8
    assert scales[7] == 0.0
    error = np.abs(rows.astype(np.float32) * scales[:, None] - vectors)
    assert np.all(error <= scales[:, None] / 2 + 1e-7)


def test_the_held_passages_are_the_stored_ones(vault: Vault) -> None:
    held = held_now(vault)
    assert held.paths == sorted(f"private/notes/{name}.md" for name in PAGES)
    kept = held_rows(held)
    for path, vectors in stored(vault).items():
        assert kept[path].shape == vectors.shape
        assert np.abs(kept[path] - vectors).max() < 5e-3, path


def edit(kit: VaultKit, vault: Vault) -> None:
    """Budget rewritten (one more passage), maps deleted, river added."""
    kit.page(
        "private/notes/budget.md",
        "pg_budget",
        "Budget",
        "Spending resumes in May.\n\nThe audit found nothing.\n\nA third part.\n",
        type="note",
    )
    (kit.root / "private/notes/maps.md").unlink()
    kit.page("private/notes/river.md", "pg_river", "River", "Canoes on the river at dusk.\n", type="note")
    vault.reconcile()
    vault.index_keywords()
    vault.index_meaning()


def traced_held(vault: Vault) -> tuple[semantic_held.Held, list[str]]:
    conn = vault.store.reader()
    read: list[str] = []
    conn.set_trace_callback(read.append)
    try:
        return held_now(vault), read
    finally:
        conn.set_trace_callback(None)


def assert_as_fresh(vault: Vault, after: semantic_held.Held) -> None:
    """What an edit left held is what a first read holds now, file for file, bit for bit."""
    incremental = held_rows(after)
    semantic_held.forget()
    fresh_held = held_now(vault)
    fresh = held_rows(fresh_held)
    assert sorted(incremental) == sorted(fresh)
    for path in fresh:
        assert np.array_equal(fresh[path], incremental[path]), path
        assert np.array_equal(after.matrix[after.where[path]], fresh_held.matrix[fresh_held.where[path]]), (
            path
        )


def nearest(vault: Vault, words: str) -> list[tuple[str, float]]:
    vector = embedder().embed([words])[0]
    found = hybrid.neighbours(
        vault.store.reader(), str(vault.store.path), "private", vector, GrepQuery(words), 5
    )
    return [(n.path, n.score) for n in found]


def test_an_edit_patches_the_held_copy_from_the_log(
    kit: VaultKit, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(semantic_held, "DEAD_SHARE", 1.0)  # append, however small the vault
    before = held_now(vault)
    seen = held_rows(before), before.matrix.copy(), list(before.paths)
    edit(kit, vault)
    after, read = traced_held(vault)
    assert not [s for s in read if "length(passages)" in s]  # no listing of every file
    passage_reads = [s for s in read if "passages FROM semantic_records_v1" in s]
    assert len(passage_reads) == 1
    assert all(name in passage_reads[0] for name in ("budget", "maps", "river"))
    assert all(name not in passage_reads[0] for name in ("tomas", "harbour", "garden"))
    assert after.room is before.room  # appended after the held rows
    assert after.generation != before.generation
    assert "private/notes/maps.md" not in after.where
    # what a search holding `before` sees did not move
    assert held_rows(before).keys() == seen[0].keys()
    assert all(np.array_equal(held_rows(before)[p], v) for p, v in seen[0].items())
    assert np.array_equal(before.matrix, seen[1])
    assert before.paths == seen[2]
    patched = nearest(vault, "money frozen by the board")
    assert len({p for p, _ in patched}) == len(patched)  # budget's old row is not answered
    assert_as_fresh(vault, after)
    assert nearest(vault, "money frozen by the board") == patched


def test_dead_rows_past_a_share_are_compacted_in_path_order(kit: VaultKit, vault: Vault) -> None:
    before = held_now(vault)
    edit(kit, vault)
    after, read = traced_held(vault)
    assert not [s for s in read if "length(passages)" in s]
    assert after.room is not before.room
    assert after.paths == sorted(after.paths)
    assert after.live.all()
    assert after.dead_rows == 0
    assert_as_fresh(vault, after)


def test_a_log_that_does_not_reach_back_lists_every_file_again(
    kit: VaultKit, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projection, "LOGGED", 0)  # every change cuts the log
    held_now(vault)
    edit(kit, vault)
    after, read = traced_held(vault)
    assert [s for s in read if "length(passages)" in s]
    assert_as_fresh(vault, after)


def test_the_answer_is_scored_from_the_stored_passages(vault: Vault) -> None:
    conn = vault.store.reader()
    vector = embedder().embed(["money frozen by the board"])[0]
    found = hybrid.neighbours(conn, str(vault.store.path), "private", vector, GrepQuery("money"), 3)
    exact = {p: float(np.max(v @ vector)) for p, v in stored(vault).items()}
    ranked = sorted(exact, key=lambda p: (-exact[p], p))[:3]
    assert [n.path for n in found] == ranked
    for n in found:
        assert n.score == pytest.approx(exact[n.path], abs=1e-6)


def test_an_edited_notes_old_row_takes_no_candidates_place(
    kit: VaultKit, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(semantic_held, "DEAD_SHARE", 1.0)
    kit.write("Baking.md", "Grocery list: flour, yeast and salt.\n\nBake the sourdough loaf on Sunday.\n")
    kit.write("Ferry.md", "The ferry timetable for the islands.\n")
    vault.reconcile()
    vault.index_search()
    db, vector = str(vault.store.path), embedder().embed(["bread and flour"])[0]

    def nearest_notes() -> list[str]:
        conn = vault.store.reader()
        found = hybrid.neighbours(conn, db, NOTES, vector, GrepQuery("bread"), 2, candidates=2)
        return [n.path for n in found]

    assert nearest_notes() == ["Baking.md", "Ferry.md"]
    kit.write("Baking.md", "Grocery list: flour, yeast and salt.\n\nBake rye bread and a flour cake.\n")
    vault.reconcile()
    vault.index_search()
    held = semantic_held.held(vault.store.reader(), db, NOTES, 256)
    assert held.paths == ["Baking.md", "Ferry.md", "Baking.md"]  # patched: the old row is still there, dead
    assert nearest_notes() == ["Baking.md", "Ferry.md"]  # the two candidates are not Baking twice
