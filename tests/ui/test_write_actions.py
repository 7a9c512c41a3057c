"""The window's write actions: menu, confirmation dialog, publish on a worker, panes
updated from the publish's ChangeSet (spec: corrections-and-merges; docs/writing.md).

The windows here do not watch the folder, so any pane update after a publish came
through `Vault.on_publish`, not the watcher.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.publish_dialog import PublishDialog
from tests.vaultkit import VaultKit, frontmatter_of, wait_idle

OpenWindow = Callable[..., MainWindow]

ADA = "private/people/ada.md"
LOVELACE = "private/people/lovelace.md"
TEA = "private/claims/tea.md"


@pytest.fixture
def people(kit: VaultKit) -> VaultKit:
    """A person, a possible duplicate of her, and a claim about her."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.page(LOVELACE, "pg_lovelace", "A. Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    return kit


def show(qtbot: QtBot, window: MainWindow, path: str) -> None:
    """Open `path` in the record pane and wait until the actions know it."""
    window.open_record(path)
    qtbot.waitUntil(lambda: (s := window.writes.shown) is not None and s.path == path, timeout=20_000)


def planned(qtbot: QtBot, window: MainWindow) -> PublishDialog:
    """The dialog the action opened, once its preview (or its refusal) is shown."""
    dialog = window.writes.dialog
    assert dialog is not None
    qtbot.waitUntil(
        lambda: not dialog.busy and (dialog.preview is not None or dialog.stale.isVisibleTo(dialog))
    )
    return dialog


def publish(qtbot: QtBot, dialog: PublishDialog, reason: str) -> object:
    dialog.reason.setText(reason)
    with qtbot.waitSignal(dialog.finished_publish, timeout=20_000) as blocker:
        dialog.publish_button.click()
    return blocker.args[0] if blocker.args else None


def diff_text(dialog: PublishDialog) -> str:
    return dialog.diff.toPlainText()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_actions_are_enabled_by_the_records_kind_and_lifecycle(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """A page can be withdrawn or merged, not corrected or superseded; a claim can be
    corrected and superseded, not merged (spec: corrections-and-merges, which operation
    applies to which record)."""
    window = open_window(people.root, watch=False)
    writes = window.writes
    show(qtbot, window, ADA)
    enabled = {a.text(): a.isEnabled() for a in writes.actions}
    assert enabled["&Withdraw…"]
    assert enabled["&Merge Into…"]
    assert not enabled["&Correct…"]
    assert not enabled["&Supersede By…"]
    assert not enabled["U&nmerge…"]
    show(qtbot, window, TEA)
    enabled = {a.text(): a.isEnabled() for a in writes.actions}
    assert enabled["&Correct…"]
    assert enabled["&Supersede By…"]
    assert enabled["&Withdraw…"]
    assert not enabled["&Merge Into…"]
    assert not enabled["&Undo Supersession…"]


def test_withdraw_from_the_record_menu_shows_diff_fence_impact_and_updates_the_panes(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """The dialog shows the frontmatter diff, the fence (revision, short hash) and the
    dependents; Publish needs a reason; the publish's ChangeSet updates the record and
    catalog panes (spec: corrections-and-merges, Withdraw a record)."""
    window = open_window(people.root, watch=False)
    show(qtbot, window, ADA)
    shown_hash = window.record.loaded.view["hash"]  # type: ignore[union-attr]
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    text = diff_text(dialog)
    assert "-lifecycle: active" in text
    assert "+lifecycle: withdrawn" in text
    assert "+revision: 2" in text
    assert f"pg_ada · revision 1 · hash {shown_hash[:10]}" in dialog.fence_label.text()
    impact = [dialog.impact.item(i).text() for i in range(dialog.impact.count())]
    assert len(impact) == 1
    assert "Ada likes tea" in impact[0]
    assert TEA in dialog.impact.item(0).toolTip()  # the row shows the title, wrapped
    assert not dialog.publish_button.isEnabled()
    dialog.reason.setText("   ")
    assert not dialog.publish_button.isEnabled()
    receipt = publish(qtbot, dialog, "a test record")
    assert isinstance(receipt, dict)
    assert receipt["operation"] == "withdraw"
    assert frontmatter_of((people.root / ADA).read_bytes())["lifecycle"] == "withdrawn"
    qtbot.waitUntil(lambda: window.record.loaded.view["lifecycle"] == "withdrawn")  # type: ignore[union-attr]
    wait_idle(qtbot, window)
    (row,) = window.catalog.model._by_path[ADA]
    assert row.item["lifecycle"] == "withdrawn"
    window.writes.refresh()
    assert not window.writes.withdraw.isEnabled()


def test_a_stale_fence_is_explained_offers_reload_and_writes_nothing(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """A file changed after the dialog showed it: the publish is refused with the fence's
    reason, the dialog says so and offers Reload, and no file or journal entry is written
    (spec: corrections-and-merges, fenced writes)."""
    window = open_window(people.root, watch=False)
    show(qtbot, window, TEA)
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    path = people.root / TEA
    path.write_bytes(path.read_bytes() + b"Edited elsewhere.\n")
    edited = digest(path)
    result = publish(qtbot, dialog, "wrong")
    assert isinstance(result, WriteRejected)
    assert result.code == "fence-hash"
    assert dialog.stale.isVisibleTo(dialog)
    assert "changed since it was shown" in dialog.stale_label.text()
    assert "Nothing was written" in dialog.stale_label.text()
    assert not dialog.publish_button.isEnabled()
    assert digest(path) == edited
    assert window.vault is not None
    assert window.vault.journal()["items"] == []
    dialog.reload()
    qtbot.waitUntil(lambda: dialog.preview is not None and not dialog.busy, timeout=20_000)
    assert not dialog.stale.isVisibleTo(dialog)
    assert "revision 1" in dialog.fence_label.text()
    assert edited[:10] in dialog.fence_label.text()
    dialog.reject()


def test_merge_from_a_possible_duplicates_row(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """The diagnostics pane's Possible duplicates row merges its second page into its
    first after the dialog; the row goes away (spec: corrections-and-merges, Merge)."""
    window = open_window(people.root, watch=False)
    pane = window.diagnostics
    pane.code_box.setCurrentIndex(1)
    pane.select_row(0)
    assert window.writes.merge_candidate.isEnabled()
    window.writes.merge_candidate.trigger()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    dialog = planned(qtbot, window)
    assert "“A. Lovelace” into “Ada Lovelace”: “Ada Lovelace” survives" in dialog.heading.text()
    text = diff_text(dialog)
    assert "+lifecycle: merged" in text
    assert "+merged_into: pg_ada" in text
    assert "merged_from" in text
    receipt = publish(qtbot, dialog, "same person")
    assert isinstance(receipt, dict)
    assert receipt["survivorId"] == "pg_ada"
    assert frontmatter_of((people.root / LOVELACE).read_bytes())["merged_into"] == "pg_ada"
    qtbot.waitUntil(lambda: pane.code_box.itemText(1) != "Possible duplicates (1)", timeout=20_000)


def supersede_tea(qtbot: QtBot, window: MainWindow) -> dict[str, Any]:
    show(qtbot, window, TEA)
    window.writes.supersede.trigger()
    picker: Any = window.writes.form
    qtbot.waitUntil(lambda: picker.list.count() > 0)
    picker.choose("cl_coffee")
    picker.accept()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    receipt = publish(qtbot, planned(qtbot, window), "she switched")
    assert isinstance(receipt, dict)
    return receipt


def test_supersede_by_a_picked_claim_then_undo(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """Supersede By… picks the replacing claim; Undo Supersession restores the claim
    (spec: corrections-and-merges, Supersede and its undo)."""
    people.claim("private/claims/coffee.md", "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    window = open_window(people.root, watch=False)
    receipt = supersede_tea(qtbot, window)
    assert receipt["operation"] == "supersede"
    qtbot.waitUntil(lambda: window.record.loaded.view["lifecycle"] == "superseded")  # type: ignore[union-attr]
    window.writes.refresh()
    assert window.writes.undo.isEnabled()
    window.writes.dialog = None
    window.writes.undo.trigger()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    receipt = publish(qtbot, planned(qtbot, window), "too early")
    assert isinstance(receipt, dict)
    assert receipt["operation"] == "unsupersede"
    assert frontmatter_of((people.root / TEA).read_bytes())["lifecycle"] == "active"


def test_correct_is_a_form_prefilled_from_the_original(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """Correct… opens the original's file without the fields the store assigns (its
    Advanced tab shows the file); the edited text is published as the replacement, the
    original superseded by it (spec: corrections-and-merges, Correct a claim). The form's
    fields: tests/ui/test_record_forms.py."""
    window = open_window(people.root, watch=False)
    show(qtbot, window, TEA)
    window.writes.correct.trigger()
    form: Any = window.writes.form
    form.tabs.setCurrentIndex(1)
    draft = form.editor.toPlainText()
    assert "title: Ada likes tea" in draft
    assert "attribution: Ada in the stand-up" in draft
    for assigned in ("id:", "revision:", "lifecycle:", "recorded_at:", "updated_at:"):
        assert f"\n{assigned}" not in draft
    form.editor.setPlainText(draft.replace("Ada likes tea", "Ada likes green tea"))
    form.review_button.click()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    dialog = planned(qtbot, window)
    text = diff_text(dialog)
    assert "(new file)" in text or "+title: Ada likes green tea" in text
    assert "+lifecycle: superseded" in text
    receipt = publish(qtbot, dialog, "it was green tea")
    assert isinstance(receipt, dict)
    replacement = receipt["replacementId"]
    assert frontmatter_of((people.root / TEA).read_bytes())["superseded_by"] == replacement
