"""Window fixtures: a MainWindow with its own settings file, opened on a vault."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import wait_idle


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """Settings in a temporary INI file, so tests never read or write the user's."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def open_window(qtbot: QtBot, settings: QSettings) -> Iterator[Callable[..., MainWindow]]:
    """`open_window(vault_path, watch=True)` → a shown MainWindow with that vault loaded.

    `watch=False` leaves the watcher off, so a test decides when a change is applied."""
    windows: list[MainWindow] = []

    def make(path: Path, watch: bool = True) -> MainWindow:
        window = MainWindow(settings=settings, watch=watch)
        qtbot.addWidget(window)
        window.show()
        with qtbot.waitSignal(window.loaded, timeout=30_000):
            window.open_vault(path)
        wait_idle(qtbot, window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        window.deleteLater()
    windows.clear()
    # Delete the closed windows now, on this thread, and collect their wrappers' cycles
    # while no worker runs. Left to chance, a collection triggered by a later test's worker
    # would destroy whatever Qt object only Python still held there, on the wrong thread
    # (tests/ui/test_window_lifetime.py says why that crashed).
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
