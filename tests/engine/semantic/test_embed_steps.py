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
    sync = projection.sync

    def recorded(*args: Any, **kwargs: Any) -> int:
        settled = sync(*args, **kwargs)
        if settled:
            events.append("embedded")
        return settled

    monkeypatch.setattr(projection, "sync", recorded)
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
