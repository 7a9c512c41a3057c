"""The window's first paint does not wait for modules it needs only later (issue 26 item 1).

The knowledge API (the Facts tab loads it with the first page shown), Settings ›
Knowledge…, View Changes… and the publish dialog are imported when first used, not with
the window's module. The figures are in bench/RESULTS.md (`python -X importtime -c
"import knowledge_desktop.ui.main_window"`); this test names modules, not times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

LATER = (
    "knowledge_desktop.engine.api",
    "knowledge_desktop.ui.knowledge_settings",
    "knowledge_desktop.ui.view_changes",
    "knowledge_desktop.ui.publish_dialog",
    "mcp",
    "numpy",
)


def test_importing_the_window_leaves_later_modules_unloaded() -> None:
    code = (
        "import json, sys\n"
        "import knowledge_desktop.ui.main_window\n"
        f"print(json.dumps([m for m in sys.modules if m.startswith({LATER!r})]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120, env=os.environ
    )
    assert json.loads(done.stdout) == []
