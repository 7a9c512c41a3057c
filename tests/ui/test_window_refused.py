"""The window refuses a folder no vault can be as the CLI does (issue 24, item 3): one
message, and nothing written there nor to the list of recent vaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit


def test_the_home_folder_gets_a_message_and_nothing_is_written(
    qtbot: QtBot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home" / "ada"
    VaultKit(home).page("notes/a.md", "pg_a", "A")  # it holds Markdown: it would open
    monkeypatch.setenv("HOME", str(home))
    before = sorted(p.name for p in home.iterdir())
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text: shown.append(text)))
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.load_failed, timeout=20_000):
        window.open_vault(home)
    assert len(shown) == 1
    assert "is your home folder" in shown[0]
    assert "Traceback" not in shown[0]
    assert window.vault is None
    assert sorted(p.name for p in home.iterdir()) == before
    assert window.opener.recent_vaults() == []
    window.close()
