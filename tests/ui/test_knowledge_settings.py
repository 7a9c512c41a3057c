"""Settings › Knowledge (issue 16 §4): each installed extension with its reason, a switch per
permission worded for a person and off by default, each switch written to the durable grants
on a worker and read back from them."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui.main_window import MainWindow
from tests.engine.api.test_grants import RECIPES
from tests.vaultkit import VaultKit

FOOD = "facts.read:self:pref.food.*"


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
