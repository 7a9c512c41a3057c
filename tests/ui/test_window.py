"""The plain window: opens a vault off the UI thread and lists its records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit


def test_the_window_lists_the_records_of_a_vault(qtbot: QtBot, kit: VaultKit) -> None:
    """Opening a vault fills the records table and the status bar summary."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.claim("private/claims/c.md", "cl_1", "Ada likes tea", entities=["pg_ada"])
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.open_vault(kit.root)
    titles = {window.model.row_at(i)["title"] for i in range(window.model.rowCount())}
    assert titles == {"Ada Lovelace", "Ada likes tea"}
    assert "2 records" in window.summary.text()
    window.close()


def test_a_bad_path_reports_a_message_not_a_traceback(
    qtbot: QtBot, tmp_path: Path, monkeypatch: object
) -> None:
    """Opening a folder that is not a vault shows a clear message."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(
        QMessageBox,
        "warning",  # type: ignore[attr-defined]
        staticmethod(lambda _parent, _title, text: shown.append(text)),
    )
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.load_failed, timeout=20_000):
        window.open_vault(tmp_path / "missing")
    assert shown == [f"no such folder: {tmp_path / 'missing'}"]
    window.close()


def test_screenshot_option_renders_the_demo_vault(tmp_path: Path) -> None:
    """`knowledge-desktop --screenshot` opens the bundled demo vault and writes a PNG."""
    target = tmp_path / "shot.png"
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.ui.app", "--screenshot", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert demo_vault_path().is_dir()


def test_invalid_records_are_marked(qtbot: QtBot, kit: VaultKit) -> None:
    """Invalid records are visibly different in the list, with a tooltip saying why."""
    from PySide6.QtCore import Qt

    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/people/bad.md", "pg_bad", "Bad", type="spaceship")
    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.open_vault(kit.root)
    model = window.model
    rows = {model.row_at(i)["title"]: i for i in range(model.rowCount())}
    bad = model.index(rows["Bad"], 0)
    good = model.index(rows["Ada"], 0)
    assert model.data(bad, Qt.ItemDataRole.ForegroundRole) is not None
    assert model.data(good, Qt.ItemDataRole.ForegroundRole) is None
    assert "invalid" in model.data(bad, Qt.ItemDataRole.ToolTipRole)
    window.close()
