"""The `knowledge` commands are registered lazily (issue 26 item 1; knowledge_desktop/cli/).

`knowledge --help` is read from the registry alone, and a command imports its own module,
not every other command's with its dependencies. These tests name modules, not times:
the figures are in bench/RESULTS.md (`bench/startup.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from knowledge_desktop.cli import build_parser
from knowledge_desktop.cli.registry import COMMANDS
from tests.vaultkit import VaultKit

HEAVY = ("numpy", "pydantic", "pygit2", "mcp", "markdown_it", "knowledge_desktop.engine")
GROUPS = sorted({c.module for c in COMMANDS})


def _loaded_after(*argv: str) -> list[str]:
    """The modules a fresh interpreter holds after `knowledge ARGV` ran (its output dropped)."""
    code = (
        "import contextlib, io, json, sys\n"
        "from knowledge_desktop.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        f"        main({list(argv)!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120, env=os.environ
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def _under(loaded: list[str], package: str) -> list[str]:
    return [m for m in loaded if m == package or m.startswith(package + ".")]


def test_every_registered_command_is_the_one_its_module_adds_with_the_same_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    added = {a.dest: a.help for a in sub._choices_actions}
    assert added == {c.name: c.help for c in COMMANDS}


def test_the_help_imports_no_command_module_and_no_heavy_dependency() -> None:
    loaded = _loaded_after("--help")
    assert [m for heavy in HEAVY for m in _under(loaded, heavy)] == []
    assert [g for g in GROUPS if f"knowledge_desktop.cli.{g}" in loaded] == []


def test_a_command_imports_its_own_module_and_no_other(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "vault")
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.scan()
    kit.close()
    loaded = _loaded_after("records", str(kit.root), "--json")
    assert [g for g in GROUPS if f"knowledge_desktop.cli.{g}" in loaded] == ["read"]
    # the MCP SDK and the repository extraction are other commands' work
    assert _under(loaded, "mcp") == []
    assert _under(loaded, "knowledge_desktop.engine.extraction") == []
