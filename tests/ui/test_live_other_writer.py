"""A record published by another process (`knowledge new`, `knowledge edit-body`, run here as
real subprocesses) while the window is open: that process writes the file and the shared
index rows, so the window's reconcile of the file finds its rows in place; the panes must
follow all the same."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_live_panes import joined
from tests.vaultkit import VaultKit, wait_idle

NOTE = """---
format: knowledge-record-v1
kind: page
title: Written elsewhere
scope: private
type: note
---
# Written elsewhere
"""


def knowledge(*args: str | Path) -> dict[str, Any]:
    """`knowledge ARGS --json` in a process of its own (this worktree's code, the test's user
    folders: both inherited); its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", *map(str, args), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:] or done.stdout[-2000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_a_record_another_process_publishes_reaches_the_catalog_and_the_counts(
    qtbot: QtBot, open_window: Callable[[Path], MainWindow], kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    assert window.summary.text().startswith("1 record · ")
    (kit.root.parent / "note.md").write_text(NOTE)
    knowledge("new", kit.root, "--from", kit.root.parent / "note.md")
    qtbot.waitUntil(lambda: "2 records" in window.summary.text(), timeout=10_000)
    # the catalog's type branches (collapsed): a `note` branch with one record appears
    qtbot.waitUntil(
        lambda: (wait_idle(qtbot, window) or True) and "note\n1" in joined(window.catalog.model),
        timeout=10_000,
    )


def test_an_edit_another_process_publishes_reaches_the_record_shown_and_the_search(
    qtbot: QtBot, open_window: Callable[[Path], MainWindow], kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", "Ada wrote the first program.\n", type="person")
    window = open_window(kit.root)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("pg_ada")
    shown = knowledge("show", kit.root, "pg_ada")
    (kit.root.parent / "body.md").write_text("The countess wrote the first program.\n")
    fence = f"pg_ada:{shown['revision']}:{shown['hash']}"
    knowledge("edit-body", kit.root, fence, "--from", kit.root.parent / "body.md")
    qtbot.waitUntil(lambda: "The countess wrote" in window.record.browser.toPlainText(), timeout=10_000)
    window.search.set_query("countess")
    qtbot.waitUntil(lambda: "Ada" in joined(window.search.model), timeout=10_000)
