"""Standing rules of the code base (ARCHITECTURE.md, Packages)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import knowledge_desktop

PACKAGE = Path(knowledge_desktop.__file__).parent
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qtpy")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_engine_never_imports_qt() -> None:
    """Packages: engine code has no Qt import, at any depth of any module."""
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(_imports(path) & set(QT_MODULES))
        for path in (PACKAGE / "engine").rglob("*.py")
        if _imports(path) & set(QT_MODULES)
    }
    assert offenders == {}


def test_importing_the_engine_and_cli_loads_no_qt() -> None:
    """Packages: the CLI and engine run on machines without a display (no Qt loaded)."""
    code = (
        "import sys, pkgutil, importlib, knowledge_desktop.engine as e, knowledge_desktop.cli\n"
        "for m in pkgutil.walk_packages(e.__path__, 'knowledge_desktop.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_only_ui_imports_qt_and_engine_never_imports_ui_or_cli() -> None:
    """Packages: dependencies point ui → engine and cli → engine, never back."""
    for path in (PACKAGE / "engine").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "knowledge_desktop.ui" not in text, path
        assert "knowledge_desktop.cli" not in text, path
    for path in PACKAGE.rglob("*.py"):
        if "ui" not in path.relative_to(PACKAGE).parts:
            assert not _imports(path) & set(QT_MODULES), path


def test_every_diagnostic_code_is_documented_and_used_codes_are_registered() -> None:
    """Diagnostics: codes are stable and documented; the engine emits only registered ones."""
    import re

    from knowledge_desktop.engine.diagnostics import CODES

    docs = (PACKAGE.parent / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    assert set(re.findall(r"\| `([a-z0-9-]+)` \|", docs)) == set(CODES)
    used: set[str] = set()
    for path in (PACKAGE / "engine").rglob("*.py"):
        used |= set(re.findall(r'dg\.make\(\s*"([a-z0-9-]+)"', path.read_text(encoding="utf-8")))
    assert used <= set(CODES)
