"""Opening a vault and reading its catalog loads no search machinery (issue 26 item 1).

numpy scores searches and writes the text index's weight blocks. It is not needed to
open an indexed vault, reconcile it and list its records, so `knowledge records`, `show`
or `diagnostics` start without it (a tenth of a second). pydantic, PyYAML and markdown-it
still load with the reconciler, which parses changed files. The figures are in
bench/RESULTS.md (`bench/startup.py`); this test names modules, not times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.engine.api.test_visibility import agent_vault
from tests.vaultkit import VaultKit


def loaded_by(script: str, vault: Path) -> list[str]:
    """What `script` prints (the modules it found loaded), run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(vault)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=os.environ,
    )
    found: list[str] = json.loads(done.stdout)
    return found


READ = """
import json, sys
from knowledge_desktop.engine.vault import Vault
with Vault.open(sys.argv[1]) as vault:
    vault.reconcile()
    vault.records()
    vault.diagnostics()
    vault.show("pg_ada")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "numpy")))
"""


def test_reading_an_indexed_vault_loads_no_numpy(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "vault")
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", body="Met [[Bob]].\n")
    kit.scan()
    kit.close()
    assert loaded_by(READ, kit.root) == []


FIRST_ANSWER = """
import json, sys
import knowledge_desktop.mcp_server
from knowledge_desktop.api.extension import open_extension
from knowledge_desktop.api.tools import BY_NAME
with open_extension(sys.argv[1], "agent", live=True) as ext:
    BY_NAME["knowledge_grep"].call(ext, {"query": "lantern"})
heavy = ("pygit2", "markdown_it", "concurrent.futures.process")
print(json.dumps(sorted(m for m in heavy if m in sys.modules)))
"""


def test_an_mcp_server_answers_its_first_grep_without_git_or_markdown(tmp_path: Path) -> None:
    """Issue 28 §3 (start to first answer ≤ 1 s): the server imports the MCP SDK and the
    reading side of the engine; the history's git library, the Markdown parser and the
    process pool wait until a call needs them (engine/lazy.py)."""
    kit = VaultKit(tmp_path / "vault")
    agent_vault(kit)
    kit.close()
    assert loaded_by(FIRST_ANSWER, kit.root) == []
