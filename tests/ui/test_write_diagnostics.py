"""After each kind of write, the window's diagnostics show no `write-interrupted` (issue 29, §1).

A publish reconciles the files it wrote before it marks its journal entry published. The window
was handed that reconcile's ChangeSet at once, and its panes refreshed from it on workers while
the entry was still pending: the diagnostics pane showed the write as interrupted (the status
bar counted an error) and kept it, since nothing changed after. Here each write is held at that
step (the publish path's `STEP` seam, "reconciled") until the window has done all it was asked
to so far — every queued event handled, every worker but the write's own done — so whatever the
window reads mid-write it reads there; the write then finishes, and the diagnostics pane must
hold no `write-interrupted` row, the status bar no error, and Activity the entry published. The
writes run through what the window's actions call (`write_ops.publish`, `adopt_action.adopt`;
`new` through `Vault.new_record`, the publish path a New… form will use).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import lifecycle, publish
from knowledge_desktop.ui import adopt_action, write_ops
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, fence_of, wait_idle

OpenWindow = Callable[..., MainWindow]

NEW_PAGE = """---
kind: page
title: Written in the window
scope: private
type: note
---
A new page.
"""


class MidWrite:
    """Holds a publish at its "reconciled" step (files written and reconciled, its entry still
    pending) until the test, on the UI thread, lets it go."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def step(self, name: str) -> None:
        if name == "reconciled":
            self.reached.set()
            self.release.wait(30)


@pytest.fixture
def mid_write(monkeypatch: pytest.MonkeyPatch) -> Iterator[MidWrite]:
    held = MidWrite()
    monkeypatch.setattr(publish, "STEP", held.step)
    yield held
    held.release.set()


def operation(verb: str, fences: dict[str, str], call: write_ops.Call) -> write_ops.Operation:
    return write_ops.Operation(verb, verb, fences, call)


def writes(vault: Vault) -> list[tuple[str, Callable[[], object]]]:
    """Each kind of write, as the window's actions make it (fences read when it runs)."""

    def withdraw() -> object:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.withdraw(write, fences["pg_gone"], reason)

        return write_ops.publish(
            vault, operation("Withdraw", {"pg_gone": fence_of(vault, "pg_gone")}, call), "r"
        )

    def supersede() -> object:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.supersede(write, fences["cl_new"], [fences["cl_old"]], reason)

        fences = {k: fence_of(vault, k) for k in ("cl_old", "cl_new")}
        return write_ops.publish(vault, operation("Supersede", fences, call), "newer")

    def merge() -> object:
        def call(write: lifecycle.Write, fences: dict[str, str], reason: str) -> dict[str, Any]:
            return lifecycle.merge(write, fences["pg_ada"], fences["pg_ada2"], reason)

        fences = {k: fence_of(vault, k) for k in ("pg_ada", "pg_ada2")}
        return write_ops.publish(vault, operation("Merge", fences, call), "one person")

    def adopt() -> object:
        dry = adopt_action.dry_run(vault, None).result
        assert isinstance(dry, dict), dry
        return adopt_action.adopt(vault, dry)

    return [
        ("adopt", adopt),
        ("new", lambda: vault.new_record(NEW_PAGE)),
        ("supersede", supersede),
        ("withdraw", withdraw),
        ("merge", merge),
    ]


def test_the_diagnostics_show_no_write_interrupted_after_each_kind_of_write(
    qtbot: QtBot,
    open_window: OpenWindow,
    kit: VaultKit,
    mid_write: MidWrite,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for i in range(3):
        kit.write(f"private/inbox/plain {i}.md", f"A plain note, number {i}.\n")
    kit.page("private/notes/gone.md", "pg_gone", "To withdraw", type="note")
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/people/ada-2.md", "pg_ada2", "Ada Lovelace", type="person")
    kit.claim("private/claims/old.md", "cl_old", "Tea at four", entities=["pg_ada"])
    kit.claim("private/claims/new.md", "cl_new", "Tea at five", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    vault = window.vault
    assert vault is not None
    for kind, write in writes(vault):
        mid_write.reached.clear()
        mid_write.release.clear()
        done: list[object] = []
        window.runner.submit(write, done.append)
        qtbot.waitUntil(mid_write.reached.is_set, timeout=30_000)
        QCoreApplication.processEvents()  # whatever the write sent the window so far
        qtbot.waitUntil(lambda: window.runner.running == 1 and not window._held_changes, timeout=30_000)
        mid_write.release.set()
        qtbot.waitUntil(done.__len__, timeout=30_000)
        assert isinstance(done[0], dict), (kind, done[0])
        wait_idle(qtbot, window)
        shown = [(d.code, d.message) for d in window.diagnostics.model.shown()]
        assert not [s for s in shown if s[0] == "write-interrupted"], (kind, shown)
        assert " 0 errors " in window.summary.text(), (kind, window.summary.text())
        entries = window.writes.activity.entries
        assert entries[0]["journalId"] == done[0]["journalId"], kind
        assert entries[0]["state"] == "published", (kind, entries[0])
