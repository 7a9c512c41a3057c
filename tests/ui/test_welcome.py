"""First start explains itself (issue 29, §6; §8: the demo opens as a copy): the welcome page in
the record pane, the demo's errors listed and linked, labelled as examples in Diagnostics, and the
install folder never written."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSettings, QUrl
from pytestqt.qtbot import QtBot

from knowledge_desktop.engine.diagnostics import Severity
from knowledge_desktop.resources import demo_vault_path
from knowledge_desktop.ui.demo import demo_copy_path
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.models.diagnostics_model import EXAMPLE, MESSAGE
from tests.vaultkit import VaultKit, wait_idle


def install_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder of the install's demo with its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def started(qtbot: QtBot, settings: QSettings, given: Path | None = None) -> MainWindow:
    """A window started as `knowledge-desktop [given]` starts, once its vault is read."""
    window = MainWindow(settings=settings, watch=False)
    qtbot.addWidget(window)
    window.show()
    path = window.welcome.start_path(given, demo=False)
    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.open_vault(path)
    wait_idle(qtbot, window)
    return window


def test_the_first_start_opens_a_copy_of_the_demo_on_the_welcome_page_with_its_errors_linked(
    qtbot: QtBot, settings: QSettings, kit: VaultKit
) -> None:
    before = install_state(demo_vault_path())
    kit.write("private/people/ada.md", "# Ada\n")
    settings.setValue("recentVaults", [str(kit.root)])  # a vault seen before, but none chosen last
    window = started(qtbot, settings)
    vault = window.vault
    assert vault is not None
    assert vault.root == demo_copy_path()
    welcome = window.welcome
    qtbot.waitUntil(lambda: welcome.showing and bool(welcome.errors))
    errors = [d for d in vault.diagnostics() if d.severity == Severity.ERROR]
    assert welcome.errors == errors
    text = welcome.page.toPlainText()
    assert "Welcome to Knowledge Desktop" in text
    assert "Open your own vault…" in text
    assert f"Its {len(errors)} errors are deliberate" in text
    assert all(d.path in text for d in errors)
    html = welcome.page.toHtml()
    assert all(f"welcome:file:{i}" in html for i in range(len(errors)))
    assert kit.root.name in text  # the recent vault, linked
    with qtbot.waitSignal(window.current_changed, timeout=20_000):
        welcome.page.anchorClicked.emit(QUrl("welcome:file:0"))
    qtbot.waitUntil(lambda: not welcome.showing)
    assert window.current_path == errors[0].path
    # the demo's broken files are labelled as examples in Diagnostics
    model = window.diagnostics.model
    qtbot.waitUntil(lambda: model.rowCount() > 0)
    messages = [str(model.index(r, MESSAGE).data()) for r in range(model.rowCount())]
    assert any(m.startswith(f"{EXAMPLE}: ") for m in messages)
    assert install_state(demo_vault_path()) == before  # the install folder is never written
    assert not (demo_vault_path() / ".knowledge").exists()
    window.welcome.show()  # Help › Welcome brings it back
    qtbot.waitUntil(lambda: welcome.showing)


def test_a_later_start_reopens_the_last_vault_without_the_welcome(
    qtbot: QtBot, settings: QSettings, kit: VaultKit
) -> None:
    kit.write("private/people/ada.md", "# Ada\n")
    settings.setValue("lastVault", str(kit.root))
    window = started(qtbot, settings)
    assert window.vault is not None
    assert window.vault.root == kit.root
    assert not window.welcome.showing
    assert window.diagnostics.model.examples is False


def test_the_demo_copy_is_made_once_and_reopened_with_its_edits(
    qtbot: QtBot, settings: QSettings, tmp_path: Path
) -> None:
    """File › Open Demo Vault opens the person's copy; an edit in it survives the next open; a
    copy of the demo anywhere else is an ordinary vault (the label goes by path, not names)."""
    window = started(qtbot, settings, given=None)
    note = demo_copy_path() / "shared" / "my-edit.md"
    note.write_text("# Mine\n", encoding="utf-8")
    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.opener.open_demo()
    wait_idle(qtbot, window)
    assert note.read_text(encoding="utf-8") == "# Mine\n"
    assert window.diagnostics.model.examples is True
    elsewhere = tmp_path / "not-the-demo"
    shutil.copytree(demo_vault_path(), elsewhere, ignore=shutil.ignore_patterns(".knowledge"))
    with qtbot.waitSignal(window.loaded, timeout=60_000):
        window.open_vault(elsewhere)
    wait_idle(qtbot, window)
    assert window.diagnostics.model.examples is False
