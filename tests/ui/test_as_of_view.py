"""File › Open As Of… on the real engine (issue 15 §3): the window shows the vault as a
checkpoint left it, read-only under its banner, and Compare with Now diffs against the
live vault. (`test_history_window.py` checks the window's side with stand-ins.)"""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import HISTORY_TAB
from knowledge_desktop.ui.panes.record_history import DiffDialog
from tests.vaultkit import VaultKit, fence_of, wait_idle

OpenWindow = Callable[..., MainWindow]
ADA = "private/people/ada.md"


def ada_edited_twice(kit: VaultKit) -> str:
    """Ada's page, then two body edits: the commit of the first edit, which a past view
    opens to find "very first program" where now it reads "notes on the engine"."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", body="Ada wrote the first program.\n", type="person")
    vault = kit.scan()
    first = vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote the very first program.\n")
    vault.edit_body(fence_of(vault, "pg_ada"), "Ada wrote notes on the engine.\n")
    return str(first["git"]["commit"])


def test_the_past_vault_opens_read_only_and_compares_with_now(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    first = ada_edited_twice(kit)
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person")  # after C
    kit.close()
    window = open_window(kit.root, watch=False)
    live = window.vault
    assert live is not None

    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.past.open(first, "the first edit")
    wait_idle(qtbot, window)
    past = window.vault
    assert past is not None
    assert past is not live
    assert past.read_only
    assert past.as_of["commit"] == first
    assert window.past.banner.isVisible()
    assert "read-only" in window.past.label.text()
    assert window.watch_state.text() == "Past view, read-only"

    window.open_record("pg_ada")
    qtbot.waitUntil(lambda: (s := window.writes.shown) is not None and s.id == "pg_ada", timeout=20_000)
    qtbot.waitUntil(lambda: "very first program" in window.record.source.toPlainText(), timeout=20_000)
    assert not any(a.isEnabled() for a in window.writes.actions)
    assert past.find("pg_grace") == []  # written after the checkpoint: not in the past view
    window.record.tabs.setCurrentIndex(HISTORY_TAB)  # the versions up to the checkpoint only
    qtbot.waitUntil(lambda: len(window.record.history.rows) == 2, timeout=20_000)
    shown = [r["commit"] for r in window.record.history.rows]
    assert shown[0] == first
    assert [r["operation"] for r in window.record.history.rows] == ["edit-body", "baseline"]

    window.past.compare.trigger()
    compare = window.past.dialog
    assert isinstance(compare, DiffDialog)
    qtbot.waitUntil(lambda: compare.word_diff is not None, timeout=20_000)
    assert compare.word_diff is not None
    assert "engine" in compare.word_diff.added
    compare.close()

    with qtbot.waitSignal(window.loaded, timeout=20_000):
        window.past.back_button.click()
    wait_idle(qtbot, window)
    assert window.vault is not None
    assert window.vault.root == kit.root
    assert not past.root.exists()  # the past view's temporary folders are gone
