"""Forms instead of raw YAML for Correct… and File › New… (issue 29 §2).

Correct… and New Claim/Relationship/Page show fields, pick pages by title,
edit evidence as rows and dates with a date editor, keep the file as an
Advanced (YAML) tab, check the result with the engine before review, and come
Back from review with everything as it was typed. The windows here do not
watch the folder: what a pane shows after a write came from the publish.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.forms.fields import DateField
from knowledge_desktop.ui.forms.new_records import NewReview
from knowledge_desktop.ui.forms.page_picker import PageList, PagePicker
from knowledge_desktop.ui.forms.record_form import RecordForm
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.publish_dialog import PublishDialog
from tests.vaultkit import frontmatter_of, wait_idle

OpenWindow = Callable[..., MainWindow]

pytestmark = pytest.mark.qt_log_ignore("grabbing the keyboard", r"support raise\(\)")
"""The offscreen platform says it cannot grab the keyboard or raise the completer's popup."""

WAYFINDER_SHIPS = "private/claims/wayfinder-1-0-ships-15-january-2027.md"
WAYFINDER = "pg_01KT4ME7M09Y8ZHK"
LEDGERLIGHT = "pg_01KTXMCC801JYKVD"
JONAH, MIRA, HARBOR_LANE = "pg_01KT1406X083BPT3", "pg_01KT13TQ40VBJ1VN", "pg_01KT134R00XFDKKX"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


def show(qtbot: QtBot, window: MainWindow, path: str) -> None:
    window.open_record(path)
    qtbot.waitUntil(lambda: (s := window.writes.shown) is not None and s.path == path, timeout=20_000)


def ready_form(qtbot: QtBot, form: object) -> RecordForm:
    assert isinstance(form, RecordForm)
    qtbot.waitUntil(lambda: form.loaded, timeout=20_000)
    return form


def new_form(qtbot: QtBot, window: MainWindow, kind: str) -> RecordForm:
    window.writes.new.actions[kind].trigger()
    qtbot.waitUntil(lambda: window.writes.new.form is not None, timeout=20_000)
    return ready_form(qtbot, window.writes.new.form)


def pick_by_typing(qtbot: QtBot, picker: PagePicker, typed: str, title: str) -> None:
    """Type into the picker, then choose `title` in its popup with the keyboard."""
    picker.setFocus()
    picker.clear()
    qtbot.keyClicks(picker, typed)
    popup = picker.completer_.popup()
    assert popup is not None
    qtbot.waitUntil(popup.isVisible)
    model = popup.model()
    rows = [model.index(i, 0).data() for i in range(model.rowCount())]
    row = next(i for i, label in enumerate(rows) if label.startswith(title))
    popup.setCurrentIndex(model.index(row, 0))
    qtbot.keyClick(popup, Qt.Key.Key_Return)


def fill_hanas_commitment(qtbot: QtBot, form: RecordForm) -> None:
    """The New Claim form filled as a person would: Hana's review of the Wayfinder sync
    design, a commitment from a source, about Wayfinder (picked by typing "wayf")."""
    form.fields["title"].set("Hana reviews the sync design by Friday")
    form.fields["body"].set("Hana will review the Wayfinder sync design before the field trial.")
    form.fields["claim_kind"].set("commitment")
    form.fields["assertion_origin"].set("source")
    form.fields["attribution"].set("Mira in the stand-up, 2026-09-28")
    entities = form.fields["entities"].widget
    assert isinstance(entities, PageList)
    pick_by_typing(qtbot, entities.picker, "wayf", "Wayfinder")


def review(qtbot: QtBot, form: RecordForm) -> None:
    with qtbot.waitSignal(form.checked, timeout=20_000):
        form.review_button.click()


def planned(qtbot: QtBot, window: MainWindow) -> PublishDialog:
    dialog = window.writes.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.busy and dialog.preview is not None, timeout=20_000)
    return dialog


def test_correct_is_a_form_with_a_page_picker_and_back_from_review_keeps_what_was_typed(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """Correct… on a demo claim: the text and an entity changed in the form (the entity
    chosen by typing part of its title), review, Back, the values are still there; publish
    writes the new text and the entity's id."""
    window = open_window(demo, watch=False)
    show(qtbot, window, WAYFINDER_SHIPS)
    window.writes.correct.trigger()
    form = ready_form(qtbot, window.writes.form)
    body = form.fields["body"]
    assert "ahead of Verdant's spring survey season" in body.get()
    assert form.fields["claim_kind"].get() == "decision"
    assert form.fields["attribution"].get() == "The team in Q4 planning, 2026-11-12"
    entities = form.fields["entities"].widget
    assert isinstance(entities, PageList)
    assert entities.value() == [WAYFINDER]
    assert entities.list.item(0).text().startswith("Wayfinder")  # a title, not the id
    assert form.evidence.value()[0]["path"] == "meetings/2026-11-12-q4-planning.md"
    assert form.fields["occurred_at"].get() == "2026-11-12"

    body.set("Wayfinder 1.0 is planned to ship on 29 January 2027.")
    entities.list.setCurrentRow(0)
    entities.remove.click()
    pick_by_typing(qtbot, entities.picker, "ledger", "Ledgerlight")
    assert entities.value() == [LEDGERLIGHT]

    review(qtbot, form)
    dialog = planned(qtbot, window)
    assert "+entities: [" + LEDGERLIGHT + "]" in dialog.diff.toPlainText()
    back = next(b for b in dialog.buttons.buttons() if "Back" in b.text())
    back.click()
    qtbot.waitUntil(form.isVisible)
    assert not dialog.isVisible()
    assert body.get() == "Wayfinder 1.0 is planned to ship on 29 January 2027."
    assert entities.value() == [LEDGERLIGHT]

    review(qtbot, form)
    dialog = planned(qtbot, window)
    dialog.reason.setText("the date moved; it is Ledgerlight's dependency")
    with qtbot.waitSignal(dialog.finished_publish, timeout=20_000) as blocker:
        dialog.publish_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    written = next(i["path"] for i in receipt["items"] if i["id"] == receipt["replacementId"])
    text = (demo / written).read_text(encoding="utf-8")
    data = frontmatter_of(text.encode())
    assert data["entities"] == [LEDGERLIGHT]
    assert data["supersedes"] == "cl_01M78A4KB02ZAYQA"
    assert text.rstrip().endswith("Wayfinder 1.0 is planned to ship on 29 January 2027.")
    assert data["evidence"][0]["lines"] == [22, 22]  # rows kept what they did not edit
    wait_idle(qtbot, window)


def test_the_picker_finds_a_page_by_part_of_its_title(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    window = open_window(demo, watch=False)
    form = new_form(qtbot, window, "relationship")
    picker = form.fields["from"].widget
    assert isinstance(picker, PagePicker)
    assert picker.matches("kafo") == [JONAH]
    assert MIRA in picker.matches("castell")
    pick_by_typing(qtbot, picker, "okaf", "Jonah Okafor")
    assert picker.value() == JONAH
    qtbot.waitUntil(lambda: picker.text() == "Jonah Okafor")
    form.reject()


def test_relationship_labels_are_those_the_ontology_permits_for_the_endpoints(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """`leads` goes from a person to a project, `supports` from a company to a project
    (the demo's ontology): the label choice follows the endpoints chosen."""
    window = open_window(demo, watch=False)
    form = new_form(qtbot, window, "relationship")
    labels = form.label_box

    def offered() -> set[str]:
        return {labels.itemData(i) for i in range(labels.count())} - {None}

    form.fields["to"].widget.choose(WAYFINDER)  # type: ignore[attr-defined]
    form.fields["from"].widget.choose(JONAH)  # type: ignore[attr-defined]
    assert "leads" in offered()
    assert "supports" not in offered()
    form.fields["from"].widget.choose(HARBOR_LANE)  # type: ignore[attr-defined]
    assert "supports" in offered()
    assert "leads" not in offered()
    form.reject()


def test_new_claim_from_the_file_menu_creates_a_record_the_cli_finds_valid(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """File › New › New Claim…: the form checks with the engine (a claim with no evidence is
    refused, the message under Evidence), the review goes Back and forth, Create publishes
    through the `new` path, and `knowledge diagnostics` finds no error in the file."""
    window = open_window(demo, watch=False)
    menu_texts = [a.text() for a in window.writes.new.menu.actions()]
    assert menu_texts == ["New &Page…", "New &Claim…", "New &Relationship…"]
    form = new_form(qtbot, window, "claim")
    fill_hanas_commitment(qtbot, form)
    due = form.fields["due_at"].widget
    assert isinstance(due, DateField)
    due.setDate(QDate(2026, 10, 2))
    assert form.fields["due_at"].get() == "2026-10-02"

    review(qtbot, form)  # no evidence yet
    assert form.isVisible()
    assert "evidence" in form.field_error("evidence").lower()
    assert window.writes.new.review is None

    row = form.evidence.rows[0]
    row.path.setText("meetings/2026-09-28-standup.md")
    row.first.setValue(29)
    row.last.setValue(29)
    row.quote.setText("Mira will send Northwind a letter confirming the pause")
    review(qtbot, form)
    assert form.field_error("evidence") == ""
    shown = window.writes.new.review
    assert isinstance(shown, NewReview)
    assert "private/claims/hana-reviews-the-sync-design-by-friday.md" in shown.where.text()
    shown.back_button.click()
    qtbot.waitUntil(form.isVisible)
    assert form.fields["title"].get() == "Hana reviews the sync design by Friday"
    review(qtbot, form)
    created = window.writes.new.review
    assert isinstance(created, NewReview)
    assert created is not shown
    with qtbot.waitSignal(created.finished_publish, timeout=20_000) as blocker:
        created.create_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    assert receipt["operation"] == "new"
    (item,) = receipt["items"]
    data = frontmatter_of((demo / item["path"]).read_bytes())
    assert data["entities"] == [WAYFINDER]
    assert data["evidence"] == [
        {
            "path": "meetings/2026-09-28-standup.md",
            "lines": [29, 29],
            "quote": "Mira will send Northwind a letter confirming the pause",
        }
    ]
    wait_idle(qtbot, window)
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", "diagnostics", str(demo), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=os.environ,
    )
    found = json.loads(done.stdout)
    mine = [d for d in found["items"] if d["path"] == item["path"]]
    assert [d for d in mine if d["severity"] == "error"] == [], mine


def test_a_yaml_error_in_advanced_is_shown_with_its_line_and_the_form_follows_valid_edits(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    window = open_window(demo, watch=False)
    show(qtbot, window, WAYFINDER_SHIPS)
    window.writes.correct.trigger()
    form = ready_form(qtbot, window.writes.form)
    form.fields["attribution"].set("The whole team in Q4 planning")
    form.tabs.setCurrentIndex(1)
    text = form.editor.toPlainText()
    assert "attribution: The whole team in Q4 planning" in text  # form -> YAML
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("attribution:"))
    lines[at] = "attribution: Mira: on reflection"
    form.editor.setPlainText("\n".join(lines))
    assert form.yaml_error.isVisibleTo(form)
    assert f"Line {at + 1}" in form.yaml_error.text()
    form.tabs.setCurrentIndex(0)  # refused: the Advanced tab stays, with what was typed
    assert form.tabs.currentIndex() == 1
    assert "attribution: Mira: on reflection" in form.editor.toPlainText()
    review(qtbot, form)
    assert window.writes.dialog is None
    lines[at] = "attribution: Mira, on reflection"
    form.editor.setPlainText("\n".join(lines))
    assert not form.yaml_error.isVisibleTo(form)
    form.tabs.setCurrentIndex(0)  # YAML -> form
    assert form.tabs.currentIndex() == 0
    assert form.fields["attribution"].get() == "Mira, on reflection"
    form.reject()


def test_new_page_offers_the_ontology_types_and_their_fields_and_says_what_is_missing(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """New Page: the type comes from the ontology, the type's fields follow it, and a
    required field left empty is refused by the engine's validation, shown under the fields
    (the demo's `experiment` requires `hypothesis`)."""
    window = open_window(demo, watch=False)
    form = new_form(qtbot, window, "page")
    form.fields["scope"].set("private")
    qtbot.waitUntil(lambda: form.loaded, timeout=20_000)
    types = {form.type_box.itemData(i) for i in range(form.type_box.count())}
    assert {"person", "project", "experiment"} <= types
    form.fields["title"].set("Offline tiles spike")
    form.fields["type"].set("experiment")
    assert set(form.type_fields) == {"hypothesis", "outcome", "duration_days", "metrics", "shipped"}
    review(qtbot, form)
    assert "hypothesis" in form.field_error("fields")
    assert window.writes.new.review is None
    hypothesis, _kind = form.type_fields["hypothesis"]
    hypothesis.set("Prefetching a 2 km radius covers a survey day")
    form.type_fields["duration_days"][0].set("5")
    form.fields["aliases"].set(["tile spike"])
    review(qtbot, form)
    created = window.writes.new.review
    assert isinstance(created, NewReview)
    with qtbot.waitSignal(created.finished_publish, timeout=20_000) as blocker:
        created.create_button.click()
    receipt = blocker.args[0]
    assert isinstance(receipt, dict), receipt
    (item,) = receipt["items"]
    assert item["path"] == "private/experiments/offline-tiles-spike.md"
    data = frontmatter_of((demo / item["path"]).read_bytes())
    assert data["type"] == "experiment"
    assert data["aliases"] == ["tile spike"]
    assert data["fields"] == {
        "hypothesis": "Prefetching a 2 km radius covers a survey day",
        "duration_days": 5,
    }
    wait_idle(qtbot, window)


def test_a_label_not_declared_for_the_endpoints_is_kept_and_marked_not_dropped(
    qtbot: QtBot, open_window: OpenWindow, demo: Path
) -> None:
    """The demo's deliberately broken relationship has a company lead a project: the form
    keeps its label, says it is not declared for these pages, and Review… refuses it under
    the field the engine names."""
    window = open_window(demo, watch=False)
    show(qtbot, window, "private/relationships/broken-company-leads-project.md")
    window.writes.correct.trigger()
    form = ready_form(qtbot, window.writes.form)
    assert form.fields["label"].get() == "leads"
    assert "not declared for these pages" in form.label_box.currentText()
    assert "leads" in form.form_text()
    review(qtbot, form)
    assert window.writes.dialog is None
    assert form.general.isVisibleTo(form) or any(form.field_error(k) for k in ("from", "to", "label"))
    form.reject()
