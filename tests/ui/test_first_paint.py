"""An indexed vault is shown before its watcher starts (issue 26 §1: first paint).

Starting the watcher walks every folder of the vault (half a second at 100k files);
a vault shown from its index no longer waits for it. The watcher starts on a worker
once the window has the vault, and the freshness check follows it, so no edit is
missed. A vault read in full still starts its watcher before the read.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.fs.watch import VaultWatcher
from knowledge_desktop.ui import opening
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, wait_idle


def _recorded(monkeypatch: pytest.MonkeyPatch, events: list[str]) -> list[VaultWatcher]:
    """Record each watcher start in `events`; the watchers started, in order."""
    started: list[VaultWatcher] = []
    real = opening.start_watching

    def start(vault: Any, relay: Any, **options: Any) -> VaultWatcher:
        events.append(f"watch {Path(vault.root).name}")
        watcher = real(vault, relay, **options)
        started.append(watcher)
        return watcher

    monkeypatch.setattr(opening, "start_watching", start)
    return started


def _window(qtbot: QtBot, settings: QSettings, events: list[str]) -> MainWindow:
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.loaded.connect(lambda: events.append(f"loaded {window.vault.root.name if window.vault else ''}"))
    return window


def _index(qtbot: QtBot, settings: QSettings, root: Path) -> None:
    first = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(first)
    with qtbot.waitSignal(first.loaded, timeout=30_000):
        first.open_vault(root)
    wait_idle(qtbot, first)
    first.close()


def test_an_indexed_vault_is_shown_before_its_watcher_starts_and_then_goes_live(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    _index(qtbot, settings, kit.root)
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")  # while closed
    events: list[str] = []
    started = _recorded(monkeypatch, events)
    window = _window(qtbot, settings, events)
    with qtbot.waitSignal(window.change_applied, timeout=30_000) as caught:
        window.open_vault(kit.root)
    assert caught.args[0].added == ["pg_bob"]  # the freshness check ran after the watcher
    wait_idle(qtbot, window)
    name = kit.root.name
    assert events == [f"loaded {name}", f"watch {name}"]
    assert window.watcher is started[0]
    assert window.watch_state.text() == "● Live"
    with qtbot.waitSignal(window.change_applied, timeout=10_000) as live:
        kit.page("private/people/cy.md", "pg_cy", "Cy", type="person")
    assert live.args[0].added == ["pg_cy"]
    wait_idle(qtbot, window)
    window.close()
    assert started[0].state.mode == "stopped"


def test_a_vault_read_in_full_is_watched_before_it_is_read(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    events: list[str] = []
    started = _recorded(monkeypatch, events)
    window = _window(qtbot, settings, events)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(kit.root)
    wait_idle(qtbot, window)
    assert events == [f"watch {kit.root.name}", f"loaded {kit.root.name}"]
    assert window.watcher is started[0]
    window.close()


def test_a_watcher_that_starts_after_another_vault_was_opened_is_stopped(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    _index(qtbot, settings, kit.root)
    other = VaultKit(tmp_path / "other")
    other.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    release = threading.Event()
    events: list[str] = []
    started: list[VaultWatcher] = []
    real = opening.start_watching

    def start(vault: Any, relay: Any, **options: Any) -> VaultWatcher:
        if vault.root == kit.root:
            assert release.wait(30)  # the first vault's watcher starts late
        watcher = real(vault, relay, **options)
        started.append(watcher)
        return watcher

    monkeypatch.setattr(opening, "start_watching", start)
    window = _window(qtbot, settings, events)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(kit.root)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(other.root)  # read in full: its watcher starts before it is shown
    release.set()
    wait_idle(qtbot, window)
    late = started[-1]  # the other vault's watcher started first, while it was read
    assert late.root.name == kit.root.name
    assert late.state.mode == "stopped"
    assert window.watcher is not None
    assert window.watcher is not late
    assert window.vault is not None
    assert window.vault.root.name == "other"
    window.close()
    other.close()
