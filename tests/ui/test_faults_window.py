"""The window when the vault's folder or state fails under it: a message, never the crash
dialog, and the panes keep what they showed (ARCHITECTURE.md, vault layout; spec:
retrieval-and-dates, keeping state.sqlite)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.store import db as db_module
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui import opening
from knowledge_desktop.ui.main_window import MainWindow
from tests import faultkit as fk
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]


@pytest.fixture
def vault(kit: VaultKit) -> VaultKit:
    fk.make_vault(kit.root, 40, seed=4, body_max=300)
    return kit


@pytest.fixture
def crashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Tracebacks that would have reached the crash dialog (none may)."""
    shown: list[str] = []
    monkeypatch.setattr(MainWindow, "show_crash", lambda self, trace: shown.append(trace))
    return shown


@pytest.mark.parametrize("how", ["deleted", "moved"])
def test_a_vault_folder_gone_while_open_stops_live_updates_with_a_message(
    qtbot: QtBot, open_window: OpenWindow, vault: VaultKit, crashes: list[str], tmp_path: Path, how: str
) -> None:
    """Deleted or moved away under the window: the real watcher notices, the status bar and
    the live label say what happened, and the catalog keeps its rows."""
    window = open_window(vault.root)
    summary = window.summary.text()
    with qtbot.waitSignal(window.relay.gone, timeout=15_000) as gone:
        if how == "deleted":
            shutil.rmtree(vault.root)
        else:
            vault.root.rename(tmp_path / "moved-away")
    assert "moved, deleted or unmounted" in gone.args[1]
    wait_idle(qtbot, window)
    assert window.watcher is None
    assert window.watch_state.text() == "⚠ Not live"
    assert "moved, deleted or unmounted" in window.statusBar().currentMessage()
    if how == "moved":
        assert window.summary.text() == summary
    assert crashes == []


def test_a_state_folder_deleted_while_open_is_written_back_and_said(
    qtbot: QtBot, open_window: OpenWindow, vault: VaultKit, crashes: list[str]
) -> None:
    """`.knowledge/` removed under the window: the next change brings the message, and the
    state is back on disk (written from the open database)."""
    window = open_window(vault.root)
    shutil.rmtree(vault.root / ".knowledge")
    with qtbot.waitSignal(window.relay.gone, timeout=15_000) as gone:
        vault.page("private/notes/after.md", "pg_after", "Written after the deletion")
    assert "written back" in gone.args[1]
    assert (vault.root / ".knowledge" / "state.sqlite").exists()
    assert window.watch_state.text() == "⚠ Not live"
    assert crashes == []


@pytest.fixture
def lock_holder(vault: VaultKit, monkeypatch: pytest.MonkeyPatch) -> Iterator[subprocess.Popen[str]]:
    with Vault.open(vault.root) as opened:
        opened.reconcile()
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)
    with fk.lock_held(vault.root / ".knowledge" / "state.sqlite") as holder:
        yield holder


def test_a_state_database_locked_elsewhere_is_a_message_naming_the_holder(
    qtbot: QtBot,
    open_window: OpenWindow,
    vault: VaultKit,
    lock_holder: subprocess.Popen[str],
    crashes: list[str],
) -> None:
    """Another program holds the write lock while the window checks for changes: the status
    bar names it, instead of the crash dialog."""
    vault.page("private/notes/changed.md", "pg_changed", "Changed while closed")
    window = open_window(vault.root, watch=False)
    qtbot.waitUntil(lambda: "is locked by another program" in window.statusBar().currentMessage())
    assert f"pid {lock_holder.pid}" in window.statusBar().currentMessage()
    assert crashes == []


def test_a_full_disk_while_opening_is_a_message(
    qtbot: QtBot, vault: VaultKit, settings: Any, monkeypatch: pytest.MonkeyPatch, crashes: list[str]
) -> None:
    """The first index hits a full disk (SQLite's max_page_count): "Cannot open vault" with
    the reason, nothing half-written, and the window stays usable."""
    real_open = Vault.open

    def full_disk_open(path: Any) -> Vault:
        opened = real_open(path)
        writer = opened.store._writer
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count={pages}")
        return opened

    monkeypatch.setattr(opening.Vault, "open", staticmethod(full_disk_open))
    boxes: list[str] = []
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: boxes.append(a[-1])))
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.load_failed, timeout=30_000) as failed:
        window.open_vault(vault.root)
    assert "the disk is full" in failed.args[0]
    assert boxes == [failed.args[0]]
    assert window.vault is None
    assert crashes == []
    window.close()


def test_a_read_only_vault_says_so_in_the_title(
    qtbot: QtBot, open_window: OpenWindow, vault: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vault the user cannot write to opens, with its state in the cache folder, and the
    window's title says read-only."""
    real_access = os.access

    def access(path: Any, mode: int, **kw: Any) -> bool:
        if mode & os.W_OK and str(path).startswith(str(vault.root)):
            return False
        return real_access(path, mode, **kw)

    monkeypatch.setattr(os, "access", access)
    window = open_window(vault.root, watch=False)
    assert window.vault is not None
    assert window.vault.read_only
    assert "(read-only)" in window.windowTitle()


def test_a_damaged_state_page_met_by_a_pane_is_repaired_without_reopening(
    qtbot: QtBot,
    open_window: OpenWindow,
    vault: VaultKit,
    settings: Any,
    crashes: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A catalog page of state.sqlite overwritten while the vault was closed (the open-time
    check reads only the durable tables): the first pane that meets it gets its answer from
    the rebuilt index, the status bar says the file was set aside, and nothing asks to reopen
    the vault (issue 24; docs/decisions.md, damaged state)."""
    from PySide6.QtWidgets import QMessageBox

    with Vault.open(vault.root) as opened:
        opened.reconcile()
        records = opened.counts()["records"]
    path = vault.root / ".knowledge" / "state.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    leaves = [
        p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name='catalog' AND pagetype='leaf'")
    ]
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((sorted(leaves)[len(leaves) // 2] - 1) * 4096)
        handle.write(b"\xff" * 4096)
    boxes: list[str] = []
    for name in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(lambda *a: boxes.append(str(a[-1]))))
    messages: list[str] = []
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    window.statusBar().messageChanged.connect(messages.append)
    window.open_vault(vault.root)
    qtbot.waitUntil(lambda: any("set aside" in m or "reopen" in m for m in messages), timeout=30_000)
    wait_idle(qtbot, window)
    assert [m for m in messages if "reopen" in m] == []
    assert any("set aside" in m for m in messages)
    assert f"{records} records" in window.summary.text()
    assert boxes == []
    assert crashes == []
    assert any(p.name.startswith("state.sqlite.corrupt-") for p in path.parent.iterdir())
    window.close()
