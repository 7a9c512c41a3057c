"""Embedding a whole vault lets the vault go between steps (`Vault.index_meaning`): at 100k
records it takes minutes, and a record shown in the window (its Related line) must not hold
the watcher and every write back for that long."""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from knowledge_desktop.engine import vault as vault_module
from knowledge_desktop.engine.store.projections import semantic as projection
from knowledge_desktop.engine.vault import Vault
from tests.engine.semantic.five_pages import five_pages


class _Recorded:
    """The vault's lock, noting when its outermost hold is taken and let go."""

    def __init__(self, events: list[str]) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._events = events

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        got = self._lock.acquire(blocking, timeout)
        if got:
            self._depth += 1
            if self._depth == 1:
                self._events.append("take")
        return got

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._events.append("let go")
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.release()


def test_a_whole_embedding_lets_the_vault_go_between_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    five_pages(tmp_path / "v")
    events: list[str] = []
    store = projection.store

    def recorded(*args: Any, **kwargs: Any) -> int:
        settled = store(*args, **kwargs)
        if settled:
            events.append("embedded")
        return settled

    monkeypatch.setattr(projection, "store", recorded)
    monkeypatch.setattr(vault_module, "EMBED_STEP", 2)
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        vault._lock = _Recorded(events)  # type: ignore[assignment]
        assert vault.index_meaning() == 5
        assert vault.meaning_pending(vault.scopes()) == 0
    steps = [e for e in events if e == "embedded"]
    assert len(steps) == 3  # 2 + 2 + 1 files
    # Between two steps that embedded something the vault was let go.
    between = "".join("E" if e == "embedded" else "R" if e == "let go" else "" for e in events)
    assert "EE" not in between, events


class _Gated:
    """The real embedder, whose first call waits for the test's word: the vault is held,
    or not, while the model works."""

    def __init__(self) -> None:
        from knowledge_desktop.engine.semantic.model import embedder

        self._real = embedder()
        self.name, self.dim = self._real.name, self._real.dim
        self.working = threading.Event()
        self.go_on = threading.Event()

    def embed(self, texts: Any) -> Any:
        if not self.working.is_set():
            self.working.set()
            assert self.go_on.wait(30)
        return self._real.embed(texts)


def test_the_model_works_without_the_vault_and_an_edit_meanwhile_is_embedded_as_edited(
    tmp_path: Path,
) -> None:
    kit = five_pages(tmp_path / "v")
    model = _Gated()
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        result: list[int] = []
        embedding = threading.Thread(target=lambda: result.append(vault.index_meaning(None, model)))
        embedding.start()
        assert model.working.wait(30)
        # While the model works on the first step, a page of that step is edited, reconciled
        # and its text indexed: nothing here waits for the model.
        kit.page(
            "private/notes/maps.md", "pg_maps", "Maps", "Sea charts for the harbour pilots.\n", type="note"
        )
        free = vault._lock.acquire(timeout=5)
        assert free, "the vault was held while the model worked"
        try:
            vault.reconcile()
            vault.index_keywords()
        finally:
            vault._lock.release()
        model.go_on.set()
        embedding.join(60)
        assert not embedding.is_alive()
        assert len(result) == 1
        assert result[0] >= 5
        conn = vault.store.reader()
        rows = dict(conn.execute("SELECT path, sha256 FROM keyword_rows_v1_private"))
        embedded = dict(conn.execute("SELECT DISTINCT path, sha256 FROM semantic_chunks_v1"))
        assert embedded == rows  # the edited page's vectors are its new text's
        assert vault.meaning_pending(vault.scopes()) == 0
        snippets = [
            t for (t,) in conn.execute("SELECT text FROM semantic_chunks_v1 WHERE path LIKE '%maps.md'")
        ]
        assert any("Sea charts" in t for t in snippets), snippets


def test_a_related_line_answers_from_what_is_embedded_while_another_thread_embeds(tmp_path: Path) -> None:
    five_pages(tmp_path / "v")
    model = _Gated()
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        embedding = threading.Thread(target=lambda: vault.index_meaning(None, model))
        embedding.start()
        try:
            assert model.working.wait(30)
            # Nothing is embedded yet and the other thread is still in the model: the answer
            # is empty at once, not after the whole embedding.
            assert vault.related("private/notes/maps.md", wait=False) == []
            assert embedding.is_alive()
            assert vault.index_meaning(None, model, wait=False) == 0
        finally:
            model.go_on.set()
            embedding.join(60)
        assert vault.meaning_pending(vault.scopes()) == 0
        assert vault.related("private/notes/maps.md", wait=False) != []


def test_a_related_line_never_starts_embedding_a_vault_with_more_queued_than_it_may_embed(
    tmp_path: Path,
) -> None:
    kit = five_pages(tmp_path / "v")
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        assert vault.related("private/notes/maps.md", embed_at_most=4) == []
        assert vault.meaning_pending(vault.scopes()) == 5  # nothing embedded
        assert vault.related("private/notes/maps.md", embed_at_most=5) != []  # few enough: embedded
        assert vault.meaning_pending(vault.scopes()) == 0
        # After an edit, the one queued file is embedded for the line, whatever the bound.
        kit.page("private/notes/maps.md", "pg_maps", "Maps", "Sea charts for harbour pilots.\n", type="note")
        vault.reconcile()
        vault.index_keywords()
        assert vault.meaning_pending(vault.scopes()) == 1
        vault.related("private/notes/maps.md", embed_at_most=1)
        assert vault.meaning_pending(vault.scopes()) == 0


def test_an_agents_bounded_embedding_works_without_the_vault_too(tmp_path: Path) -> None:
    """`limit` (the knowledge API's quick calls) goes through the same step: the model does
    not hold the vault, and only `limit` files of a scope settle."""
    five_pages(tmp_path / "v")
    model = _Gated()
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        result: list[int] = []
        worker = threading.Thread(target=lambda: result.append(vault.index_meaning(None, model, limit=2)))
        worker.start()
        try:
            assert model.working.wait(30)
            free = vault._lock.acquire(timeout=5)
            assert free, "the vault was held while the model worked"
            vault._lock.release()
        finally:
            model.go_on.set()
            worker.join(60)
        assert result == [2]
        assert vault.meaning_pending(vault.scopes()) == 3


def test_a_bounded_count_of_the_queue_stops_one_past_its_bound(tmp_path: Path) -> None:
    five_pages(tmp_path / "v")
    with Vault.open(tmp_path / "v") as vault:
        vault.reconcile()
        vault.index_keywords()
        assert vault.meaning_pending(vault.scopes()) == 5
        assert vault.meaning_pending(vault.scopes(), 2) == 3
        assert vault.meaning_pending(vault.scopes(), 0) == 1
        assert vault.meaning_pending(vault.scopes(), 9) == 5
