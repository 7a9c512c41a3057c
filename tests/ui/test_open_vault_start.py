"""Open Vault… from the demo starts in the home folder (issue 29 walkthrough).

On first start the demo is a copy in the app's data folder, and Open Vault…
started beside it, in `~/.local/share/knowledge-desktop`: the first folder a
new user saw on the way to their own vault was the app's own. Beside any
other vault it still starts next to the vault open now.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QWidget

from knowledge_desktop.ui import demo
from knowledge_desktop.ui.main_window import MainWindow
from tests.vaultkit import VaultKit

OpenWindow = Callable[..., MainWindow]


def _started_in(monkeypatch: pytest.MonkeyPatch, window: MainWindow) -> str:
    seen: list[str] = []

    def ask(_parent: QWidget, _title: str, start: str) -> str:
        seen.append(start)
        return ""  # cancelled

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(ask))
    window.commands.open.trigger()
    (start,) = seen
    return start


def test_open_vault_from_the_demo_starts_at_home_and_beside_another_vault(
    open_window: OpenWindow, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    monkeypatch.setattr(demo, "demo_copy_path", lambda: kit.root)  # this vault is the demo copy
    window = open_window(kit.root, watch=False)
    assert _started_in(monkeypatch, window) == str(Path.home())

    monkeypatch.setattr(demo, "demo_copy_path", lambda: kit.root.parent / "elsewhere")
    assert _started_in(monkeypatch, window) == str(kit.root.parent)
