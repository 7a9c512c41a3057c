"""The catalog holds a bounded window of each branch (issue 26 §3: a million records).

The model tests list a branch of a million synthetic files through a fetcher
that makes each page on demand, so nothing but the rows asked for ever
exists; the pane test reveals a file past the first page of a real vault.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.query.catalog_tree import Branch
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.catalog_items import EARLIER
from knowledge_desktop.ui.models.catalog_model import NODE_ROLE, CatalogModel
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]
MILLION = 1_000_000
CLAIMS = ("type", "private", "claim", None)


def million_tree() -> dict[str, Any]:
    kinds = [{"kind": "claim", "count": MILLION, "invalid": 0, "types": [{"type": None, "count": MILLION}]}]
    part = {
        "scope": "private",
        "count": MILLION,
        "kinds": kinds,
        "invalid": 0,
        "unrecognized": 0,
        "invalidWhy": None,
        "unrecognizedWhy": None,
    }
    return {"partitions": [part], "total": MILLION, "unrecognized": 0, "notes": {"count": 0, "folders": []}}


def item(i: int) -> dict[str, Any]:
    path = f"private/claims/c{i:07d}.md"
    return {"path": path, "status": "record", "title": f"Claim {i:07d}", "label": f"Claim {i:07d}"}


class Listing:
    """A fetcher over a million-row branch: pages are made when asked, answered on `deliver`."""

    def __init__(self) -> None:
        self.queued: list[tuple[int, int, Any]] = []
        self.asked: list[tuple[int, int]] = []

    def __call__(self, _branch: Branch, offset: int, limit: int, done: Any, _failed: Any) -> None:
        self.asked.append((offset, limit))
        self.queued.append((offset, limit, done))

    def deliver(self) -> None:
        while self.queued:
            offset, limit, done = self.queued.pop(0)
            items = [item(i) for i in range(offset, min(MILLION, offset + limit))]
            done({"items": items, "offset": offset, "total": MILLION, "nextOffset": offset + len(items)})


def claims_index(model: CatalogModel) -> QModelIndex:
    scope = model.index(0, 0)
    kind = model.index(0, 0, scope)
    return model.index(0, 0, kind)


def titles(model: CatalogModel, parent: QModelIndex) -> list[str]:
    return [str(model.index(r, 0, parent).data()) for r in range(model.rowCount(parent))]


def test_a_million_row_branch_holds_only_the_pages_fetched(qtmodeltester: Any) -> None:
    listing = Listing()
    model = CatalogModel(listing, page_size=50, max_rows=200)
    model.set_tree(million_tree())
    qtmodeltester.check(model, force_py=True)
    claims = claims_index(model)
    assert model.index(0, 1, claims.parent()).data() == "1,000,000"  # counted, not loaded
    assert model.rowCount(claims) == 0
    assert model.hasChildren(claims)

    model.fetchMore(claims)
    listing.deliver()
    assert model.rowCount(claims) == 50
    assert model.held_rows() == 50
    assert set(listing.asked) == {(0, 50)}

    node = model.node(claims)
    for _ in range(5):  # scrolling down: a page at a time, the oldest let go past max_rows
        model.fetch(node, model.page_size)
        listing.deliver()
    assert model.held_rows() == 200
    assert (node.start, node.end) == (100, 300)
    assert model.index(0, 0, claims).data(NODE_ROLE) == EARLIER
    assert model.index(0, 0, claims).data() == "↑ 100 earlier"
    assert model.index(1, 0, claims).data() == "Claim 0000100"

    model.fetch_earlier(node)  # scrolling back up: the page above, the furthest below let go
    listing.deliver()
    assert (node.start, node.end, model.held_rows()) == (50, 250, 200)
    assert model.index(1, 0, claims).data() == "Claim 0000050"
    qtmodeltester.check(model)


def test_jumping_far_down_loads_only_the_page_holding_the_row(qtmodeltester: Any) -> None:
    listing = Listing()
    model = CatalogModel(listing, page_size=50, max_rows=200)
    model.set_tree(million_tree())
    qtmodeltester.check(model, force_py=True)
    claims = claims_index(model)
    model.fetchMore(claims)
    listing.deliver()
    arrived: list[bool] = []
    model.jump(model.node(claims), 765_432, then=lambda: arrived.append(True))
    listing.deliver()
    assert arrived == [True]
    assert set(listing.asked) == {(0, 50), (765_400, 50)}
    assert model.held_rows() == 50
    assert titles(model, claims)[:2] == ["↑ 765,400 earlier", "Claim 0765400"]
    assert [n.item["path"] for n in model.nodes_for_path("private/claims/c0765432.md")]
    assert not model.nodes_for_path("private/claims/c0000000.md")  # the first page was let go
    model.fetch_earlier(model.node(claims))  # the page above
    listing.deliver()
    assert titles(model, claims)[:2] == ["↑ 765,350 earlier", "Claim 0765350"]
    model.jump(model.node(claims), 70)  # back near the top
    listing.deliver()
    model.fetch_earlier(model.node(claims))
    listing.deliver()
    assert model.index(0, 0, claims).data() == "Claim 0000000"  # the earlier row went with the gap
    assert model.held_rows() == 100
    qtmodeltester.check(model)


def test_a_refresh_applies_to_the_window_where_it_stands(qtmodeltester: Any) -> None:
    listing = Listing()
    model = CatalogModel(listing, page_size=50, max_rows=200)
    model.set_tree(million_tree())
    qtmodeltester.check(model, force_py=True)
    claims = claims_index(model)
    model.fetchMore(claims)
    listing.deliver()
    model.jump(model.node(claims), 500_010)
    listing.deliver()
    fresh = [item(i) for i in range(500_000, 500_050) if i != 500_003]
    fresh.append(item(500_050))
    model.replace_rows(CLAIMS, fresh, MILLION, start=499_000)  # a window that moved: ignored
    assert model.index(4, 0, claims).data() == "Claim 0500003"
    model.replace_rows(CLAIMS, fresh, MILLION, start=500_000)
    assert model.index(4, 0, claims).data() == "Claim 0500004"
    assert model.rowCount(claims) == 51
    assert model.node(claims).end == 500_050
    qtmodeltester.check(model)


def test_the_pane_reveals_a_record_past_the_first_page_by_loading_its_page(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    for i in range(300):
        kit.page(f"private/notes/n{i:03d}.md", f"pg_n{i:03d}", f"Note {i:03d}", type="note")
    window = open_window(kit.root)
    pane = window.catalog
    model = pane.model
    model.page_size = 20
    pane.tree.setFixedHeight(240)  # a dozen rows: pages above load only while the earlier row shows
    window.open_record("private/notes/n250.md")
    qtbot.waitUntil(lambda: pane.selected_path() == "private/notes/n250.md", timeout=10_000)
    wait_idle(qtbot, window)
    notes = model.index_of(model.nodes_for_path("private/notes/n250.md")[0].parent)
    node = model.node(notes)
    # Its page, the page above once the earlier row showed, the pages below that come
    # within FETCH_AHEAD rows of the view: not the 251 rows from the top down to it.
    assert 200 <= node.start <= 240
    assert node.end > 250
    assert pane.tree.isExpanded(notes)
    start = node.start

    pane.tree.scrollTo(model.index(0, 0, notes))  # the earlier row comes into view: the page above loads
    qtbot.waitUntil(lambda: node.start < start, timeout=10_000)
    wait_idle(qtbot, window)
    assert node.start > 0  # one page, not the whole branch
    assert pane.selected_path() == "private/notes/n250.md"

    window.open_record("private/notes/n010.md")  # above the window, far: it jumps back
    qtbot.waitUntil(lambda: pane.selected_path() == "private/notes/n010.md", timeout=10_000)
    wait_idle(qtbot, window)
    assert node.start == 0
    assert node.end < 200
