"""The Activity dock: the write journal, newest first, with receipts, conflicts (Review,
Resume, Mark Reviewed) and failures (docs/writing.md, Conflicts; spec:
corrections-and-merges, Recovery and safeguards)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.engine.write import lifecycle, publish
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, fence_of

OpenWindow = Callable[..., MainWindow]

TEA = "private/claims/tea.md"


class Crash(BaseException):
    """Stands in for the process dying at a named step of the publish path."""


@pytest.fixture
def journaled(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> VaultKit:
    """A vault whose journal holds a published withdrawal and, newer, a write that
    conflicted with an outside edit (it died after its intent; the file was then edited)."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    vault = kit.scan()
    lifecycle.withdraw(vault.write, fence_of(vault, "pg_bob"), "not a real person", request_id="rq_bob")

    def die(name: str) -> None:
        if name == "journaled":
            raise Crash(name)

    monkeypatch.setattr(publish, "STEP", die)
    with pytest.raises(Crash):
        lifecycle.withdraw(vault.write, fence_of(vault, "cl_tea"), "wrong", request_id="rq_tea")
    monkeypatch.setattr(publish, "STEP", None)
    path = kit.root / TEA
    path.write_bytes(path.read_bytes() + b"Edited elsewhere.\n")
    with pytest.raises(WriteRejected) as caught:
        vault.resume("rq_tea")
    assert caught.value.code == "write-conflict"
    kit.close()
    return kit


def rows(window: MainWindow) -> list[list[str]]:
    tree = window.writes.activity.tree
    return [[tree.topLevelItem(i).text(c) for c in range(6)] for i in range(tree.topLevelItemCount())]


def test_the_journal_is_listed_newest_first_with_receipts_and_conflicts(
    qtbot: QtBot, open_window: OpenWindow, journaled: VaultKit
) -> None:
    """Each entry: when, operation, record, state, who; a receipt says what was written
    and why, a conflict that it awaits review."""
    window = open_window(journaled.root, watch=False)
    pane = window.writes.activity
    qtbot.waitUntil(lambda: len(rows(window)) == 2, timeout=20_000)
    newest, older = rows(window)
    assert newest[1:4] == ["withdraw", "cl_tea", "rolled-back"]
    assert newest[5].startswith("conflict (not reviewed yet)")
    assert TEA in newest[5]
    assert older[1:4] == ["withdraw", "pg_bob", "published"]
    assert older[5] == "receipt: 1 file(s) written — “not a real person”"
    assert pane.status.text() == "2 write(s) · 1 conflict(s) to review"


def test_a_conflict_is_reviewed_and_marked_reviewed(
    qtbot: QtBot, open_window: OpenWindow, journaled: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review opens the conflict's folder (proposed, original, displaced); Mark Reviewed
    is `resume --reviewed`: the entry then reads reviewed and the buttons follow."""
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = open_window(journaled.root, watch=False)
    pane = window.writes.activity
    qtbot.waitUntil(lambda: len(rows(window)) == 2, timeout=20_000)
    pane.tree.setCurrentItem(pane.tree.topLevelItem(1))
    assert not pane.review_button.isEnabled()
    assert not pane.reviewed_button.isEnabled()
    pane.tree.setCurrentItem(pane.tree.topLevelItem(0))
    assert pane.review_button.isEnabled()
    assert pane.reviewed_button.isEnabled()
    pane.review_button.click()
    (url,) = opened
    assert (journaled.root / ".knowledge" / "conflicts") in Path(url.toLocalFile()).parents
    with qtbot.waitSignal(pane.refreshed, timeout=20_000):
        pane.reviewed_button.click()
    qtbot.waitUntil(lambda: rows(window)[0][5].startswith("conflict (reviewed)"), timeout=20_000)
    pane.tree.setCurrentItem(pane.tree.topLevelItem(0))
    assert not pane.reviewed_button.isEnabled()


def test_a_publish_from_the_window_adds_its_receipt_on_top(
    qtbot: QtBot, open_window: OpenWindow, journaled: VaultKit
) -> None:
    """A write made in the window is listed first as soon as it is published."""
    window = open_window(journaled.root, watch=False)
    qtbot.waitUntil(lambda: len(rows(window)) == 2, timeout=20_000)
    window.open_record("private/people/ada.md")
    qtbot.waitUntil(window.writes.withdraw.isEnabled, timeout=20_000)
    window.writes.withdraw.trigger()
    dialog: Any = window.writes.dialog
    qtbot.waitUntil(lambda: dialog.preview is not None, timeout=20_000)
    dialog.reason.setText("left the team")
    with qtbot.waitSignal(dialog.finished_publish, timeout=20_000):
        dialog.publish_button.click()
    qtbot.waitUntil(lambda: len(rows(window)) == 3, timeout=20_000)
    top = rows(window)[0]
    assert top[1:4] == ["withdraw", "pg_ada", "published"]
    assert top[5].endswith("“left the team”")


@pytest.fixture
def stuck(kit: VaultKit) -> tuple[VaultKit, Path]:
    """A vault whose second write's checkpoint is pending: a stale lock (left by a crashed
    Git process) holds the checkpoint branch. Returns the kit and the lock file."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", body="First.\n", type="person")
    vault = kit.scan()
    vault.edit_body(fence_of(vault, "pg_ada"), "Second.\n")
    lock = vault.history.state_dir / "history.git" / "refs" / "heads" / "checkpoints.lock"
    lock.write_text("")
    receipt = vault.edit_body(fence_of(vault, "pg_ada"), "Third.\n")
    assert receipt["git"]["state"] == "pending"
    kit.close()
    return kit, lock


def test_pending_checkpoints_are_listed_with_their_reason_and_retry_commits_them(
    qtbot: QtBot, open_window: OpenWindow, stuck: tuple[VaultKit, Path]
) -> None:
    """Activity names the checkpoint that waits and why; once the cause is gone, Retry
    records it and the line goes away (issue 15 §1: pending, retried from Activity)."""
    kit, lock = stuck
    window = open_window(kit.root, watch=False)
    panel = window.writes.activity.checkpoints
    qtbot.waitUntil(lambda: len(panel.pending) == 1, timeout=20_000)
    assert panel.isVisibleTo(window.writes.activity)
    assert panel.list.topLevelItem(0).text(1) == "edit-body"
    assert "failed to lock" in panel.list.topLevelItem(0).text(3)
    assert panel.status.text().startswith("1 checkpoint(s) pending")
    assert panel.retry_button.isEnabled()
    lock.unlink()
    panel.retry_button.click()
    qtbot.waitUntil(lambda: not panel.pending and panel.retry_button.isHidden(), timeout=20_000)
    assert panel.status.text() == "1 checkpoint(s) recorded."
    vault = window.vault
    assert vault is not None
    assert vault.history.checkpoints(pending_only=True)["outbox"] == []
    commits = vault.history.checkpoints()["commits"]
    assert [c["operation"] for c in commits] == ["edit-body", "edit-body", "baseline"]


def test_unavailable_checkpoints_say_why(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")

    def unavailable(self: VaultHistory, *, pending_only: bool = False, limit: int = 50) -> dict[str, Any]:
        return {"unavailable": "pygit2 is not installed", "outbox": [], "commits": []}

    monkeypatch.setattr(VaultHistory, "checkpoints", unavailable)
    window = open_window(kit.root, watch=False)
    panel = window.writes.activity.checkpoints
    qtbot.waitUntil(lambda: panel.unavailable is not None, timeout=20_000)
    assert panel.isVisibleTo(window.writes.activity)
    assert "Checkpoints are unavailable: pygit2 is not installed" in panel.status.text()
    assert not panel.retry_button.isVisibleTo(panel)
