"""Notes' `plain-note` diagnostics are one group row in the Diagnostics pane and in every
export (issue 25 §4): "N plain notes — Adopt…", expandable, with real problems kept as rows.

The rows here are made by hand (code `plain-note`, info), so this does not need the
engine's notes; the window test uses the one writable vault it opens.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.diagnostics import Diagnostic, Severity
from knowledge_desktop.engine.report import diagnostics_report
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.diagnostics_model import CODE, MESSAGE, PATH, SEVERITY, DiagnosticsModel
from knowledge_desktop.ui.panes.diagnostics import DiagnosticsPane
from knowledge_desktop.ui.tasks import Runner
from tests.vaultkit import VaultKit, wait_idle

NOTES = 40


def note(n: int) -> Diagnostic:
    return Diagnostic("plain-note", Severity.INFO, f"notes/n{n:03}.md", None, None, "A plain Markdown note")


def problems() -> list[Diagnostic]:
    return [
        Diagnostic("link-missing", Severity.WARNING, "notes/n001.md", 3, None, "No note named Nowhere"),
        Diagnostic("yaml-error", Severity.ERROR, "notes/bad.md", 2, None, "Frontmatter is not valid YAML"),
        Diagnostic("duplicate-alias", Severity.INFO, "private/a.md", None, "pg_a", "Alias used twice"),
    ]


def items() -> list[Diagnostic]:
    return [note(n) for n in range(NOTES)] + problems()


def texts(model: DiagnosticsModel, column: int) -> list[str]:
    return [str(model.index(r, column).data()) for r in range(model.rowCount())]


def test_plain_notes_are_one_row_after_the_problems(qtbot: QtBot) -> None:
    holder = QWidget()
    qtbot.addWidget(holder)
    model = DiagnosticsModel(holder)
    ModelTester(qtbot).check(model, force_py=True)
    model.set_items(items(), reset=True)
    assert model.rowCount() == len(problems()) + 1
    assert texts(model, CODE) == ["yaml-error", "link-missing", "duplicate-alias", "plain-note"]
    assert texts(model, PATH)[-1] == f"▸ {NOTES} plain notes — Adopt…"
    assert model.is_group(3)
    assert model.shown_count == NOTES + 3
    assert model.severity_counts()[Severity.INFO] == NOTES + 1  # the totals still count every note

    model.toggle_group()
    assert model.rowCount() == len(problems()) + 1 + NOTES
    assert texts(model, PATH)[3].startswith("▾ ")
    assert texts(model, PATH)[4:] == [f"notes/n{n:03}.md" for n in range(NOTES)]

    # Sorting orders the problems and the notes, but the notes stay under their group row.
    model.sort(PATH, Qt.SortOrder.DescendingOrder)
    assert texts(model, CODE)[:4] == ["duplicate-alias", "link-missing", "yaml-error", "plain-note"]
    assert texts(model, PATH)[4] == f"notes/n{NOTES - 1:03}.md"
    model.toggle_group()
    assert model.rowCount() == 4

    # A filter counts only the notes it matches; hiding info hides the group.
    model.set_filter(text="n00")
    assert texts(model, PATH) == ["notes/n001.md", "▸ 10 plain notes — Adopt…"]
    model.set_filter(text="", severities=[Severity.ERROR, Severity.WARNING])
    assert texts(model, CODE) == ["link-missing", "yaml-error"]  # still by path, descending

    # A reload without the notes drops the group row; the problems stay.
    model.set_filter(severities=list(Severity))
    model.set_items(problems())
    assert texts(model, CODE) == ["duplicate-alias", "link-missing", "yaml-error"]


def test_the_pane_unfolds_the_group_and_asks_for_adopt(qtbot: QtBot) -> None:
    pane = DiagnosticsPane(Runner())
    qtbot.addWidget(pane)
    pane.runner.setParent(pane)  # it goes with the pane, deleted on this thread
    pane.vault = object()  # type: ignore[assignment]  # the pane only checks that one is open
    pane.model.set_items(items(), reset=True)
    pane._after_load()
    assert pane.adopt_button.isVisibleTo(pane)
    group = pane.model.index(3, SEVERITY)
    assert "plain notes" in str(pane.model.index(3, PATH).data())
    with qtbot.assertNotEmitted(pane.open_requested):
        pane.table.doubleClicked.emit(group)
    assert pane.model.rowCount() == 4 + NOTES
    assert pane.shown_label.text() == ""  # everything is shown, grouped or not
    assert pane.model.is_group(pane.table.currentIndex().row())
    with qtbot.waitSignal(pane.open_requested) as opened:
        pane.table.doubleClicked.emit(pane.model.index(4, SEVERITY))
    assert opened.args == ["notes/n000.md", 0]
    adopt = next(a for a in pane.table.actions() if a.text() == "Adopt Notes…")
    with qtbot.waitSignal(pane.adopt_requested):
        adopt.trigger()
    with qtbot.waitSignal(pane.adopt_requested):
        pane.adopt_button.click()
    pane.select_row(3)
    pane.copy_selected()
    assert f"{NOTES} plain notes" in QApplication.clipboard().text()
    assert "Double-click to fold" in str(pane.model.index(3, MESSAGE).data())


def test_adopt_on_the_group_opens_file_adopt_notes(
    qtbot: QtBot, open_window: Callable[..., MainWindow], kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root, watch=False)
    wait_idle(qtbot, window)
    assert window.writes.adopt.dialog is None
    window.diagnostics.adopt_requested.emit()
    assert window.writes.adopt.dialog is not None
    assert window.writes.adopt.dialog.isVisible()
    window.writes.adopt.dialog.reject()
    wait_idle(qtbot, window)


def test_every_export_groups_the_plain_notes(tmp_path: Path) -> None:
    found = items()
    data = json.loads(diagnostics_report.render(found, "json"))
    assert [d["code"] for d in data["items"]] == ["link-missing", "yaml-error", "duplicate-alias"]
    assert data["counts"]["total"] == NOTES + 3
    (group,) = data["groups"]
    assert (group["code"], group["count"], len(group["paths"])) == ("plain-note", NOTES, NOTES)

    table = list(csv.reader(io.StringIO(diagnostics_report.render(found, "csv"))))
    assert len(table) == 1 + 3 + 1
    assert table[-1][:2] == ["plain-note", "info"]
    assert table[-1][-1].startswith(f"{NOTES} plain notes")

    markdown = diagnostics_report.render(found, "md")
    assert "n003.md" not in markdown
    assert f"{NOTES} plain notes" in markdown
    assert "Frontmatter is not valid YAML" in markdown

    html = diagnostics_report.render(found, "html")
    assert html.count("<tr><td><span class='pill") == 3 + 1
    assert f"<td colspan='4'>{NOTES} plain notes" in html
    assert html.count("<code>notes/n0") == NOTES + 1  # in the group's cell, and the one problem row

    # Without notes nothing changes: no group anywhere.
    plain = json.loads(diagnostics_report.render(problems(), "json"))
    assert "groups" not in plain
    assert len(plain["items"]) == 3
