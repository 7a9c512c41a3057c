"""The main window: opening vaults, navigation, settings, messages (pytest-qt)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.history import History
from knowledge_desktop.ui.main_window import MainWindow
from tests.ui.test_view_changes import _vault_with_changes
from tests.vaultkit import VaultKit, wait_idle

OpenWindow = Callable[[Path], MainWindow]


def test_opening_a_vault_fills_the_status_bar(open_window: OpenWindow, kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.claim("private/claims/c.md", "cl_1", "Ada likes tea", entities=["pg_ada"])
    window = open_window(kit.root)
    assert "2 records" in window.summary.text()
    assert window.windowTitle().startswith("vault — ")


@pytest.mark.parametrize("case", ["missing", "file", "empty-folder", "unreadable"])
def test_bad_paths_get_a_message_not_a_traceback(
    qtbot: QtBot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """A missing folder, a file, a folder that is not a vault, an unreadable folder: one clear line."""
    target = tmp_path / case
    if case == "file":
        target.write_text("hello")
    elif case in ("empty-folder", "unreadable"):
        target.mkdir()
    if case == "unreadable":
        if os.geteuid() == 0:
            # Root reads through any permission bits, so the OS's answer is stood in for:
            # the engine's own check and message still run.
            allowed = os.access

            def access(p: str | os.PathLike[str], mode: int, **kw: bool) -> bool:
                return Path(p) != target and allowed(p, mode, **kw)

            monkeypatch.setattr(os, "access", access)
        else:
            target.chmod(0)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda _p, _t, text: shown.append(text)))
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.load_failed, timeout=20_000):
        window.open_vault(target)
    assert len(shown) == 1
    assert "Traceback" not in shown[0]
    assert str(target) in shown[0]
    if case == "unreadable":
        assert "ermission" in shown[0]  # says why, not just that it failed
    window.close()
    if case == "unreadable":
        target.chmod(0o700)


def test_recent_vaults_and_geometry_are_remembered(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit, settings: QSettings
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    window = open_window(kit.root)
    window.resize(900, 640)
    window.close()
    assert window.opener.recent_vaults()[0] == str(kit.root)
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    assert again.opener.last_vault() == kit.root
    # The offscreen platform adds its own frame, so compare the height only.
    assert again.size().height() == 640
    again.close()


def test_history_goes_back_and_forward() -> None:
    history = History()
    for key in ("a", "b", "c"):
        history.push(key)
    assert history.back() == "b"
    assert history.back() == "a"
    assert history.back() is None
    assert history.forward() == "b"
    history.push("d")  # a new visit drops the forward entries
    assert not history.can_forward()
    assert history.back() == "b"
    history.replace("b", None)
    assert history.current == "a"


def test_back_and_forward_move_between_opened_records(
    qtbot: QtBot, open_window: OpenWindow, kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person")
    window = open_window(kit.root)
    for key in ("pg_ada", "pg_bob"):
        with qtbot.waitSignal(window.current_changed, timeout=10_000):
            window.open_record(key)
    assert window.current_path == "private/people/bob.md"
    window.commands.back.trigger()
    assert window.current_path == "private/people/ada.md"
    window.commands.forward.trigger()
    assert window.current_path == "private/people/bob.md"
    wait_idle(qtbot, window)


def test_closing_while_a_vault_loads_leaves_no_work_running(
    qtbot: QtBot, kit: VaultKit, settings: QSettings, capfd: pytest.CaptureFixture[str]
) -> None:
    for n in range(200):
        kit.page(f"private/notes/n{n}.md", f"pg_{n}", f"Note {n}", type="note")
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    window.open_vault(kit.root)
    window.close()
    assert window.runner.pool.activeThreadCount() == 0
    assert window.vault is None
    assert "Traceback" not in capfd.readouterr().err


PNG = b"\x89PNG\r\n\x1a\n"


def run_app(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`knowledge-desktop ARGS` in a process of its own, offscreen, with its own settings."""
    return subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.ui.app", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )


def test_screenshot_option_renders_the_demo_vault(tmp_path: Path) -> None:
    """`knowledge-desktop --screenshot` renders the demo vault into a PNG. On a copy: the
    repository's own, opened in place, got a `.knowledge/` written while another test
    process copied or opened it (.ci/run screenshots the bundle with no vault named)."""
    vault = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), vault, ignore=shutil.ignore_patterns(".knowledge"))
    target = tmp_path / "shot.png"
    done = run_app(tmp_path, str(vault), "--screenshot", str(target), "--select", "pg_01KT134R00XFDKKX")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG


def test_screenshot_of_a_bad_path_exits_non_zero(tmp_path: Path) -> None:
    done = run_app(tmp_path, str(tmp_path / "nope"), "--screenshot", str(tmp_path / "x.png"))
    assert done.returncode == 2
    assert "no such folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_screenshot_of_a_pages_facts_tab(tmp_path: Path) -> None:
    """`--record-tab facts` waits for the page's facts, since that tab appears only then."""
    kit = VaultKit(tmp_path / "vault")
    _vault_with_changes(kit)
    kit.close()
    target = tmp_path / "facts.png"
    done = run_app(
        tmp_path, str(kit.root), "--select", "pg_me", "--record-tab", "facts", "--screenshot", str(target)
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG
