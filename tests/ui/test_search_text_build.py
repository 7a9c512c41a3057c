"""The window builds the search text in the background after opening, with progress,
and a search typed meanwhile answers at once and says it is partial (issue 12 §2)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine import vault as vault_module
from knowledge_desktop.engine.store.projections import keyword
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.ui import opening
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[..., MainWindow]
NOTES = 30


@pytest.fixture
def lanterns(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> VaultKit:
    kit.lantern_notes(NOTES)
    monkeypatch.setattr(opening, "TEXT_CHUNK", 4)
    monkeypatch.setattr(vault_module, "INLINE_TEXT", 5)
    monkeypatch.setattr(opening, "TEXT_PROGRESS_FROM", 10)
    return kit


def queued(window: MainWindow) -> int:
    assert window.vault is not None
    return keyword.pending(window.vault.store.reader(), window.vault.scopes())


def test_opening_builds_the_text_in_chunks_with_progress(
    open_window: OpenWindow, lanterns: VaultKit, qtbot: QtBot
) -> None:
    seen: list[tuple[str, int, int]] = []
    original = opening.VaultOpener._on_progress

    def spy(self: opening.VaultOpener, stage: str, done: int, total: int) -> None:
        seen.append((stage, done, total))
        original(self, stage, done, total)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(opening.VaultOpener, "_on_progress", spy)
        window = open_window(lanterns.root, watch=False)
        qtbot.waitUntil(lambda: queued(window) == 0, timeout=20_000)
        wait_idle(qtbot, window)
    text = [(done, total) for stage, done, total in seen if stage == "text"]
    assert text[0] == (4, NOTES)
    assert text[-1] == (NOTES, NOTES)
    assert not window.opener.progress.isVisible()  # hidden once the build is done


def test_a_search_during_the_build_is_partial_then_complete(
    settings: QSettings, lanterns: VaultKit, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    real = Vault.index_keywords

    def held(self: Vault, scopes: Any = None, *, progress: Any = None, **options: Any) -> bool:
        if progress is not None:  # the window's background build waits for the test
            gate.wait(20)
        return real(self, scopes, progress=progress, **options)

    monkeypatch.setattr(Vault, "index_keywords", held)
    window = MainWindow(settings=settings, watch=False)  # not open_window: it waits for idle
    qtbot.addWidget(window)
    window.show()
    try:
        with qtbot.waitSignal(window.loaded, timeout=30_000):
            window.open_vault(lanterns.root)
        pane = window.search
        pane.field.setText("lantern")
        pane.search_now()
        qtbot.waitUntil(lambda: "still being indexed" in pane.summary.text(), timeout=10_000)
        assert f"{NOTES} records left" in pane.summary.text()
    finally:
        gate.set()
    qtbot.waitUntil(lambda: pane.summary.text().startswith(f"{NOTES} results"), timeout=20_000)
    assert "index ready" in pane.summary.text()
    wait_idle(qtbot, window)
    window.close()


def test_cancel_stops_the_build_and_keeps_what_is_indexed(
    open_window: OpenWindow, lanterns: VaultKit, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Vault.index_keywords
    window_box: list[MainWindow] = []

    def cancelling(
        self: Vault, scopes: Any = None, *, progress: Any = None, cancel: Any = None, **options: Any
    ) -> bool:
        def step(stage: str, done: int, total: int) -> None:
            progress(stage, done, total)
            window_box[0].opener.cancel() if window_box else cancel.set()

        return real(self, scopes, progress=step if progress else None, cancel=cancel, **options)

    monkeypatch.setattr(Vault, "index_keywords", cancelling)
    window = open_window(lanterns.root, watch=False)
    window_box.append(window)
    qtbot.waitUntil(lambda: "indexing stopped" in window.statusBar().currentMessage(), timeout=10_000)
    assert 0 < queued(window) < NOTES
    wait_idle(qtbot, window)
