"""The write dialogs say what is final and what can be undone, show what will be written,
and undo right after (issue 29, §3, §4 and the merge dialog and focus of §8; spec:
corrections-and-merges).

The windows here do not watch the folder: every pane update after a write came through
`Vault.on_publish`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.records import frontmatter as fm
from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_write_actions import ADA, LOVELACE, TEA, diff_text, planned, publish, show, supersede_tea
from tests.vaultkit import VaultKit, frontmatter_of, wait_idle

OpenWindow = Callable[..., MainWindow]


@pytest.fixture
def people(kit: VaultKit) -> VaultKit:
    """Two pages for one person, a claim about her and one that can supersede it."""
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.page(LOVELACE, "pg_lovelace", "A. Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/coffee.md", "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    return kit


def test_the_withdraw_dialog_says_before_its_button_that_a_withdrawal_is_final(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    show(qtbot, window, TEA)
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    assert dialog.permanence.isVisibleTo(dialog)
    text = dialog.permanence.text()
    assert "final" in text
    assert "no operation brings it back" in text
    layout = dialog.layout()
    assert layout.indexOf(dialog.permanence) < layout.indexOf(dialog.buttons)
    # fences, hashes and the request id are behind Details, closed by default
    assert not dialog.details.is_open()
    assert not dialog.fence_label.isVisibleTo(dialog)
    assert "Request id: rq_" in dialog.details_text()
    dialog.details.toggle.click()
    assert dialog.fence_label.isVisibleTo(dialog)
    dialog.reject()


def test_ctrl_z_after_a_supersede_restores_the_claim_and_a_withdrawal_has_no_undo(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """Right after a supersede the status bar offers Undo and Ctrl+Z undoes it through the
    publish path (journaled, operation unsupersede); after a withdrawal Edit › Undo is
    disabled and says why."""
    original = (people.root / TEA).read_bytes()
    window = open_window(people.root, watch=False)
    undo = window.writes.undoing
    assert not undo.action.isEnabled()
    assert QKeySequence("Ctrl+Z") in undo.action.shortcuts()
    assert undo.menu.title() == "&Edit"
    supersede_tea(qtbot, window)
    assert undo.notice.isVisible()
    assert undo.notice.button.isVisible()
    assert undo.action.isEnabled()
    assert undo.action.text() == "&Undo Supersede"
    wait_idle(qtbot, window)
    window.catalog.tree.setFocus()
    with qtbot.waitSignal(undo.undone, timeout=20_000) as blocker:
        qtbot.keyClick(window.catalog.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(blocker.args[0], dict)
    assert blocker.args[0]["operation"] == "unsupersede"
    after = (people.root / TEA).read_bytes()
    kept = frontmatter_of(original)
    now = frontmatter_of(after)
    assert now["lifecycle"] == "active"
    assert "superseded_by" not in now
    for key in ("revision", "updated_at", "lifecycle_change"):
        kept.pop(key, None)
        now.pop(key, None)
    assert now == kept  # the claim as it was, with one more revision saying why
    assert after.split(b"\n---\n", 1)[1] == original.split(b"\n---\n", 1)[1]  # body bytes
    wait_idle(qtbot, window)
    (row,) = window.catalog.model._by_path[TEA]
    assert row.item["lifecycle"] == "active"
    assert not undo.action.isEnabled()
    assert window.vault is not None
    assert [e["operation"] for e in window.vault.journal()["items"]][:2] == ["unsupersede", "supersede"]

    show(qtbot, window, TEA)
    window.writes.withdraw.trigger()
    assert isinstance(publish(qtbot, planned(qtbot, window), "wrong"), dict)
    assert not undo.action.isEnabled()
    assert "final" in undo.action.toolTip()
    assert undo.notice.isVisible()
    assert not undo.notice.button.isVisibleTo(undo.notice)


def test_an_undo_after_the_vault_changed_is_refused_with_a_clear_message(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    undo = window.writes.undoing
    supersede_tea(qtbot, window)
    path = people.root / TEA
    path.write_bytes(path.read_bytes() + b"Edited elsewhere.\n")
    edited = path.read_bytes()
    with qtbot.waitSignal(undo.undone, timeout=20_000) as blocker:
        undo.action.trigger()
    assert isinstance(blocker.args[0], str)
    message = window.statusBar().currentMessage()
    assert message.startswith("Cannot undo the supersede:")
    assert "Nothing was written" in message
    assert path.read_bytes() == edited
    assert not undo.action.isEnabled()
    assert undo.action.toolTip() == message


def test_activity_offers_undo_on_a_supersede_entry(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    supersede_tea(qtbot, window)
    activity = window.writes.activity
    with qtbot.waitSignal(activity.refreshed, timeout=20_000):
        activity.refresh()
    activity.tree.setCurrentItem(activity.tree.topLevelItem(0))
    assert activity.undo_button.isEnabled()
    assert activity.undo_button.text() == "Undo Supersede"
    with qtbot.waitSignal(window.writes.undoing.undone, timeout=20_000):
        activity.undo_button.click()
    assert frontmatter_of((people.root / TEA).read_bytes())["lifecycle"] == "active"
    with qtbot.waitSignal(activity.refreshed, timeout=20_000):
        activity.refresh()
    activity.tree.setCurrentItem(activity.tree.topLevelItem(0))
    assert activity.entries[0]["operation"] == "unsupersede"
    assert not activity.undo_button.isEnabled()  # an undo is not undone again
    assert "itself an undo" in activity.undo_button.toolTip()


def test_the_correct_preview_shows_the_id_and_text_that_are_written(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """The replacement's id is chosen once: the preview's new file is the file written, but
    for the reason and the time, which the preview marks as still to come."""
    window = open_window(people.root, watch=False)
    show(qtbot, window, TEA)
    window.writes.correct.trigger()
    form: Any = window.writes.form
    form.tabs.setCurrentIndex(1)  # Advanced: the file as text
    form.editor.setPlainText(form.editor.toPlainText().replace("Ada likes tea", "Ada likes green tea"))
    form.review_button.click()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    dialog = planned(qtbot, window)
    assert dialog.preview is not None
    (new_file,) = [d for d in dialog.preview.diffs if d.new_file]
    (shown_id,) = [line.removeprefix("+id: ") for line in new_file.lines if line.startswith("+id: ")]
    assert f"+superseded_by: {shown_id}" in diff_text(dialog)
    receipt = publish(qtbot, dialog, "it was green tea")
    assert isinstance(receipt, dict)
    assert receipt["replacementId"] == shown_id
    written = (people.root / new_file.path).read_text(encoding="utf-8")
    split = fm.split(written)
    assert split is not None
    from knowledge_desktop.ui.write_ops import PREVIEW_REASON, PUBLISH_TIME  # (not on main)

    preview_text = "\n".join(line[1:] for line in new_file.lines)
    shown = preview_text.replace(PUBLISH_TIME, receipt["at"]).replace(PREVIEW_REASON, "it was green tea")
    assert shown.splitlines() == split.yaml_text.splitlines()
    assert frontmatter_of((people.root / TEA).read_bytes())["superseded_by"] == shown_id


def test_the_actor_is_the_name_set_in_settings(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    """Settings › Your Name… names who the writes are by: the journal and lifecycle_change."""
    window = open_window(people.root, watch=False)
    names = window.writes.your_name
    names.action.trigger()
    assert names.dialog is not None
    names.dialog.name.setText("Grace Hopper")
    names.dialog.accept()
    show(qtbot, window, TEA)
    window.writes.withdraw.trigger()
    receipt = publish(qtbot, planned(qtbot, window), "wrong")
    assert isinstance(receipt, dict)
    assert window.vault is not None
    assert window.vault.journal()["items"][0]["actor"] == "Grace Hopper"
    assert frontmatter_of((people.root / TEA).read_bytes())["lifecycle_change"]["actor"] == "Grace Hopper"


def test_the_default_name_is_the_accounts_full_name(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """GECOS up to its first comma, else the login name — not `root` when a full name exists."""

    from knowledge_desktop.ui import your_name  # (not on main)

    class Account:
        pw_gecos = "Ada Lovelace,,,"

    pwd = pytest.importorskip("pwd")
    monkeypatch.setattr(pwd, "getpwuid", lambda _uid: Account())
    assert your_name.os_full_name() == "Ada Lovelace"
    assert your_name.your_name(settings) == "Ada Lovelace"
    Account.pw_gecos = ""
    monkeypatch.setattr(your_name.getpass, "getuser", lambda: "root")
    assert your_name.os_full_name() == "root"


def test_the_merge_dialog_names_the_survivor_and_lists_impact_by_title(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    show(qtbot, window, LOVELACE)
    window.writes.merge.trigger()
    picker: Any = window.writes.form
    labels = [w.text() for w in picker.findChildren(QLabel)]
    assert any(
        "Choose the page that survives" in t and "“A. Lovelace” is merged into it" in t for t in labels
    )
    assert not any("page page" in t for t in labels)
    qtbot.waitUntil(lambda: picker.list.count() > 0)
    picker.choose("pg_ada")
    picker.accept()
    qtbot.waitUntil(lambda: window.writes.dialog is not None, timeout=20_000)
    dialog = planned(qtbot, window)
    heading = dialog.heading.text()
    assert "“Ada Lovelace” survives" in heading
    assert "“A. Lovelace” is merged away" in heading
    dialog.reject()
    show(qtbot, window, ADA)
    window.writes.dialog = None
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    rows = [dialog.impact.item(i) for i in range(dialog.impact.count())]
    assert len(rows) == 2
    texts = sorted(r.text() for r in rows)
    assert texts[0].startswith("Ada likes coffee (claim, active)")
    assert texts[1].startswith("Ada likes tea (claim, active)")
    assert all("cl_" not in t for t in texts)  # ids are in the tooltip, not the row
    assert sorted(r.toolTip().split(" · ")[0] for r in rows) == ["cl_coffee", "cl_tea"]
    assert dialog.impact.wordWrap()
    dialog.reject()


def test_focus_returns_to_where_it_was_after_a_dialog_closes(
    qtbot: QtBot, open_window: OpenWindow, people: VaultKit
) -> None:
    window = open_window(people.root, watch=False)
    show(qtbot, window, TEA)
    window.activateWindow()
    qtbot.waitExposed(window)
    tree = window.catalog.tree
    tree.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree)
    window.writes.withdraw.trigger()
    dialog = planned(qtbot, window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.reason)
    dialog.reject()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree)
    # and after a picker cancelled
    window.writes.supersede.trigger()
    picker: Any = window.writes.form
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not tree)
    picker.reject()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree)
