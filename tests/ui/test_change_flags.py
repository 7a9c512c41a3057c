"""Each pane refetches only for a change that touched a projection it shows (issue 12 §3).

The window hands every pane each ChangeSet; a pane asks its worker again
only when `ChangeSet.touched` names one of its projections. These tests
hand a pane a change by hand and count what it submitted to the runner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.changes import ALL_PROJECTIONS, ChangeSet, Projection
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.base import Pane
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]

ADA = "private/people/ada.md"

# pane → the projections whose change it must follow
FOLLOWS: dict[str, frozenset[Projection]] = {
    "backlinks": frozenset({"links", "catalog", "text"}),
    "timeline": frozenset({"dates", "catalog"}),
    "diagnostics": frozenset({"diagnostics", "catalog"}),  # catalog: titles and aliases make merge candidates
    "catalog": frozenset({"catalog"}),
    "search": frozenset({"text", "catalog"}),
    "record": frozenset({"catalog", "links", "dates", "diagnostics", "text"}),
}


@pytest.fixture
def window(open_window: OpenWindow, kit: VaultKit, qtbot: QtBot) -> MainWindow:
    kit.page(ADA, "pg_ada", "Ada Lovelace", "Ada wrote the first program.\n", type="person")
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea", entities=["pg_ada"])
    window = open_window(kit.root, watch=False)
    with qtbot.waitSignal(window.current_changed, timeout=10_000):
        window.open_record("pg_ada")
    window.search.set_query("tea")
    qtbot.waitUntil(lambda: window.search.model.rowCount() > 0, timeout=10_000)
    wait_idle(qtbot, window)
    return window


def record_keys(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], Callable[[], None]]:
    """The keys of the worker requests made from now on, and how to stop recording them."""
    made: list[Any] = []
    submit = window.runner.submit

    def counting(*args: Any, **kwargs: Any) -> None:
        made.append(kwargs.get("key"))
        submit(*args, **kwargs)

    monkeypatch.setattr(window.runner, "submit", counting)
    return made, lambda: monkeypatch.setattr(window.runner, "submit", submit)


def submissions(window: MainWindow, monkeypatch: pytest.MonkeyPatch, pane: Pane, change: ChangeSet) -> int:
    """How many worker requests `pane` made while applying `change`."""
    made, stop = record_keys(window, monkeypatch)
    pane.apply_change(change)
    stop()
    return len(made)


def a_change(touched: set[Projection]) -> ChangeSet:
    return ChangeSet(source="watcher", paths=[ADA], changed=["pg_ada"], affected_paths=[ADA], touched=touched)


@pytest.mark.parametrize("name", sorted(n for n, flags in FOLLOWS.items() if flags != ALL_PROJECTIONS))
def test_a_change_to_other_projections_leaves_the_pane_alone(
    name: str, window: MainWindow, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    pane: Pane = getattr(window, name)
    others = set(ALL_PROJECTIONS - FOLLOWS[name])
    assert others, "a pane that follows every projection cannot be left alone"
    assert submissions(window, monkeypatch, pane, a_change(others)) == 0
    wait_idle(qtbot, window)


@pytest.mark.parametrize(
    ("name", "flag"), [(name, flag) for name, flags in sorted(FOLLOWS.items()) for flag in sorted(flags)]
)
def test_a_change_to_a_projection_the_pane_shows_refetches_it(
    name: str, flag: Projection, window: MainWindow, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    pane: Pane = getattr(window, name)
    assert submissions(window, monkeypatch, pane, a_change({flag})) > 0
    wait_idle(qtbot, window)


def test_the_window_passes_a_text_only_change_to_the_panes_that_show_text_alone(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    made, stop = record_keys(window, monkeypatch)
    window.apply_change(a_change({"text"}))
    wait_idle(qtbot, window)
    stop()
    # The search asks again, the record (its body) and backlinks (unlinked mentions) reload,
    # and the status bar's counts are read afresh; the catalog, timeline and diagnostics do not.
    assert "counts" in made
    assert {"search", "record-load", "backlinks"} <= set(made)
    assert not [key for key in made if key and key.split("-")[0] in ("catalog", "timeline", "diagnostics")]
