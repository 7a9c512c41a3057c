"""Keeping a headless vault live (issue 28 §1): `VaultWatcher.sync` delivers every change made
before it without waiting for the quiet gap, `LiveVault.fresh` answers live when the watcher
vouches and walks (saying why) when it cannot, and the Python API object opened with
`live=True` reads through the same path."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.api.extension import open_extension
from knowledge_desktop.engine.errors import StateLocked
from knowledge_desktop.engine.fs.watch import SYNC_PREFIX, VaultWatcher
from knowledge_desktop.engine.live_vault import Freshness, LiveVault
from tests.engine.api.test_visibility import agent_vault
from tests.engine.fs.test_watch import Recorder, Start, watcher_threads
from tests.vaultkit import VaultKit

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

SLOW_DEBOUNCE = {"debounce_s": 60.0, "max_batch_wait_s": 120.0}
"""A quiet gap no test waits out: what `sync` delivers, it delivered itself."""


@pytest.fixture
def vault_dir(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "private" / "notes").mkdir(parents=True)
    (root / ".knowledge").mkdir()
    return root


@pytest.fixture
def start(vault_dir: Path) -> Iterator[Start]:
    """Start watchers on `vault_dir` (options pass through), all stopped after the test."""
    started: list[VaultWatcher] = []

    def make(**options: object) -> tuple[VaultWatcher, Recorder]:
        recorder = Recorder()
        watcher = VaultWatcher(vault_dir, recorder.on_paths, recorder.on_rescan, **options)  # type: ignore[arg-type]
        started.append(watcher)
        watcher.start()
        return watcher, recorder

    yield make
    for watcher in started:
        watcher.stop()
    assert watcher_threads() == []


def test_sync_delivers_every_earlier_write_without_the_quiet_gap(start: Start, vault_dir: Path) -> None:
    watcher, recorder = start(sync_dir=vault_dir / ".knowledge", **SLOW_DEBOUNCE)
    names = [f"private/notes/n{i}.md" for i in range(20)]
    for name in names:
        (vault_dir / name).write_text(f"note {name}\n", encoding="utf-8")
    answers: list[str | None] = []
    syncing = threading.Thread(target=lambda: answers.append(watcher.sync()))
    syncing.start()
    syncing.join(30)  # a guard against the 60 s gap, not a measure: sync returns at once
    assert not syncing.is_alive(), "sync waited for the quiet gap"
    assert answers == [None]
    assert set(names) <= recorder.paths
    assert not [p for p in (vault_dir / ".knowledge").iterdir() if p.name.startswith(SYNC_PREFIX)]


def test_sync_says_why_it_cannot_vouch(start: Start, vault_dir: Path) -> None:
    polling, _ = start(sync_dir=vault_dir / ".knowledge", force_polling=True)
    assert polling.sync() == "polling was requested"
    nowhere, _ = start()
    assert "state folder is not inside it" in (nowhere.sync() or "")


def test_a_live_vault_answers_live_and_walks_when_it_cannot_watch(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    vault = kit.scan()
    with LiveVault(vault, **SLOW_DEBOUNCE) as live:
        kit.page("private/people/bo.md", "pg_bo", "Bo", type="person")
        assert live.fresh() == Freshness("live")
        assert [r["path"] for r in vault.find("pg_bo")] == ["private/people/bo.md"]
    with LiveVault(vault, force_polling=True) as polling:
        kit.page("private/people/cy.md", "pg_cy", "Cy", type="person")
        assert polling.fresh() == Freshness("walked", "polling was requested")
        assert [r["path"] for r in vault.find("pg_cy")] == ["private/people/cy.md"]


def test_a_failed_watcher_batch_makes_the_next_call_walk(kit: VaultKit) -> None:
    """A batch whose reconcile fails is not reported again by the watcher: the next call walks."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    vault = kit.scan()
    with LiveVault(vault) as live:
        live._failed(OSError("disk trouble"))  # as the watcher reports a callback's failure
        kit.page("private/people/dee.md", "pg_dee", "Dee", type="person")
        seen = live.fresh()
        assert seen.mode == "walked"
        assert "disk trouble" in seen.reason
        assert live.fresh() == Freshness("live")


def test_the_python_api_object_reads_through_the_live_path(kit: VaultKit) -> None:
    agent_vault(kit)
    kit.close()
    with open_extension(kit.root, "agent", live=True, **SLOW_DEBOUNCE) as ext:
        kit.page("private/people/eve.md", "pg_eve", "Eve Lantern", type="person")
        assert "pg_eve" in [h.record.id for h in ext.grep("lantern").hits]
        assert ext.freshness == Freshness("live")
    with open_extension(kit.root, "agent", live=True, force_polling=True) as ext:
        kit.page("private/people/fay.md", "pg_fay", "Fay Lantern", type="person")
        assert "pg_fay" in [h.record.id for h in ext.grep("lantern").hits]
        assert ext.freshness == Freshness("walked", "polling was requested")


def test_a_locked_state_at_start_leaves_the_first_call_to_walk(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several servers and the window starting at once: one waits past SQLite's timeout for
    the write lock. It starts anyway, and its first call looks at every file."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    vault = kit.scan()
    reconcile = vault.reconcile
    calls: list[object] = []

    def locked_once(*args: object, **kwargs: object) -> object:
        calls.append(args)
        if len(calls) == 1:
            raise StateLocked("state.sqlite is locked by another program")
        return reconcile(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vault, "reconcile", locked_once)
    with LiveVault(vault) as live:
        kit.page("private/people/gus.md", "pg_gus", "Gus", type="person")
        seen = live.fresh()
        assert seen.mode == "walked"
        assert "another program" in seen.reason
        assert [r["path"] for r in vault.find("pg_gus")] == ["private/people/gus.md"]
