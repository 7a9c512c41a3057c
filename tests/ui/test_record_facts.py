"""Facts on the record pane (issue 16 §4): a page's current facts grouped by predicate, with who
said each and since when, in a tab that exists only while the page has facts and that follows
each put in place."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.api import user_facts
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import person_changes
from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_view_changes import _vault_with_changes
from tests.vaultkit import VaultKit


def _shown(window: MainWindow) -> list[tuple[str, ...]]:
    tree = window.record.facts.tree
    out = []
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        assert top is not None
        out.append(tuple(top.text(c) for c in range(5)))
        for j in range(top.childCount()):
            child = top.child(j)
            assert child is not None
            out.append(tuple(child.text(c) for c in range(5)))
    return out


def _has_tab(window: MainWindow) -> bool:
    return window.record.tabs.indexOf(window.record.facts) >= 0


def test_a_pages_facts_are_grouped_with_origin_and_follow_a_put(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    _vault_with_changes(kit)
    window = open_window(kit.root)
    window.open_record("pg_me")
    qtbot.waitUntil(lambda: _has_tab(window))
    assert window.record.tabs.tabText(window.record.tabs.indexOf(window.record.facts)) == "Facts"
    assert _shown(window) == [
        ("City of residence", "Utrecht", "you", "—", "active"),
        ("Foods liked", "stew", "extension:agent", "—", "active"),
    ]
    window.open_record("pg_bob")
    qtbot.waitUntil(lambda: not _has_tab(window))  # no facts: no empty tab
    window.open_record("pg_me")
    qtbot.waitUntil(lambda: _has_tab(window))
    assert window.vault is not None
    user_facts.put(
        person_changes(window.vault), window.vault.root, "private", "pg_me", "pref.food.like", "soup"
    )
    qtbot.waitUntil(lambda: len(_shown(window)) == 4)
    assert _shown(window)[1] == ("Foods liked", "2 values", "", "", "")
    assert sorted(_shown(window)[2:]) == [
        ("", "soup", "you", "—", "active"),
        ("", "stew", "extension:agent", "—", "active"),
    ]


def test_a_put_from_another_process_reaches_the_facts_tab_through_the_watcher(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    # A second Vault on the same folder stands for `knowledge mcp`: it writes the claim file
    # and the shared index rows itself, so the window's reconcile of the file finds every
    # projection row already there and reports no projection changed.
    _vault_with_changes(kit)
    window = open_window(kit.root)
    window.open_record("pg_me")
    qtbot.waitUntil(lambda: len(_shown(window)) == 2)
    other = Vault.open(kit.root)
    try:
        user_facts.put(person_changes(other), other.root, "private", "pg_me", "pref.food.like", "soup")
    finally:
        other.close()
    qtbot.waitUntil(lambda: ("", "soup", "you", "—", "active") in _shown(window), timeout=10_000)
