"""Window fixtures: a MainWindow with its own settings file, opened on a vault."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.lifetime import (
    TEST_SCOPED,
    delete_queued,
    made_since,
    python_owned_qt_objects,
    settle_deletions,
)
from tests.vaultkit import wait_idle


@pytest.fixture(autouse=True)
def nothing_left_for_the_collector(qapp: object) -> Iterator[None]:
    """Every window test checks that the Qt objects it made went with their owner: once its
    windows are deleted, none is left that only Python holds, waiting for a collection
    (see tests/ui/lifetime.py for why that matters). Looked at before collecting: the
    collection would delete them, here safely, and hide them."""
    settle_deletions()
    before = python_owned_qt_objects()
    yield
    delete_queued()
    left = made_since(before, TEST_SCOPED)
    del before  # released here, on the UI thread
    gc.collect()
    assert not left, f"Qt objects only Python holds, for any thread's collector to destroy: {left}"


@pytest.fixture(autouse=True)
def no_modal_message_box(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message box nobody answers would hold a window test forever (an empty folder
    opened as a vault did, until the CI limit): here it fails the test with its text.
    A test that expects a box patches it again for itself."""

    def unexpected(*args: object) -> None:
        text = [a for a in args if isinstance(a, str)]
        pytest.fail(f"unexpected message box: {' — '.join(text)}")

    for name in ("warning", "critical", "question", "information", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(unexpected))


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
    # Delete the closed windows now, on this thread (`nothing_left_for_the_collector` then
    # checks they left nothing and collects). Left to chance, a collection triggered by a
    # later test's worker would destroy whatever Qt object only Python still held, on the
    # wrong thread (tests/ui/test_window_lifetime.py says why that crashed).
    delete_queued()
