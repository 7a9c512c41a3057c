"""Settings › Knowledge › You (issue 24 item 8): a fresh vault says no page is you, and the
extension's facts say which command gives it one; "Choose…" picks a person page (filtered by
title) and "Create…" files a new one, each a write on a worker after which the section and
the extension's facts about you are read again."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_self import self_pages
from knowledge_desktop.ui.knowledge_self_facts import NO_SELF
from knowledge_desktop.ui.main_window import MainWindow
from tests.engine.api.test_grants import RECIPES
from tests.vaultkit import VaultKit

FOOD = "facts.read:self:pref.food.*"


def test_you_is_chosen_from_the_person_pages_then_created(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow]
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    with Vault.open(kit.root) as vault:
        Extensions(vault.store, vault.root).install(validate_manifest(RECIPES), "private")
        Extensions(vault.store, vault.root).grant("recipes", FOOD)
    window = open_window(kit.root)
    window.commands.knowledge.trigger()
    dialog = window.commands.knowledge_dialog
    assert dialog is not None
    you = dialog.you
    qtbot.waitUntil(lambda: "No page in partition <b>private</b> is marked as you yet." in you.current.text())
    facts = dialog.self_facts
    assert facts is not None
    qtbot.waitUntil(lambda: facts.status.text() == NO_SELF)

    you.choose_button.click()
    qtbot.waitUntil(lambda: you.picker is not None)
    picker = you.picker
    assert picker is not None
    shown = [picker.list.item(r).text() for r in range(picker.list.count())]
    assert shown == ["Ada Lovelace", "Grace Hopper"]  # person pages only, by title
    picker.filter.setText("hop")
    visible = [
        picker.list.item(r).text() for r in range(picker.list.count()) if not picker.list.item(r).isHidden()
    ]
    assert visible == ["Grace Hopper"]
    assert picker.chosen() == "pg_grace"
    picker.accept()
    qtbot.waitUntil(lambda: 'You are <a href="pg_grace">Grace Hopper</a>' in you.current.text())
    assert you.status.text() == "Grace Hopper is now you."
    assert window.vault is not None
    assert [p.id for p in self_pages(window.vault, "private")] == ["pg_grace"]
    qtbot.waitUntil(lambda: dialog.self_facts is not None and dialog.self_facts.self_id == "pg_grace")
    you.current.linkActivated.emit("pg_grace")  # the title is a link to the page
    qtbot.waitUntil(lambda: window.current_path == "private/people/grace.md")

    you.create_button.click()
    qtbot.waitUntil(lambda: you.name_dialog is not None)
    name_dialog = you.name_dialog
    assert name_dialog is not None
    name_dialog.setTextValue("Katherine Johnson")
    name_dialog.accept()
    qtbot.waitUntil(lambda: ">Katherine Johnson</a>" in you.current.text())
    assert you.status.text() == "Katherine Johnson is now you (no longer: pg_grace)."
    [page] = self_pages(window.vault, "private")
    assert page.path == "private/people/katherine-johnson.md"
    assert "knowledge:self" not in (kit.root / "private/people/grace.md").read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: dialog.self_facts is not None and dialog.self_facts.self_id == page.id)
    dialog.close()
