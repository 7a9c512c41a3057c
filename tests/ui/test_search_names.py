"""A name typed in search lists the page of that name first, above the relationships and claims
that carry the name in their titles (issue 29, §8). On the demo vault, text ranking alone put
"Hana Sato reviews the offline species index" and "Hana Sato advises Wayfinder" above her page."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import wait_idle

OpenWindow = Callable[..., MainWindow]


def test_a_person_name_lists_the_person_page_first(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path
) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), demo, ignore=shutil.ignore_patterns(".knowledge"))
    window = open_window(demo, watch=False)
    pane = window.search
    for name, path in (
        ("Hana Sato", "private/people/hana-sato.md"),
        ("jonah okafor", "private/people/jonah-okafor.md"),
    ):
        pane.field.clear()
        QTest.keyClicks(pane.field, name)
        qtbot.waitUntil(lambda: not pane.timer.isActive(), timeout=5000)
        wait_idle(qtbot, window)
        qtbot.waitUntil(lambda: pane.model.rowCount() > 1, timeout=10_000)
        keys = [pane.model.row_at(i)["key"] for i in range(pane.model.rowCount())]
        assert keys[0] == path, keys
        assert keys.count(path) == 1
        assert any("relationships/" in k for k in keys[1:])  # the mentions still follow
