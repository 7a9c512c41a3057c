"""The Catalog pane: counts tree, problem groups, filter, facets, sort, paging, live changes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.query.catalog_tree import Branch, CatalogQuery
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.catalog_model import NODE_ROLE, PATH_ROLE, CatalogModel, error_color
from knowledge_desktop.ui.panes.catalog import CatalogPane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


def labels(model: CatalogModel, parent: QModelIndex | None = None) -> list[str]:
    parent = parent or QModelIndex()
    return [str(model.index(r, 0, parent).data()) for r in range(model.rowCount(parent))]


def child(model: CatalogModel, parent: QModelIndex, label: str) -> QModelIndex:
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        if index.data() == label:
            return index
    raise AssertionError(f"no {label!r} under {parent.data()!r}: {labels(model, parent)}")


def walk(model: CatalogModel, *path: str) -> QModelIndex:
    index = QModelIndex()
    for label in path:
        index = child(model, index, label)
    return index


def count(index: QModelIndex) -> int:
    return int(str(index.siblingAtColumn(1).data()).replace(",", ""))


def expand(qtbot: QtBot, window: MainWindow, index: QModelIndex) -> None:
    """Expand a node and its ancestors (a view ignores expanding a hidden node) and wait for rows."""
    chain = []
    while index.isValid():
        chain.append(index)
        index = index.parent()
    for node in reversed(chain):
        window.catalog.tree.expand(node)
    wait_idle(qtbot, window)


def people_vault(kit: VaultKit) -> None:
    """Three people (one superseded), a company, an invalid claim and an unreadable file."""
    change = {"reason": "renamed", "at": "2026-10-01T09:00:00.000Z"}
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", tags=["math"])
    kit.page(
        "private/people/bob.md",
        "pg_bob",
        "Bob Stone",
        type="person",
        lifecycle="superseded",
        superseded_by="pg_cy",
        lifecycle_change=change,
    )
    kit.page(
        "private/people/cy.md",
        "pg_cy",
        "Cy Young",
        type="person",
        supersedes="pg_bob",
        updated_at="2026-12-01T00:00:00.000Z",
    )
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    kit.claim("private/claims/bad.md", "cl_bad", "Broken claim", evidence=[])
    kit.write("private/notes/broken.md", "---\nformat: knowledge-record-v1\nid: x\n---\n")


def test_counts_per_partition_kind_and_type_match_knowledge_records(
    open_window: OpenWindow, tmp_path: Path
) -> None:
    vault_path = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), vault_path)
    window = open_window(vault_path)
    model = window.catalog.model
    vault = window.vault
    assert vault is not None
    assert labels(model) == ["private", "shared", "Notes"]  # its README.md is a note (issue 25)
    everything = RecordFilter(include_ineligible=True, lifecycle="all")
    for scope in ("private", "shared"):
        listed = vault.records(replace(everything, scope=scope), limit=1000)
        partition = walk(model, scope)
        assert count(partition) == listed["total"]
        for r in range(model.rowCount(partition)):
            kind_index = model.index(r, 0, partition)
            if kind_index.data(NODE_ROLE) != "kind":
                continue
            for t in range(model.rowCount(kind_index)):
                type_index = model.index(t, 0, kind_index)
                expected = sum(
                    1
                    for item in listed["items"]
                    if item["type"] == type_index.data() and item["kind"] in str(kind_index.data()).lower()
                )
                assert count(type_index) == expected, (scope, kind_index.data(), type_index.data())
    assert sum(count(walk(model, s)) for s in ("private", "shared")) == vault.records(everything)["total"]
    assert window.catalog.summary.text().startswith(f"{vault.records(everything)['total']} records")


def test_invalid_and_unrecognized_groups_are_marked_with_a_reason(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    model = window.catalog.model
    partition = walk(model, "private")
    assert labels(model, partition) == ["Pages", "Claims", "Invalid", "Unrecognized"]
    red = error_color(QPalette())
    for group in ("Invalid", "Unrecognized"):
        index = child(model, partition, group)
        assert count(index) == 1
        assert model.data(index, Qt.ItemDataRole.ForegroundRole) == red
        assert "First problem" in str(index.data(Qt.ItemDataRole.ToolTipRole))
    invalid = child(model, partition, "Invalid")
    assert "evidence" in str(invalid.data(Qt.ItemDataRole.ToolTipRole))
    expand(qtbot, window, invalid)
    row = model.index(0, 0, invalid)
    assert row.data() == "Broken claim"
    assert model.data(row, Qt.ItemDataRole.ForegroundRole) == red
    assert "evidence" in str(row.data(Qt.ItemDataRole.ToolTipRole))
    superseded_parent = walk(model, "private", "Pages", "person")
    expand(qtbot, window, superseded_parent)
    bob = child(model, superseded_parent, "Bob Stone")
    assert bob.siblingAtColumn(1).data() == "superseded"
    assert model.data(bob, Qt.ItemDataRole.FontRole).strikeOut()


class QtBotHolder:
    """The current test's qtbot, for helpers called from plain functions."""

    bot: QtBot


def test_filter_box_narrows_rows_and_counts(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    assert pane.filters.filter.placeholderText() == "Filter by title, alias, id or path"
    qtbot.keyClicks(pane.filters.filter, "lovelace")
    qtbot.waitUntil(lambda: pane.query.text == "lovelace", timeout=2000)
    wait_idle(qtbot, window)
    model = pane.model
    assert labels(model) == ["private"]
    assert labels(model, walk(model, "private")) == ["Pages"]
    assert count(walk(model, "private", "Pages", "person")) == 1
    pane.filters.filter.setText("nothing-like-this")
    qtbot.waitUntil(lambda: pane.stack.currentWidget() is pane.empty, timeout=2000)
    assert "Nothing matches" in pane.empty.text()


def choose(pane: CatalogPane, combo_name: str, value: str) -> None:
    combo = getattr(pane.filters, combo_name)
    combo.setCurrentIndex(combo.findData(value))


def test_each_facet_narrows_the_tree(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    model = pane.model
    assert pane.filters.tag.findData("math") > 0
    choose(pane, "tag", "math")
    wait_idle(qtbot, window)
    assert count(walk(model, "private")) == 1
    assert labels(model, walk(model, "private")) == ["Pages"]  # tags hide unrecognized files
    pane.filters.tag.setCurrentIndex(0)
    choose(pane, "lifecycle", "superseded")
    wait_idle(qtbot, window)
    assert count(walk(model, "private")) == 1
    choose(pane, "lifecycle", "all")
    choose(pane, "validity", "invalid")
    wait_idle(qtbot, window)
    assert count(walk(model, "private")) == 1
    assert labels(model, walk(model, "private")) == ["Claims", "Invalid", "Unrecognized"]
    choose(pane, "validity", "current")
    wait_idle(qtbot, window)
    assert count(walk(model, "private")) == 3  # Ada, Cy, Acme: not the superseded or invalid ones


def test_sort_orders_records(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    model = pane.model
    person = walk(model, "private", "Pages", "person")
    expand(qtbot, window, person)
    assert labels(model, person) == ["Ada Lovelace", "Bob Stone", "Cy Young"]
    choose(pane, "sort", "updated")
    wait_idle(qtbot, window)
    person = walk(model, "private", "Pages", "person")
    assert window.catalog.tree.isExpanded(person)  # expansion survives a new sort
    wait_idle(qtbot, window)
    assert labels(model, person)[0] == "Cy Young"


def many_notes(kit: VaultKit, n: int = 250) -> None:
    for i in range(n):
        kit.page(f"private/notes/n{i:03d}.md", f"pg_n{i:03d}", f"Note {i:03d}", type="note")


def test_branches_load_lazily_a_page_at_a_time(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    many_notes(kit)
    window = open_window(kit.root)
    pane = window.catalog
    model = pane.model
    model.page_size = 100
    notes = walk(model, "private", "Pages", "note")
    assert count(notes) == 250
    assert model.rowCount(notes) == 0  # nothing loaded before the branch is opened
    assert model.hasChildren(notes)
    expand(qtbot, window, notes)
    assert model.rowCount(notes) == 100
    assert model.has_more(model.node(notes))
    for expected in (200, 250):
        pane.tree.scrollToBottom()
        qtbot.waitUntil(lambda e=expected: model.rowCount(notes) == e, timeout=10_000)
        wait_idle(qtbot, window)
    assert not model.has_more(model.node(notes))
    assert model.index(249, 0, notes).data() == "Note 249"


def test_set_current_fetches_as_far_as_the_record(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    many_notes(kit)
    window = open_window(kit.root)
    pane = window.catalog
    pane.model.page_size = 100
    emitted: list[tuple[str, int]] = []
    pane.open_requested.connect(lambda key, line: emitted.append((key, line)))
    window.open_record("private/notes/n230.md")
    qtbot.waitUntil(lambda: pane.selected_path() == "private/notes/n230.md", timeout=10_000)
    notes = walk(pane.model, "private", "Pages", "note")
    assert pane.model.rowCount(notes) >= 231
    assert pane.tree.isExpanded(notes)
    assert emitted == []  # following the window is not a request to open


def test_model_passes_the_model_tester(qtmodeltester: Any, kit: VaultKit) -> None:
    """Pages arrive later, as from a worker; the tester watches fetches, diffs and counts."""
    people_vault(kit)
    many_notes(kit, 30)
    vault = kit.scan()
    query = CatalogQuery()
    queued: list[tuple[Branch, int, int, Any]] = []

    def fetch(branch: Branch, offset: int, limit: int, done: Any, _failed: Any) -> None:
        queued.append((branch, offset, limit, done))

    def deliver() -> None:
        while queued:
            branch, offset, limit, done = queued.pop(0)
            done(vault.catalog_branch(query, branch, offset, limit))

    model = CatalogModel(fetch, page_size=7)
    model.set_tree(vault.catalog_tree(query))
    qtmodeltester.check(model, force_py=True)
    deliver()
    notes = walk(model, "private", "Pages", "note")
    model.fetchMore(notes)
    deliver()
    model.fetch(model.node(notes), 7)
    deliver()
    assert model.rowCount(notes) == 14
    kit.page("private/notes/zz.md", "pg_zz", "Another note", type="note")
    (kit.root / "private/notes/n003.md").unlink()
    (kit.root / "private/companies/acme.md").unlink()
    vault.reconcile()
    model.update_tree(vault.catalog_tree(query))
    fresh = vault.catalog_branch(query, Branch("type", "private", "page", "note"), 0, 14)
    model.replace_rows(("type", "private", "page", "note"), fresh["items"], fresh["total"])
    deliver()
    assert [model.index(r, 0, notes).data() for r in range(3)] == ["Another note", "Note 000", "Note 001"]
    assert "company" not in labels(model, walk(model, "private", "Pages"))
    qtmodeltester.check(model)


def test_selecting_a_record_emits_open_requested(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    person = walk(pane.model, "private", "Pages", "person")
    expand(qtbot, window, person)
    ada = pane.model.index(0, 0, person)
    with qtbot.waitSignal(pane.open_requested) as blocker:
        pane.tree.setCurrentIndex(ada)
    assert blocker.args == ["private/people/ada.md", 0]
    pane.tree.setFocus()
    with qtbot.waitSignal(pane.open_requested) as blocker:
        qtbot.keyClick(pane.tree, Qt.Key.Key_Down)
    assert blocker.args == ["private/people/bob.md", 0]
    with qtbot.waitSignal(pane.open_requested) as blocker:
        qtbot.keyClick(pane.tree, Qt.Key.Key_Return)
    assert blocker.args == ["private/people/bob.md", 0]
    wait_idle(qtbot, window)
    assert window.current_path == "private/people/bob.md"
    assert pane.focus_target() is pane.tree


def test_apply_change_keeps_selection_when_a_sibling_comes_and_goes(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    model = pane.model
    person = walk(model, "private", "Pages", "person")
    expand(qtbot, window, person)
    pane.tree.setCurrentIndex(child(model, person, "Bob Stone"))
    wait_idle(qtbot, window)
    resets: list[bool] = []
    model.modelAboutToBeReset.connect(lambda: resets.append(True))
    vault = window.vault
    assert vault is not None

    kit.page("private/people/aaron.md", "pg_aaron", "Aaron First", type="person")
    window.apply_change(vault.reconcile(["private/people/aaron.md"]))
    wait_idle(qtbot, window)
    person = walk(model, "private", "Pages", "person")
    assert labels(model, person) == ["Aaron First", "Ada Lovelace", "Bob Stone", "Cy Young"]
    assert count(person) == 4
    assert pane.selected_path() == "private/people/bob.md"
    assert pane.tree.isExpanded(person)

    (kit.root / "private/people/ada.md").unlink()
    window.apply_change(vault.reconcile(["private/people/ada.md"]))
    wait_idle(qtbot, window)
    assert labels(model, person) == ["Aaron First", "Bob Stone", "Cy Young"]
    assert pane.selected_path() == "private/people/bob.md"

    kit.page("private/people/bob.md", "pg_bob", "Zed Renamed", type="person", lifecycle="superseded")
    window.apply_change(vault.reconcile(["private/people/bob.md"]))
    wait_idle(qtbot, window)
    assert labels(model, person) == ["Aaron First", "Cy Young", "Zed Renamed"]
    assert pane.selected_path() == "private/people/bob.md"  # moved, still selected

    kit.page("private/events/e.md", "pg_e", "An event", type="event")
    window.apply_change(vault.reconcile(["private/events/e.md"]))
    wait_idle(qtbot, window)
    assert "event" in labels(model, walk(model, "private", "Pages"))
    assert resets == []


def test_facets_and_sort_are_saved_and_restored(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, settings: QSettings
) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    choose(pane, "lifecycle", "active")
    choose(pane, "validity", "valid")
    choose(pane, "sort", "updated")
    choose(pane, "tag", "math")
    wait_idle(qtbot, window)
    window.close()
    assert settings.value("catalog/sort") == "updated"
    again = open_window(kit.root)
    wait_idle(qtbot, again)
    restored = again.catalog.query
    assert (restored.lifecycle, restored.validity, restored.sort, restored.tag) == (
        "active",
        "valid",
        "updated",
        "math",
    )


def test_an_empty_vault_says_so(open_window: OpenWindow, kit: VaultKit) -> None:
    kit.write("private/ontology.yaml", "")
    (kit.root / ".knowledge").mkdir()
    window = open_window(kit.root)
    pane = window.catalog
    assert pane.stack.currentWidget() is pane.empty
    assert "no records yet" in pane.empty.text()
    assert pane.focus_target() is pane.filters.filter


def test_facets_fold_behind_a_filters_button_that_names_them(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, settings: QSettings
) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    pane = window.catalog
    assert pane.filters.facets.isHidden()
    assert pane.filters.filters_button.text() == "Filters"
    pane.filters.filters_button.click()
    assert pane.filters.facets.isVisibleTo(pane)
    choose(pane, "lifecycle", "active")
    choose(pane, "sort", "updated")
    wait_idle(qtbot, window)
    assert pane.filters.filters_button.text() == "Filters (2)"
    assert "Active, Sort by last update" in pane.filters.filters_button.toolTip()
    window.close()
    assert settings.value("catalog/facets_shown") in (True, "true")
    again = open_window(kit.root)
    wait_idle(qtbot, again)
    assert again.catalog.filters.facets.isVisibleTo(again.catalog)
    assert again.catalog.filters.filters_button.text() == "Filters (2)"


def test_path_role_is_only_on_record_rows(qtbot: QtBot, open_window: OpenWindow, kit: VaultKit) -> None:
    people_vault(kit)
    window = open_window(kit.root)
    model = window.catalog.model
    assert model.data(walk(model, "private"), PATH_ROLE) is None
    person = walk(model, "private", "Pages", "person")
    expand(qtbot, window, person)
    assert model.data(model.index(0, 0, person), PATH_ROLE) == "private/people/ada.md"
