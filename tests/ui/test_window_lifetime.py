"""A closed window leaves no Qt object for Python's cycle collector to destroy.

CPython collects cycles in whichever thread allocates when a threshold is crossed,
usually a worker here. A Qt object that Python owns (one made without a parent) and
that only a cycle keeps would be destroyed on that worker, which Qt forbids: the UI
thread may be delivering a queued signal to it at that moment. A core dump of the
window tests showed exactly that (a queued call handed to a freed receiver while a
worker collected). So every Qt object a window makes must belong to the window, and
go when the window goes, on the UI thread.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.repokit import RepoKit
from tests.ui.lifetime import made_since, python_owned_qt_objects
from tests.vaultkit import VaultKit, wait_idle


def open_and_close(qtbot: QtBot, settings: QSettings, vault: Path, use: Callable[[MainWindow], None]) -> None:
    """Open a window on `vault`, `use` it, close and delete it; then no Qt object it made
    may be left for the collector."""
    gc.collect()
    before = python_owned_qt_objects()
    window = MainWindow(settings=settings, watch=True)
    window.show()
    with qtbot.waitSignal(window.loaded, timeout=30_000):
        window.open_vault(vault)
    wait_idle(qtbot, window)
    use(window)
    wait_idle(qtbot, window)
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    del window
    left = made_since(before)
    del before
    assert left == [], (
        f"Qt objects that only Python keeps, to be destroyed by whichever thread collects: {left}"
    )


def test_browsing_leaves_no_qt_object_that_python_owns(
    qtbot: QtBot, kit: VaultKit, settings: QSettings
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.claim("private/claims/ada.md", "cl_ada", "Ada wrote notes", "Notes on the engine.\n")

    def browse(window: MainWindow) -> None:
        window.open_record("pg_ada")  # the record pane builds its tabs (Facts among them)
        wait_idle(qtbot, window)
        window.open_record("cl_ada")
        window.search.set_query("engine")
        window.search.quick_switch(window)
        wait_idle(qtbot, window)
        assert window.search.switcher is not None
        window.search.switcher.hide()

    open_and_close(qtbot, settings, kit.root, browse)


def test_settings_dialogs_and_a_repository_leave_no_qt_object_that_python_owns(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, tmp_path: Path
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    rk = RepoKit(tmp_path / "docs-repo")
    rk.write("adr/0001-use-json.md", "# 1. Use JSON\n\nDate: 2023-01-10\n\n## Status\n\nAccepted\n")
    rk.commit("docs: first decision")

    def use(window: MainWindow) -> None:
        window.repository.add_repository(rk.root)
        wait_idle(qtbot, window)
        for action, opened in (("knowledge", "knowledge_dialog"), ("view_changes", "changes_dialog")):
            getattr(window.commands, action).trigger()
            dialog = getattr(window.commands, opened)
            wait_idle(qtbot, window)
            dialog.reject()

    open_and_close(qtbot, settings, kit.root, use)
