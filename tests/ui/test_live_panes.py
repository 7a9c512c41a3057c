"""End to end: with the window open, outside edits show in every pane (issue 5 §2, §6).

Files are changed the way editors and tools change them — VS Code/Obsidian's
temp-then-rename, vim's backup dance, emacs' lock and autosave files, plain
creates, renames, folder moves and deletes — and the real watcher delivers
them. Each step waits for the window to apply the change, then checks what
the panes show, through their models as a user would see them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, envelope, record_text, wait_idle

OpenWindow = Callable[[Path], MainWindow]


def texts(model: QAbstractItemModel, parent: QModelIndex | None = None) -> list[str]:
    """Every loaded row's text, depth first (never asks the model to fetch more)."""
    parent = parent if parent is not None else QModelIndex()
    try:
        columns = model.columnCount(parent)
    except TypeError:  # list models keep columnCount private
        columns = 1
    out: list[str] = []
    for row in range(model.rowCount(parent)):
        for column in range(columns):
            value = model.index(row, column, parent).data(Qt.ItemDataRole.DisplayRole)
            if value is not None:
                out.append(str(value))
        out.extend(texts(model, model.index(row, 0, parent)))
    return out


def joined(model: QAbstractItemModel) -> str:
    return "\n".join(texts(model))


class Scene:
    def __init__(self, qtbot: QtBot, window: MainWindow, kit: VaultKit) -> None:
        self.qtbot = qtbot
        self.window = window
        self.kit = kit

    def wait_for_change(self, touched: str, act: Callable[[], None]) -> None:
        """Run `act`, then wait until the window applied a ChangeSet naming `touched`."""
        seen: list[bool] = []

        def check(change: object) -> None:
            if touched in getattr(change, "paths", []):
                seen.append(True)

        self.window.change_applied.connect(check)
        try:
            act()
            self.qtbot.waitUntil(lambda: bool(seen), timeout=15_000)
        finally:
            self.window.change_applied.disconnect(check)
        wait_idle(self.qtbot, self.window)

    def open(self, key: str) -> None:
        with self.qtbot.waitSignal(self.window.current_changed, timeout=10_000):
            self.window.open_record(key)
        wait_idle(self.qtbot, self.window)

    def eventually(self, condition: Callable[[], bool]) -> None:
        self.qtbot.waitUntil(
            lambda: (wait_idle(self.qtbot, self.window) or True) and condition(), timeout=15_000
        )

    def record_text(self) -> str:
        return self.window.record.browser.toPlainText()


def page_text(record_id: str, title: str, body: str) -> str:
    return record_text(envelope(record_id, "page", title, type="person"), body)


@pytest.fixture
def scene(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> Scene:
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", "Ada wrote the first program.\n", type="person"
    )
    kit.page("private/people/bob.md", "pg_bob", "Bob Marley", "Bob sings.\n", type="person")
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea", entities=["pg_ada"])
    window = open_window(kit.root)
    return Scene(qtbot, window, kit)


def test_editor_saves_reach_the_record_catalog_and_search(scene: Scene) -> None:
    kit, window = scene.kit, scene.window
    scene.open("pg_ada")
    assert "Ada wrote the first program." in scene.record_text()
    window.search.set_query("countess")
    scene.eventually(lambda: "No results" in window.search.summary.text())

    # VS Code / Obsidian: write a temp file, rename it over the record.
    ada = kit.root / "private/people/ada.md"
    new = page_text("pg_ada", "Ada, Countess of Lovelace", "The countess wrote the first program.\n")

    def vscode_save() -> None:
        tmp = ada.with_name("ada.md.tmp")
        tmp.write_text(new, "utf-8")
        os.replace(tmp, ada)

    scene.wait_for_change("private/people/ada.md", vscode_save)
    scene.eventually(lambda: "The countess wrote" in scene.record_text())
    scene.eventually(lambda: "Ada, Countess of Lovelace" in joined(window.catalog.model))
    scene.eventually(lambda: "Ada, Countess of Lovelace" in joined(window.search.model))

    # vim: rename the original to a backup, write anew, drop the backup; the 4913 probe comes first.
    bob = kit.root / "private/people/bob.md"

    def vim_save() -> None:
        probe = bob.with_name("4913")
        probe.write_text("")
        probe.unlink()
        backup = bob.with_name("bob.md~")
        os.replace(bob, backup)
        bob.write_text(page_text("pg_bob", "Robert Marley", "Bob sings reggae.\n"), "utf-8")
        backup.unlink()

    scene.open("pg_bob")
    scene.wait_for_change("private/people/bob.md", vim_save)
    scene.eventually(lambda: "Robert Marley" in joined(window.catalog.model))
    scene.eventually(lambda: "Bob sings reggae." in scene.record_text())

    # emacs: a lock symlink and an autosave file around an in-place write.
    claim = kit.root / "private/claims/tea.md"

    def emacs_save() -> None:
        lock = claim.with_name(".#tea.md")
        os.symlink("user@host.1234", lock)
        autosave = claim.with_name("#tea.md#")
        autosave.write_text("draft")
        text = claim.read_text("utf-8").replace("Ada likes tea", "Ada likes green tea")
        claim.write_text(text, "utf-8")
        autosave.unlink()
        lock.unlink()

    scene.open("pg_ada")
    scene.wait_for_change("private/claims/tea.md", emacs_save)
    scene.eventually(lambda: "Ada likes green tea" in joined(window.backlinks.model))


def test_creates_renames_moves_and_deletes_reach_every_pane(scene: Scene) -> None:
    kit, window = scene.kit, scene.window
    scene.open("pg_ada")

    # A new record linking to Ada: catalog, backlinks and timeline follow.
    carol = "private/people/carol.md"
    scene.wait_for_change(
        carol,
        lambda: kit.page(
            carol, "pg_carol", "Carol Shaw", "Carol met [[Ada Lovelace]] in 1843.\n", type="person"
        ),
    )
    scene.eventually(lambda: "Carol met Ada Lovelace in 1843." in joined(window.backlinks.model))
    scene.eventually(lambda: "4 records" in window.summary.text())
    scene.open(carol)
    scene.eventually(lambda: "Carol Shaw" in joined(window.catalog.model))

    # A dated claim shows on the whole-vault timeline.
    dated = "private/claims/met.md"
    scene.wait_for_change(
        dated,
        lambda: kit.claim(dated, "cl_met", "Carol met Ada", entities=["pg_carol"], occurred_at="2026-03-04"),
    )
    scene.eventually(lambda: "Carol met Ada" in joined(window.timeline.model))

    # A broken file appears in Diagnostics; fixing it removes the row.
    broken = "private/notes/broken.md"
    scene.wait_for_change(broken, lambda: kit.write(broken, "---\nid: [unclosed\n---\nbody\n"))
    scene.eventually(lambda: broken in joined(window.diagnostics.model))
    scene.wait_for_change(
        broken, lambda: kit.page(broken, "pg_fixed", "Fixed note", "Now fine.\n", type="note")
    )
    scene.eventually(lambda: broken not in joined(window.diagnostics.model))

    # Renaming the open record: the record pane says where it went; the catalog follows.
    scene.open("pg_carol")
    moved = "private/people/carol-shaw.md"
    scene.wait_for_change(carol, lambda: (kit.root / carol).rename(kit.root / moved))
    scene.eventually(lambda: "Moved." in scene.record_text())
    assert window.current_path == carol  # nothing else was opened in its place
    scene.open(moved)
    scene.eventually(lambda: "Carol Shaw" in joined(window.catalog.model))

    # Moving a whole folder keeps identities: Ada's backlink from Carol survives.
    scene.wait_for_change(
        "private/persons/ada.md", lambda: (kit.root / "private/people").rename(kit.root / "private/persons")
    )
    scene.open("pg_ada")
    assert window.current_path == "private/persons/ada.md"
    scene.eventually(lambda: "Carol met Ada Lovelace in 1843." in joined(window.backlinks.model))

    # Deleting the linking record removes the backlink and the count.
    scene.wait_for_change(
        "private/persons/carol-shaw.md", (kit.root / "private/persons/carol-shaw.md").unlink
    )
    scene.eventually(lambda: "Carol met" not in joined(window.backlinks.model))
    scene.eventually(lambda: "5 records" in window.summary.text())  # ada, bob, tea, met, fixed
