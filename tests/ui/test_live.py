"""The window follows outside edits: watcher → reconcile → ChangeSet → panes (issue 5)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


def test_a_file_saved_by_another_program_reaches_the_window(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    assert window.watch_state.text() == "● Live"
    assert window.summary.text().startswith("1 record · ")
    with qtbot.waitSignal(window.change_applied, timeout=10_000) as blocker:
        kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    assert blocker.args[0].added == ["pg_bob"]
    qtbot.waitUntil(lambda: "2 records" in window.summary.text(), timeout=10_000)
    wait_idle(qtbot, window)


def test_the_event_log_has_one_line_per_applied_change(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, tmp_path: Path
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    log = tmp_path / "events.jsonl"
    window = MainWindow(settings=settings, event_log=log)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(kit.root)
    with qtbot.waitSignal(window.change_applied, timeout=10_000):
        (kit.root / "private/people/ada.md").unlink()
    wait_idle(qtbot, window)
    window.close()
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert [line["source"] for line in lines] == ["scan", "watcher"]
    assert lines[0]["added"] == ["pg_ada"]
    assert lines[1]["removed"] == ["pg_ada"]
    assert lines[1]["paths"] == ["private/people/ada.md"]
    assert set(lines[1]) == {"t", "paths", "added", "changed", "removed", "source"}
    assert lines[0]["t"] <= lines[1]["t"]


def test_closing_the_window_stops_the_watcher(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    import threading

    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    watcher = window.watcher
    assert watcher is not None
    window.close()
    assert watcher.state.mode == "stopped"
    assert not [t for t in threading.enumerate() if t.name.startswith("knowledge-watch")]


def test_opening_can_be_cancelled_while_files_are_read(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, monkeypatch: object
) -> None:
    """Cancel during the first read: nothing is opened, no error box, a status message says so."""
    from PySide6.QtWidgets import QMessageBox

    from knowledge_desktop.engine import reconcile

    boxes: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: boxes.append(a[-1])))  # type: ignore[attr-defined]
    monkeypatch.setattr(reconcile, "BATCH", 8)  # type: ignore[attr-defined]
    for n in range(400):
        kit.page(f"private/notes/n{n}.md", f"pg_{n}", f"Note {n}", type="note")
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    seen: list[tuple[str, int, int]] = []

    def on_progress(stage: str, done: int, total: int) -> None:
        seen.append((stage, done, total))
        if stage == "reading" and done >= 80:
            window.opener.cancel_button.click()

    window.relay.progress.connect(on_progress)
    with qtbot.waitSignal(window.load_failed, timeout=30_000):
        window.open_vault(kit.root)
    wait_idle(qtbot, window)
    assert window.vault is None
    assert boxes == []
    assert "cancelled" in window.statusBar().currentMessage()
    assert seen[0][0] == "reading"
    assert seen[0][2] == 400
    assert not window.opener.progress.isVisible()
    window.close()


def test_progress_is_shown_while_a_vault_is_first_read(
    qtbot: QtBot, kit: VaultKit, settings: QSettings
) -> None:
    for n in range(300):
        kit.page(f"private/notes/n{n}.md", f"pg_{n}", f"Note {n}", type="note")
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    shown: list[str] = []
    window.relay.progress.connect(lambda *_: shown.append(window.opener.progress.format()))
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(kit.root)
    wait_idle(qtbot, window)
    assert "Reading %v of %m files" in shown
    assert not window.opener.progress.isVisible()
    window.close()


def test_an_indexed_vault_shows_at_once_and_then_catches_up(
    qtbot: QtBot, kit: VaultKit, settings: QSettings
) -> None:
    """Reopening shows the saved index first; files changed while the app was closed arrive as a change."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    first = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(first)
    with qtbot.waitSignal(first.loaded, timeout=30_000):
        first.open_vault(kit.root)
    wait_idle(qtbot, first)
    first.close()
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")  # while closed
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.change_applied, timeout=30_000) as caught:
        window.open_vault(kit.root)
    assert caught.args[0].added == ["pg_bob"]
    wait_idle(qtbot, window)
    assert "2 records" in window.summary.text()
    assert "1 file changed since last time" in window.statusBar().currentMessage()
    window.close()


def test_freed_heap_goes_back_once_the_panes_are_quiet(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from knowledge_desktop.ui import main_window

    returned: list[bool] = []
    monkeypatch.setattr(
        main_window,
        "return_free_heap",
        lambda: returned.append(threading.current_thread() is threading.main_thread()),
    )
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    window._heap_timer.setInterval(50)
    qtbot.waitUntil(lambda: len(returned) == 1, timeout=10_000)  # after opening
    with qtbot.waitSignal(window.change_applied, timeout=10_000):
        kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    assert window._heap_timer.isActive()  # not while the panes reload
    qtbot.waitUntil(lambda: len(returned) == 2, timeout=10_000)
    assert returned == [False, False]  # on a worker, never the UI thread


def test_changes_in_quick_succession_reach_the_other_panes_once_per_interval(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root, watch=False)
    vault = window.vault
    assert vault is not None
    refreshed: list[int] = []
    window.timeline.apply_change = lambda change: refreshed.append(len(change.paths))  # type: ignore[method-assign]
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    window.apply_change(vault.reconcile(["private/people/bob.md"]))
    assert refreshed == [1]  # the first change of a quiet window goes through at once
    for name in ("cy", "di"):
        kit.page(f"private/people/{name}.md", f"pg_{name}", name.title(), type="person")
        window.apply_change(vault.reconcile([f"private/people/{name}.md"]))
    assert refreshed == [1]  # held while the interval runs
    assert not window.settled
    qtbot.waitUntil(lambda: window.settled, timeout=10_000)
    assert refreshed == [1, 1, 1]  # then both, together (their requests are keyed: one runs)
    qtbot.waitUntil(lambda: "4 records" in window.summary.text(), timeout=10_000)
