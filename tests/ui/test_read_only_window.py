"""Browsing in the window writes nothing: opening, scanning, searching, following links,
backlinks, the timeline and diagnostics, showing the source, exporting a report outside
the vault and closing leave every vault file's bytes and mtime as they were, and add no
file outside `.knowledge/` (issue 13 §3; the CLI's counterpart is
`tests/test_read_only_browsing.py`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QUrl
from PySide6.QtWidgets import QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.tree_model import OPEN_KEY_ROLE
from tests.ui.textkit import char_formats
from tests.vaultkit import LINKS_NOTE, VaultKit, file_state, hostile_vault, wait_idle

OpenWindow = Callable[..., MainWindow]
DEMO_PAGE = "pg_01KT13TQ40VBJ1VN"  # Mira Castellanos: links, backlinks and a timeline


def first_key(model: QAbstractItemModel, parent: QModelIndex | None = None) -> QModelIndex | None:
    """The first row (depth first) that opens a record."""
    parent = parent or QModelIndex()
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if index.data(OPEN_KEY_ROLE):
            return index
        found = first_key(model, index)
        if found is not None:
            return found
    return None


def moved(qtbot: QtBot, window: MainWindow, go: Callable[[], None]) -> str:
    """Run `go`, wait for the window to open a record and settle; the record's path."""
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        go()
    path = window.current_path or ""
    qtbot.waitUntil(
        lambda: window.record.loaded is not None and window.record.loaded.path == path, timeout=10_000
    )
    wait_idle(qtbot, window)
    return path


def browse(
    qtbot: QtBot, window: MainWindow, start: str, words: str, report: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """Everything a person does to read a vault in the window; the records visited."""
    visited = [moved(qtbot, window, lambda: window.open_record(start))]
    qtbot.keyClicks(window.search.field, words)
    qtbot.waitUntil(lambda: window.search.model.rowCount() > 0, timeout=10_000)
    results = window.search.results
    visited.append(moved(qtbot, window, lambda: results.activated.emit(results.model().index(0, 0))))
    visited.append(moved(qtbot, window, lambda: window.open_record(start)))
    links = [h for h in record_links(window) if h.startswith("record:")]
    assert links, "the start record links to another"
    browser = window.record.browser
    visited.append(moved(qtbot, window, lambda: browser.anchorClicked.emit(QUrl(links[0]))))
    for pane in (window.backlinks, window.timeline):
        visited.append(moved(qtbot, window, lambda: window.open_record(start)))
        qtbot.waitUntil(lambda pane=pane: first_key(pane.model) is not None, timeout=10_000)
        index = first_key(pane.model)
        visited.append(moved(qtbot, window, lambda pane=pane, index=index: pane.tree.activated.emit(index)))
    table = window.diagnostics.table
    qtbot.waitUntil(lambda: table.model().rowCount() > 0, timeout=10_000)
    visited.append(moved(qtbot, window, lambda: table.doubleClicked.emit(table.model().index(0, 0))))
    window.record.show_source()
    window.record.show_source()
    window.go_back()
    window.go_forward()
    wait_idle(qtbot, window)

    def save_as(_parent: QWidget, _caption: str, _suggested: str, *_filters: str) -> tuple[str, str]:
        return str(report), "HTML report (*.html *.htm)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    window.export_diagnostics()
    qtbot.waitUntil(report.exists, timeout=10_000)
    wait_idle(qtbot, window)
    window.close()
    return visited


def record_links(window: MainWindow) -> list[str]:
    return [fmt.anchorHref() for fmt in char_formats(window.record.browser.document()) if fmt.isAnchor()]


def test_browsing_the_demo_vault_in_the_window_writes_nothing(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Browsing: the demo vault (watched, as in normal use) keeps every file's bytes and
    mtime, and gains no file but `.knowledge/`; the report lands outside it."""
    vault = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), vault, ignore=shutil.ignore_patterns(".knowledge"))
    before = file_state(vault)
    window = open_window(vault)
    visited = browse(qtbot, window, DEMO_PAGE, "field trial", tmp_path / "report.html", monkeypatch)
    assert len(set(visited)) >= 4  # links, search, backlinks, timeline and diagnostics led on
    assert file_state(vault) == before
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_browsing_a_hostile_vault_in_the_window_writes_nothing(
    qtbot: QtBot,
    open_window: OpenWindow,
    kit: VaultKit,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Browsing: the hostile vault, and the folder outside it that its links, evidence and
    manifests point at, are left exactly as they were."""
    hostile = hostile_vault(kit, tmp_path / "outside")
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", body="See [[notes/links-out]].\n"
    )
    kit.claim("private/claims/dated.md", "cl_dated", "Ada met", entities=["pg_ada"], occurred_at="2026-09-28")
    before, outside = file_state(kit.root), file_state(hostile.outside)
    window = open_window(kit.root)
    visited = browse(qtbot, window, "pg_ada", "script", tmp_path / "report.html", monkeypatch)
    assert LINKS_NOTE in visited
    assert file_state(kit.root) == before
    assert file_state(hostile.outside) == outside
