"""The window follows outside edits: watcher → reconcile → ChangeSet → panes (issue 5)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.conftest import wait_idle
from tests.vaultkit import VaultKit

OpenWindow = Callable[[Path], MainWindow]


def test_a_file_saved_by_another_program_reaches_the_window(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    assert window.watch_state.text() == "● Live"
    assert "1 records" in window.summary.text()
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
