"""Process-wide settings the window makes for its worker threads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui import process


def test_the_window_process_is_tuned_for_threads() -> None:
    process.tune_for_window()
    assert sys.getswitchinterval() == pytest.approx(process.SWITCH_INTERVAL_S)
    if sys.platform.startswith("linux"):
        assert process.limit_malloc_arenas(process.MALLOC_ARENAS)


def test_the_window_lets_go_of_the_module_sources_pyside_read(qtbot: QtBot, tmp_path: Path) -> None:
    """PySide6's import hook reads every module's source after it into `linecache`
    (14 MiB in the window); the window drops them once its modules are imported."""
    import linecache

    from knowledge_desktop.ui.main_window import MainWindow

    assert linecache.getline(process.__file__, 1)  # a source read, as PySide6's hook reads them
    assert process.__file__ in linecache.cache
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    assert process.__file__ not in linecache.cache
    window.close()
