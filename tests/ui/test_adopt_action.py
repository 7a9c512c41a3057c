"""File › Adopt Notes…: the dry run listed in a dialog, Adopt publishing it on a worker, the
catalog updated from the publish's ChangeSet (docs/writing.md, "Adopting notes").

The windows here do not watch the folder, so the catalog can only learn of the new records
through `Vault.on_publish`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.adopt_action import AdoptDialog
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, frontmatter_of, obsidian_notes, wait_idle

OpenWindow = Callable[..., MainWindow]


def checksums(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.md"))
        if ".knowledge" not in p.parts
    }


def body_of(data: bytes) -> bytes:
    """The bytes after the frontmatter (the whole file when it has none)."""
    if not data.startswith(b"---\n"):
        return data
    end = data.index(b"\n---\n", 3)
    return data[end + len(b"\n---\n") :]


def dry_run_shown(qtbot: QtBot, window: MainWindow) -> AdoptDialog:
    """Trigger File › Adopt Notes… and wait until its dialog shows the dry run."""
    assert window.writes.adopt.action.isEnabled()
    window.writes.adopt.action.trigger()
    dialog = window.writes.adopt.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.busy and dialog.heading.text() != "Looking at the notes…")
    return dialog


def listed_paths(dialog: AdoptDialog) -> set[str]:
    return {dialog.files.topLevelItem(i).text(0) for i in range(dialog.files.topLevelItemCount())}


def test_adopt_lists_the_notes_then_makes_them_records_with_bodies_unchanged(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """The dialog lists every plain note with its new title; Adopt turns them into page
    records in place: frontmatter gained, bodies byte for byte, the catalog shows them
    (docs/writing.md: adopting notes; spec: vault-and-files, Markdown stays authoritative)."""
    obsidian_notes(kit.root / "private", 8)
    notes = {p: (kit.root / "private" / p).read_bytes() for p in checksums(kit.root / "private")}
    window = open_window(kit.root, watch=False)
    assert window.catalog.summary.text().startswith("0 records")
    dialog = dry_run_shown(qtbot, window)
    assert listed_paths(dialog) == {f"private/{p}" for p in notes}
    assert dialog.adopt_button.isEnabled()
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000) as blocker:
        dialog.adopt_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict)
    assert receipt["operation"] == "adopt"
    wait_idle(qtbot, window)
    for rel, before in notes.items():
        after = (kit.root / "private" / rel).read_bytes()
        data = frontmatter_of(after)
        assert data["kind"] == "page"
        assert data["id"].startswith("pg_")
        assert body_of(after) == body_of(before), rel
    qtbot.waitUntil(lambda: window.catalog.summary.text().startswith(f"{len(notes)} records"))
    with qtbot.waitSignal(window.writes.activity.refreshed, timeout=20_000):
        window.writes.activity.refresh()
    activity = window.writes.activity
    assert activity.entries[0]["operation"] == "adopt"
    activity.tree.setCurrentItem(activity.tree.topLevelItem(0))
    assert activity.undo_button.isEnabled()
    with qtbot.waitSignal(activity.refreshed, timeout=30_000):
        activity.undo_button.click()
    assert {p: (kit.root / "private" / p).read_bytes() for p in notes} == notes  # Undo Adopt
    qtbot.waitUntil(lambda: window.catalog.summary.text().startswith("0 records"))


def test_cancel_writes_nothing(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    """The dry run and Cancel leave every file as it was (docs/writing.md: a dry run writes
    nothing)."""
    obsidian_notes(kit.root / "private", 5)
    before = checksums(kit.root)
    window = open_window(kit.root, watch=False)
    dialog = dry_run_shown(qtbot, window)
    assert listed_paths(dialog)
    dialog.cancel_button.click()
    wait_idle(qtbot, window)
    assert not dialog.isVisible()
    assert checksums(kit.root) == before


def test_a_note_changed_since_the_dry_run_refuses_the_whole_run(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """Adopt is fenced by the dry run's hashes: one note edited after it refuses the run and
    the dialog says so; nothing is written (docs/writing.md: adopting notes, fences)."""
    obsidian_notes(kit.root / "private", 5)
    window = open_window(kit.root, watch=False)
    dialog = dry_run_shown(qtbot, window)
    edited = kit.root / next(iter(listed_paths(dialog)))
    edited.write_bytes(edited.read_bytes() + b"\nedited after the dry run\n")
    before = checksums(kit.root)
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000) as blocker:
        dialog.adopt_button.click()
    refused = blocker.args[0]
    assert isinstance(refused, WriteRejected)
    assert refused.code == "changed-since-dry-run"
    assert "changed-since-dry-run" in dialog.message.text()
    assert dialog.isVisible()
    assert checksums(kit.root) == before


def test_the_dialog_starts_on_the_whole_vault_and_adopts_every_partition_in_one_run(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    """File › Adopt Notes… is `knowledge adopt` without `--partition` (issue 25, §5): it lists
    the notes of every partition and the root's (moving into a partition), adopts them all as one
    journal entry, and choosing a partition narrows the list (the root then left alone)."""
    kit.write("Home.md", "# Home\n")
    kit.write("private/people/Ada.md", "Ada. [[Plan]]\n")
    kit.write("private/Plan.md", "The plan.\n")
    kit.write("work/Log.md", "The log.\n")
    window = open_window(kit.root, watch=False)
    dialog = dry_run_shown(qtbot, window)
    assert dialog.partition.currentText() == "Whole vault"
    assert listed_paths(dialog) == {"Home.md", "private/people/Ada.md", "private/Plan.md", "work/Log.md"}
    assert "moved from the vault root into private/" in dialog.heading.text()
    dialog.partition.setCurrentText("work")
    qtbot.waitUntil(lambda: not dialog.busy and listed_paths(dialog) == {"work/Log.md"})
    assert not dialog.root_into.isVisibleTo(dialog)
    dialog.partition.setCurrentText("Whole vault")
    qtbot.waitUntil(lambda: not dialog.busy and len(listed_paths(dialog)) == 4)
    with qtbot.waitSignal(dialog.finished_adopt, timeout=30_000) as blocker:
        dialog.adopt_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    assert sorted(item["path"] for item in receipt["items"]) == sorted(
        [*listed_paths(dialog), "private/Home.md"]
    )
    assert frontmatter_of((kit.root / "work/Log.md").read_bytes())["scope"] == "work"
    assert frontmatter_of((kit.root / "private/Home.md").read_bytes())["scope"] == "private"
    assert not (kit.root / "Home.md").exists()
