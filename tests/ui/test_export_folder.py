"""Export Diagnostics… suggests the person's Documents folder (else home), not the folder beside
the vault — for the demo that was the install folder — and then the folder of the last export,
across restarts (issue 29, §8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from knowledge_desktop.ui.export import documents_folder
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]


def test_the_export_starts_in_documents_then_in_the_last_folder(
    qtbot: QtBot,
    open_window: OpenWindow,
    kit: VaultKit,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(home / "Documents"))
    kit.write("private/people/ada.md", "# Ada\n")
    out = tmp_path / "reports"
    out.mkdir()
    suggested: list[Path] = []

    def save_as(_parent: Any, _caption: str, start: str, *_rest: Any) -> tuple[str, str]:
        suggested.append(Path(start))
        return str(out / "report.html"), "HTML report (*.html *.htm)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    window = open_window(kit.root, watch=False)
    with qtbot.waitSignal(window.diagnostics.status_message, timeout=20_000):
        window.commands.export.trigger()
    assert suggested[0].parent == documents_folder()
    assert suggested[0].parent != kit.root.parent
    assert suggested[0].parent in (home / "Documents", home)
    window.close()  # the folder is remembered in the settings
    again = open_window(kit.root, watch=False)
    with qtbot.waitSignal(again.diagnostics.status_message, timeout=20_000):
        again.commands.export.trigger()
    assert suggested[1] == out / f"{kit.root.name}-diagnostics.html"
