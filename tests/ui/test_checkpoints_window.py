"""The window's checkpoints on the real engine (issue 15 §1): the first checkpoint is made on
a worker when a vault opens, and an outside edit the watcher applies becomes an observed
checkpoint without anything being asked of the person."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]
ADA = "private/people/ada.md"


def operations(window: MainWindow) -> list[str | None]:
    assert window.vault is not None
    return [c["operation"] for c in window.vault.history.checkpoints()["commits"]]


def test_opening_a_vault_records_its_first_checkpoint(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="First.\n", type="person")
    window = open_window(kit.root, watch=False)
    qtbot.waitUntil(lambda: operations(window) == ["baseline"], timeout=20_000)
    assert window.vault is not None
    versions = window.vault.history.versions("pg_ada")
    assert [(v["operation"], v["path"]) for v in versions] == [("baseline", ADA)]


def test_an_outside_edit_becomes_an_observed_checkpoint(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="First.\n", type="person")
    window = open_window(kit.root, watch=True)
    qtbot.waitUntil(lambda: operations(window) == ["baseline"], timeout=20_000)
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Edited in another editor.\n", type="person")
    qtbot.waitUntil(lambda: operations(window) == ["observed", "baseline"], timeout=30_000)
    assert window.vault is not None
    newest = window.vault.history.versions("pg_ada")[0]
    assert (newest["source"], newest["author"]) == ("observed", "unknown")
    data = window.vault.history.version_bytes(newest["commit"], ADA)
    assert b"Edited in another editor." in data


def test_outside_edits_whose_checkpoint_failed_wait_in_activity_with_retry(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="First.\n", type="person")
    window = open_window(kit.root, watch=False)
    qtbot.waitUntil(lambda: operations(window) == ["baseline"], timeout=20_000)
    vault = window.vault
    assert vault is not None
    lock = vault.state_dir / "history.git" / "refs" / "heads" / "checkpoints.lock"
    lock.write_text("another process\n")
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Edited elsewhere.\n", type="person")
    vault.history.note_observed([ADA])
    assert vault.history.flush_observed()["state"] == "pending"
    panel = window.writes.activity.checkpoints
    window.writes.activity.refresh()
    qtbot.waitUntil(lambda: panel.observed_stuck == 1, timeout=10_000)
    item = panel.list.topLevelItem(0)
    assert (item.text(1), item.text(2)) == ("outside edits", "1 file(s)")
    assert "lock" in item.text(3)
    assert panel.retry_button.isEnabled()
    lock.unlink()
    panel.retry_button.click()
    qtbot.waitUntil(lambda: panel.observed_stuck == 0 and panel.isHidden(), timeout=20_000)
    assert operations(window) == ["observed", "baseline"]
