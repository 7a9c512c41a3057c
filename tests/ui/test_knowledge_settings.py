"""Settings › Knowledge (issue 16 §4): each installed extension with its reason, a switch per
permission worded for a person and off by default, each switch written to the durable grants
on a worker and read back from them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.api import facts, user_facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.ui.main_window import MainWindow
from tests.engine.api.test_grants import RECIPES
from tests.vaultkit import VaultKit

FOOD = "facts.read:self:pref.food.*"
MANIFEST = Path(__file__).resolve().parents[2] / "examples" / "recipe-gem" / "manifest.json"


def _install(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    with Vault.open(kit.root) as vault:
        Extensions(vault.store, vault.root).install(validate_manifest(RECIPES), "private")


def test_every_permission_is_shown_off_with_its_sentence_and_a_switch_is_kept(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    _install(kit)
    window = open_window(kit.root)
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: len(dialog.switches) == 3)
    assert [b.isChecked() for b in dialog.switches.values()] == [False, False, False]
    assert dialog.switches[FOOD].text() == "Read your food preferences"
    dialog.switches[FOOD].setChecked(True)
    assert window.vault is not None
    extensions = Extensions(window.vault.store, window.vault.root)
    qtbot.waitUntil(lambda: [str(p) for p in extensions.granted("recipes")] == [FOOD])
    dialog.close()
    window.commands.knowledge.trigger()
    again = window.commands.knowledge_dialog
    assert again is not None
    qtbot.waitUntil(lambda: len(again.switches) == 3)
    assert [p for p, b in again.switches.items() if b.isChecked()] == [FOOD]
    again.switches[FOOD].setChecked(False)
    qtbot.waitUntil(lambda: extensions.granted("recipes") == ())


def test_a_vault_without_extensions_says_how_to_install_one(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: "No extension is installed" in dialog.status.text())
    assert "knowledge extensions" in dialog.status.text()


def test_an_extension_is_installed_from_its_manifest_with_every_switch_off(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: "No extension is installed" in dialog.status.text())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**RECIPES, "name": "Bad Name"}), encoding="utf-8")
    dialog.install_manifest(bad)
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Not installed"))
    assert "name" in dialog.status.text()
    dialog.install_manifest(MANIFEST)
    qtbot.waitUntil(lambda: len(dialog.switches) == 3)
    assert "every permission is off" in dialog.status.text()
    assert not any(b.isChecked() for b in dialog.switches.values())
    assert dialog.names.currentItem() is not None
    assert dialog.names.currentItem().text() == "recipes"


def test_uninstall_asks_keep_or_delete_and_a_delete_is_one_revertible_run(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    _install(kit)
    window = open_window(kit.root)
    vault = window.vault
    assert vault is not None
    Extensions(vault.store, vault.root).grant("recipes", FOOD)
    Extensions(vault.store, vault.root).grant("recipes", "facts.write:self:pref.food.*")
    facts.put(open_session(vault, "recipes"), predicate_hint="pref.food.rated", value="stew")
    assert [f.value for f in user_facts.current(vault.store, "private", "pg_me")] == ["stew"]
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: len(dialog.switches) == 3)
    dialog.uninstall_button.click()
    qtbot.waitUntil(lambda: dialog.uninstall_dialog is not None)
    question = dialog.uninstall_dialog
    assert question is not None
    assert question.keep.isChecked()
    question.delete.setChecked(True)
    question.accept()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Uninstalled recipes"))
    assert "deleted in run run_" in dialog.status.text()
    assert Extensions(vault.store, vault.root).list() == []
    assert user_facts.current(vault.store, "private", "pg_me") == []  # expired, not deleted
