"""The window's history commands (issue 15 §3): observed checkpoints scheduled after applied
changes (one flush for a burst), File › Checkpoint Outside Edits, and File › Open As Of…
with its banner, read-only panes, Compare with Now and Back to Now.

The burst test runs on the real engine and watcher. The others stand in for
`observed_due`, `flush_observed`, `observed_enabled`, `diff` and the module
`knowledge_desktop.engine.asof` (monkeypatch) and check only what the window does with them.
The stand-in `open_as_of` opens a copy of the vault read-only, as the real one answers."""

from __future__ import annotations

import shutil
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.errors import Cancelled
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record_history import DiffDialog
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]
ADA = "private/people/ada.md"


class Observed:
    """Stand-ins for the engine's observed-checkpoint calls, counting what the window asks."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, due: float = 0.3) -> None:
        self.noted = False
        self.enabled = True
        self.flushes = 0
        self.due = due
        me = self

        def observed_due(_self: VaultHistory, now: float) -> float | None:
            assert isinstance(now, float)
            return me.due if me.noted and me.enabled else None

        def flush_observed(_self: VaultHistory) -> None:
            me.flushes += 1
            me.noted = False

        def set_enabled(_self: VaultHistory, on: bool) -> None:
            me.enabled = on

        enabled = property(lambda _self: me.enabled, set_enabled)
        monkeypatch.setattr(VaultHistory, "observed_due", observed_due, raising=False)
        monkeypatch.setattr(VaultHistory, "flush_observed", flush_observed, raising=False)
        monkeypatch.setattr(VaultHistory, "observed_enabled", enabled, raising=False)


def outside_edit(window: MainWindow, kit: VaultKit, observed: Observed, n: int) -> None:
    """A file written by another program, reconciled and applied as the watcher would."""
    vault = window.vault
    assert vault is not None
    rel = f"private/people/p{n}.md"
    kit.page(rel, f"pg_p{n}", f"Person {n}", type="person")
    observed.noted = True  # the engine notes what a reconcile changed
    window.apply_change(vault.reconcile({rel}, source="watcher"))


BURST = 6


def operations(window: MainWindow) -> list[str | None]:
    assert window.vault is not None
    return [c["operation"] for c in window.vault.history.checkpoints()["commits"]]


def noted(window: MainWindow) -> int:
    """Paths the engine noted for the next observed checkpoint."""
    assert window.vault is not None
    return int(window.vault.history.checkpoints()["observed"]["paths"])


def quiet(window: MainWindow) -> bool:
    """Nothing that could still make a checkpoint: the watcher delivered every event, the
    window applied every change and asked for none, nothing is noted, no timer, no flush."""
    vault, watcher = window.vault, window.watcher
    assert vault is not None
    assert watcher is not None
    return (
        watcher.wait_idle(timeout=0.0, quiet_s=0.0)
        and window.settled
        and not (window.observed.timer.isActive() or window.observed.asking or window.observed.flushing)
        and vault.history.observed_due() is None
    )


def test_a_burst_of_outside_edits_is_flushed_once(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """On the real engine and watcher: one outside edit is checkpointed at once; a burst of
    files written by another program within the next few seconds (observed checkpoints are
    at most one every `MIN_INTERVAL`) becomes exactly one more checkpoint holding them all,
    though each file reached the window in a watcher batch (a ChangeSet) of its own."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    window = open_window(kit.root, watch=True)
    qtbot.waitUntil(lambda: operations(window) == ["baseline"], timeout=20_000)
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", body="Edited in another editor.\n")
    qtbot.waitUntil(lambda: operations(window) == ["observed", "baseline"], timeout=30_000)
    for n in range(BURST):
        kit.page(f"private/people/p{n}.md", f"pg_p{n}", f"Person {n}", type="person")
        qtbot.waitUntil(lambda n=n: noted(window) > n or len(operations(window)) > 2, timeout=30_000)
    qtbot.waitUntil(lambda: len(operations(window)) >= 3 and quiet(window), timeout=30_000)
    assert operations(window) == ["observed", "observed", "baseline"]
    vault = window.vault
    assert vault is not None
    newest = vault.history.checkpoints()["commits"][0]["commit"]
    for n in range(BURST):
        assert [v["commit"] for v in vault.history.versions(f"pg_p{n}")] == [newest]


def test_checkpoint_outside_edits_toggles_the_setting(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    observed = Observed(monkeypatch)
    window = open_window(kit.root, watch=False)
    action = window.observed.action
    qtbot.waitUntil(action.isChecked, timeout=5_000)
    action.trigger()
    qtbot.waitUntil(lambda: not observed.enabled, timeout=5_000)
    outside_edit(window, kit, observed, 1)
    wait_idle(qtbot, window)  # the window asked when to checkpoint, and was answered
    assert not window.observed.asking
    assert not window.observed.timer.isActive()
    assert observed.flushes == 0


@pytest.fixture
def as_of(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """A stand-in `engine.asof`: `open_as_of` opens a read-only copy of the vault; what
    it was asked is recorded."""
    calls: dict[str, Any] = {"opened": []}

    def open_as_of(
        root: Path, at: str, *, progress: Any = None, cancel: threading.Event | None = None
    ) -> Vault:
        calls["open"] = (root, at)
        if calls.get("wait_for_cancel"):
            for done in range(1000):
                progress("checkout", done, 1000)
                if cancel is not None and cancel.wait(0.01):
                    raise Cancelled("cancelled")
        copy = tmp_path / f"as-of-{len(calls['opened'])}" / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".knowledge"))
        vault = Vault.open(copy)
        vault.reconcile()
        vault.read_only = True
        vault.as_of = {"commit": at, "at": "2026-11-30T12:00:00Z", "source": "publish"}  # type: ignore[attr-defined]
        calls["opened"].append(vault)
        return vault

    def checkpoint_choices(root: Path, limit: int = 200) -> list[dict[str, Any]]:
        return [{"commit": "c0ffee", "at": "2026-11-30T12:00:00Z", "operation": "edit-body", "author": "ada"}]

    def diff(self: VaultHistory, record_id: str, from_: str | None = None, to: str | None = None) -> str:
        calls["diff"] = (self.root, record_id, from_, to)
        return "@@ -1 +1 @@\n-Ada wrote the first program.\n+Ada wrote the very first program.\n"

    module = types.ModuleType("knowledge_desktop.engine.asof")
    module.open_as_of = open_as_of  # type: ignore[attr-defined]
    module.checkpoint_choices = checkpoint_choices  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "knowledge_desktop.engine.asof", module)
    monkeypatch.setattr(VaultHistory, "diff", diff, raising=False)
    return calls


def test_open_as_of_shows_a_read_only_vault_under_a_banner(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, as_of: dict[str, Any]
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Ada wrote the first program.\n", type="person")
    window = open_window(kit.root, watch=False)
    live = window.vault
    assert live is not None
    window.past.choose()
    dialog = window.past.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.list.isEnabled, timeout=5_000)
    dialog.list.setCurrentRow(0)
    with qtbot.waitSignal(window.loaded, timeout=20_000):
        dialog.accept()
    wait_idle(qtbot, window)
    assert as_of["open"] == (live.root, "c0ffee")
    assert window.vault is as_of["opened"][0]
    banner = window.past
    assert banner.banner.isVisible()
    assert banner.label.text() == "Viewing vault as of 2026-11-30 12:00 UTC — read-only"
    assert "as of" in window.windowTitle()

    window.open_record("pg_ada")  # every pane works on the past vault; writes are off
    qtbot.waitUntil(lambda: (s := window.writes.shown) is not None and s.id == "pg_ada", timeout=20_000)
    assert not any(a.isEnabled() for a in window.writes.actions)
    assert not window.writes.adopt.action.isEnabled()
    assert not window.observed.action.isEnabled()
    assert window.catalog.tree.model().rowCount() > 0

    assert banner.compare.isEnabled()
    banner.compare.trigger()
    compare = banner.dialog
    assert isinstance(compare, DiffDialog)
    qtbot.waitUntil(lambda: compare.word_diff is not None, timeout=10_000)
    assert as_of["diff"] == (live.root, "pg_ada", "c0ffee", "now")  # asked of the LIVE vault
    assert compare.word_diff is not None
    assert compare.word_diff.added == ["very"]
    compare.close()

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        banner.back_button.click()
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == kit.root
    assert getattr(window.vault, "as_of", None) is None
    assert not banner.banner.isVisible()
    assert window.opener.recent_vaults()[0] == str(kit.root)  # the copy was never remembered


def test_opening_as_of_can_be_cancelled(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, as_of: dict[str, Any]
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    window = open_window(kit.root, watch=False)
    live = window.vault
    as_of["wait_for_cancel"] = True
    window.past.open("2026-11-30", "2026-11-30")
    qtbot.waitUntil(window.opener.cancel_button.isVisible, timeout=5_000)
    assert "Checkout" in window.opener.progress.format()
    window.opener.cancel_button.click()
    wait_idle(qtbot, window)
    assert window.vault is live
    assert not window.past.banner.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()


def test_closing_the_window_in_a_past_view_closes_the_live_vault_too(
    qtbot: QtBot,
    open_window: OpenWindow,
    kit: VaultKit,
    as_of: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    window = open_window(kit.root, watch=False)
    live = window.vault
    assert live is not None
    closed: list[Vault] = []
    real_close = Vault.close
    monkeypatch.setattr(Vault, "close", lambda self: (closed.append(self), real_close(self))[1])
    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.past.open("c0ffee", "2026-11-30")
    wait_idle(qtbot, window)
    assert live not in closed  # kept open behind the past view, for Compare with Now
    window.close()
    assert live in closed
    assert as_of["opened"][0] in closed


def test_the_as_of_dialog_offers_a_day_or_a_checkpoint(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, as_of: dict[str, Any]
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    window = open_window(kit.root, watch=False)
    window.past.choose()
    dialog = window.past.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.list.isEnabled, timeout=5_000)
    day = QDate.currentDate().addDays(-30)
    dialog.date.setDate(day)
    assert dialog.chosen() == (day.toString("yyyy-MM-dd"),) * 2
    dialog.list.setCurrentRow(0)
    assert dialog.chosen() == ("c0ffee", "2026-11-30 12:00 UTC")
    dialog.reject()
