"""The Repository pane's code side (issue 31 §4): a Symbols tab of modules and what they
export, a concept's defining symbol with a jump to its code, and the modules a commit
touched, each from the engine's discovery snapshot and links."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.repository import ROLE
from tests.repokit import RepoKit
from tests.vaultkit import VaultKit, wait_idle

STORE = (
    "class Helper:\n    pass\n\n\n"
    'class Ledger:\n    """Where entries go."""\n\n    def add(self):\n        pass\n'
)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    rk = RepoKit(tmp_path / "code-repo")
    rk.write("GLOSSARY.md", "# Glossary\n\n**Ledger**: the log of entries.\n")
    rk.write("src/store.py", STORE)
    rk.write("web/index.ts", "export function render() {}\nexport { Ledger } from './ledger';\n")
    rk.commit("feat: first")
    rk.write("src/store.py", STORE + "\nLIMIT = 3\n")
    sha = rk.commit("fix(store): a limit")
    return rk.root, sha


@pytest.fixture
def window(
    qtbot: QtBot, kit: VaultKit, open_window: Callable[..., MainWindow], repo: tuple[Path, str]
) -> MainWindow:
    kit.claim("private/claims/ledger.md", "cl_ledger", "The ledger", "Entries go to the ledger.\n")
    kit.page("private/concepts/ledger.md", "pg_ledger", "Ledger", "Our ledger.\n", type="concept")
    win = open_window(kit.root)
    win.repository.add_repository(repo[0])
    wait_idle(qtbot, win)
    return win


def rows(tree: QTreeWidget) -> dict[str, QTreeWidgetItem]:
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return {item.text(0): item for item in items}


def kids(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [item.child(i) for i in range(item.childCount())]


def test_the_symbols_tab_lists_modules_and_their_exports(window: MainWindow) -> None:
    pane = window.repository
    assert pane.tabs.tabText(pane.tabs.indexOf(pane.symbols)) == "Symbols (5)"
    modules = rows(pane.symbols)
    assert sorted(modules) == ["src/store.py", "web/index.ts"]
    store = {c.text(0): c for c in kids(modules["src/store.py"])}
    assert sorted(store) == ["Helper", "LIMIT", "Ledger"]
    assert (store["Ledger"].text(1), store["Ledger"].text(2)) == ("class", "5–9")
    web = {c.text(0): c.text(1) for c in kids(modules["web/index.ts"])}
    assert web == {"Ledger": "variable, passed on from ./ledger", "render": "function"}
    pane.filter.setText("render")
    assert modules["src/store.py"].isHidden()
    assert not modules["web/index.ts"].isHidden()


def test_a_concept_shows_its_defining_symbol_and_opens_its_code(qtbot: QtBot, window: MainWindow) -> None:
    pane = window.repository
    concept = rows(pane.trees["concept"])["Ledger"]
    (row,) = [c for c in kids(concept) if c.data(0, ROLE)[0] == "symbol"]
    assert row.text(0) == "Defines symbol Ledger · src/store.py · lines 5–9"  # declaring beats forwarding
    pane.trees["concept"].itemClicked.emit(row, 0)
    qtbot.waitUntil(lambda: pane.viewer.region is not None and pane.viewer.region.path == "src/store.py")
    region = pane.viewer.region
    assert region is not None
    assert (region.start, region.end, region.matches) == (5, 9, True)


def test_a_commit_shows_the_modules_it_touched_and_leads_to_them(
    window: MainWindow, repo: tuple[Path, str]
) -> None:
    pane = window.repository
    change = rows(pane.trees["change"])["fix(store): a limit"]
    (row,) = [c for c in kids(change) if c.data(0, ROLE)[0] == "module"]
    assert row.text(0) == "Touched code: src/store.py — Helper, LIMIT, Ledger"
    pane.trees["change"].itemClicked.emit(row, 0)
    assert pane.tabs.currentWidget() is pane.symbols
    current = pane.symbols.currentItem()
    assert current is not None
    assert current.text(0) == "src/store.py"
    assert current.isExpanded()


def test_an_edit_to_the_code_refreshes_the_symbols(
    qtbot: QtBot, window: MainWindow, repo: tuple[Path, str]
) -> None:
    pane = window.repository
    (repo[0] / "src" / "extra.py").write_text("def brand_new():\n    pass\n")
    qtbot.waitUntil(lambda: "src/extra.py" in rows(pane.symbols), timeout=10_000)
    assert [c.text(0) for c in kids(rows(pane.symbols)["src/extra.py"])] == ["brand_new"]


def test_a_vault_page_named_like_a_concept_shows_its_code(qtbot: QtBot, window: MainWindow) -> None:
    window.open_record("pg_ledger")
    qtbot.waitUntil(lambda: window.current_path == "private/concepts/ledger.md")
    wait_idle(qtbot, window)
    docs = window.backlinks.documentation
    assert not docs.isHidden()
    assert [docs.list.item(i).text() for i in range(docs.list.count())] == [
        "Concept: Ledger — defined in code: Ledger in src/store.py"
    ]
    docs.list.itemActivated.emit(docs.list.item(0))
    pane = window.repository
    assert pane.tabs.currentWidget() is pane.trees["concept"]
    current = pane.trees["concept"].currentItem()
    assert current is not None
    assert current.text(0) == "Ledger"
