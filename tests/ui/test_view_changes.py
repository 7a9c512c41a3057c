"""View Changes and the person's own facts in the window (issue 16 §4): conflicts on top with
Accept/Reject, changes grouped by run, Revert Run summarized; Settings › Knowledge lists the
self facts an extension's permissions cover and an edit there is said by the user."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.api import facts, user_facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault_api import open_session, person_changes
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.view_changes import ViewChanges
from tests.engine.api.conftest import AGENT
from tests.vaultkit import VaultKit

CITY = ("facts.read:self:location.home.*", "facts.write:self:location.home.*")
FOOD = ("facts.read:self:pref.food.*", "facts.write:self:pref.food.*")


def _vault_with_changes(kit: VaultKit) -> None:
    """The person said Utrecht; the agent's run `run_a` added a food and proposed Delft."""
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(AGENT), "private")
    for permission in (*CITY, *FOOD):
        extensions.grant("agent", permission)
    user_facts.put(person_changes(vault), vault.root, "private", "pg_me", "location.home.city", "Utrecht")
    agent = open_session(vault, "agent", run_id="run_a")
    facts.put(agent, predicate_hint="pref.food.like", value="stew")
    assert facts.put(agent, predicate_hint="location.home.city", value="Delft").status == "conflict"
    kit.close()


def _city(window: MainWindow) -> list[tuple[object, str | None]]:
    assert window.vault is not None
    rows = user_facts.current(window.vault.store, "private", "pg_me", "location.home.city")
    return [(r.value, r.origin) for r in rows]


def _open(window: MainWindow, qtbot: QtBot) -> ViewChanges:
    window.commands.view_changes.trigger()
    dialog = window.commands.changes_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.runs.topLevelItemCount() >= 2)
    return dialog


def test_a_conflict_is_on_top_and_accept_makes_the_proposed_value_the_persons(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    _vault_with_changes(kit)
    window = open_window(kit.root)
    dialog = _open(window, qtbot)
    assert dialog.conflict_box.isVisibleTo(dialog)
    [item] = [dialog.conflict_list.topLevelItem(0)]
    assert item is not None
    assert [item.text(i) for i in range(5)] == ["Grace", "location.home.city", "Delft", "Utrecht", "agent"]
    runs = [dialog.runs.topLevelItem(i) for i in range(dialog.runs.topLevelItemCount())]
    assert [(r.text(0).split(" ")[0], r.text(1)) for r in runs if r is not None] == [
        ("run_a", "agent"),
        (runs[1].text(0).split(" ")[0] if runs[1] is not None else "", "You"),
    ]
    dialog.conflict_list.setCurrentItem(item)
    dialog.accept_button.click()
    qtbot.waitUntil(lambda: not dialog.conflict_box.isVisibleTo(dialog))
    assert _city(window) == [("Delft", "user")]
    assert "Delft" in dialog.status.text()


def test_reject_keeps_the_persons_value_and_revert_run_undoes_the_run(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    _vault_with_changes(kit)
    window = open_window(kit.root)
    dialog = _open(window, qtbot)
    dialog.conflict_list.setCurrentItem(dialog.conflict_list.topLevelItem(0))
    dialog.reject_button.click()
    qtbot.waitUntil(lambda: not dialog.conflict_box.isVisibleTo(dialog))
    assert _city(window) == [("Utrecht", "user")]
    dialog.select_run("run_a")
    assert dialog.selected_run() == "run_a"
    dialog.revert_button.click()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Reverted"))
    assert dialog.status.text().splitlines()[0] == "Reverted 1, skipped 1, failed 0."
    assert "a conflict: nothing was written" in dialog.status.text()
    assert window.vault is not None
    assert user_facts.current(window.vault.store, "private", "pg_me", "pref.food") == []
    qtbot.waitUntil(lambda: "1 of 2 reverted" in [dialog.runs.topLevelItem(i).text(2) for i in range(2)])  # type: ignore[union-attr]
    assert dialog.selected_run() == "run_a"  # kept selected through the reload


def test_settings_shows_the_self_facts_an_extension_covers_and_an_edit_is_the_persons(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    _vault_with_changes(kit)
    window = open_window(kit.root)
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.self_facts is not None and bool(dialog.self_facts.facts))
    panel = dialog.self_facts
    assert panel is not None
    shown = {f.predicate: f for f in panel.facts}
    assert shown["location.home.city"].label == "City of residence"
    assert [v[1:] for v in shown["location.home.city"].values] == [("Utrecht", "user")]
    assert shown["pref.food.rated"].added_by_this
    [(claim_id, _, _)] = shown["location.home.city"].values
    edit = panel.value_edits[claim_id]
    edit.setText("Leiden")
    edit.returnPressed.emit()
    qtbot.waitUntil(lambda: _city(window) == [("Leiden", "user")])
    panel.editors["pref.food.dislike"].setText("liver")
    panel.editors["pref.food.dislike"].returnPressed.emit()
    assert window.vault is not None
    store = window.vault.store
    qtbot.waitUntil(
        lambda: (
            [r.value for r in user_facts.current(store, "private", "pg_me", "pref.food.dislike")] == ["liver"]
        )
    )
    qtbot.waitUntil(lambda: "Saved" in panel.status.text())
