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

from tests.vaultkit import VaultKit

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
    done = subprocess.run(
        [sys.executable, "-c", READ, str(kit.root)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=os.environ,
    )
    assert json.loads(done.stdout) == []
