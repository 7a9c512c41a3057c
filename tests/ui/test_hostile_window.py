"""The window on the hostile vault of `tests/hostile_cases.py`: every file opens in the
record pane with its findings, every case's diagnostic is a row of the diagnostics pane
and opens its file, each within seconds, and no exception reaches the crash dialog
(pytest-qt also fails a test on an exception escaping a slot)."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui import opening
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.record import LINE_LIMIT, read_source
from tests import hostile_cases as hc
from tests.cost import assert_near_linear
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


def test_the_hostile_vault_opens_and_every_file_and_finding_shows_without_a_crash(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    hc.build(root, tmp_path / "outside")
    # Parse in this process: for root, the unreadable cases are stood in for here.
    monkeypatch.setattr(opening, "OFFLOAD_FROM", 1_000_000)
    with hc.locked(root):
        window = open_window(root)
        crashes: list[str] = []
        window.runner.crashed.connect(crashes.append)
        vault = window.vault
        assert vault is not None
        paths = {row[0] for row in vault.store.reader().execute("SELECT path FROM catalog")}
        hostile = {c.path for c in hc.CASES if c.code != "ontology-activation-failed"}
        assert hostile <= paths
        # Every hostile file and every file beside them, but one link of each long chain.
        shown_files = sorted(p for p in paths if "/chain/" not in p or p in hostile)
        pane = window.record
        for path in shown_files:
            window.open_record(path)
            # A bound that fails rather than hangs; what each shape costs is measured by
            # size (four times the input, about four times the cost) in tests/engine/test_hostile.py
            # and below, not by the clock of a shared machine.
            wait_idle(qtbot, window, timeout=30_000)
            assert window.current_path == path
            assert pane.loaded is not None, pane.empty.text()
            assert pane.loaded.path == path
            for finding in pane.loaded.view["diagnostics"]:
                if finding["code"] != "link-missing":
                    assert html.escape(finding["message"]) in pane.loaded.document
        shown = window.diagnostics
        model = shown.model
        if model.group_count and not model.expanded:
            shown.toggle_group()  # notes' plain-note rows are listed under their group row (issue 25)
        while True:  # rows are read a page at a time, as the table scrolls (issue 26 §3)
            wait_idle(qtbot, window)
            if not model.canFetchMore(QModelIndex()):
                break
            model.fetchMore(QModelIndex())
        rows = {(model.diagnostic(r).path, model.diagnostic(r).code): r for r in range(model.rowCount())}
        for case in hc.CASES:
            if case.code is None:
                continue
            row = rows[(case.path, case.code)]
            shown.select_row(row)
            assert shown.selected_diagnostic() == shown.model.diagnostic(row)
            shown._open_index(shown.model.index(row, 0))
            wait_idle(qtbot, window, timeout=30_000)
            if case.path in paths:
                assert window.current_path == case.path
            else:  # an ontology manifest is not a record: the status bar says so
                assert case.path in window.statusBar().currentMessage()
        assert crashes == []


@pytest.mark.parametrize(
    ("body", "size", "note"),
    [
        (lambda n: "[" * n + "]" * n + "\n", 50_000, "nest too deeply"),
        (lambda n: "x" * n + "\n", 400_000, "without a space"),
    ],
    ids=["nested-brackets", "an-unbroken-400-kb-word"],
)
def test_bodies_that_would_take_the_renderer_minutes_are_shown_as_source_only(
    kit: VaultKit, body: Callable[[int], str], size: int, note: str
) -> None:
    """Record pane: Markdown nested 50,000 brackets deep, or a 400 KB word, would take the
    renderer or Qt's layout minutes; the pane says why and shows the source instead, at a
    cost that doubles with the body (not the renderer's)."""
    kit.write("private/notes/x.md", hc.page("pg_x", "X", "x\n"))
    vault = kit.scan()

    def shown(n: int) -> tuple[str, str | None, bool]:
        kit.write("private/notes/x.md", hc.page("pg_x", "X", body(n)))
        vault.reconcile(["private/notes/x.md"])
        return read_source(vault, "private/notes/x.md")

    assert_near_linear(shown, size)
    _source, notice, renderable = shown(size)
    assert not renderable
    assert notice is not None
    assert note in notice


def test_the_source_view_cuts_long_lines_and_keeps_the_line_count(kit: VaultKit) -> None:
    """Record pane: a line of millions of characters is cut in the source view (Qt lays
    out a whole line to draw any of it) with the count of what was left out; every other
    line keeps its number, so diagnostics still point at the right one."""
    kit.write("private/notes/x.md", hc.page("pg_x", "X", "short\n" + "y" * 3_000_000 + "\nafter\n"))
    vault = kit.scan()
    source, notice, _ = read_source(vault, "private/notes/x.md")
    lines = source.split("\n")
    assert max(len(line) for line in lines) < LINE_LIMIT + 40
    assert lines[12] == "short"
    assert lines[13].endswith(f"[{3_000_000 - LINE_LIMIT:,} more characters]")
    assert lines[14] == "after"
    assert notice is not None
    assert f"after {LINE_LIMIT:,} characters" in notice
