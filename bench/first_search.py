"""First search after opening an indexed vault: in a fresh `knowledge` process, and in the window.

    python bench/first_search.py --vault bench/vaults/100000-1 [--queries 5]

The vault must be indexed, search text included (`knowledge scan VAULT --index-text`).

- *cli*: each query runs `knowledge grep VAULT QUERY --json` in a new process
  and times it from start to exit: opening the vault, the freshness check
  (a stat of every file) and the search. No process has searched before.
- *window*: the real window, offscreen in this process, is asked to open the
  vault; the moment it shows the index, the query is typed; the figure is
  from `open_vault` to the result list showing that query's hits, while the
  window is still checking the folder and loading its graph.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

QUERIES = ("lantern", "field notes", "survey harbour", "the project", "weekly sync")


def installed_env() -> dict[str, str]:
    """The environment of an installed app: its modules compiled once, as pip leaves them.
    (Some machines set PYTHONDONTWRITEBYTECODE, which has every process compile the whole
    package again: 0.3-0.5 s that no installed copy pays.)"""
    import compileall

    import knowledge_desktop

    compileall.compile_dir(Path(knowledge_desktop.__file__).parent, quiet=1)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cli_seconds(vault: Path, query: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", "grep", str(vault), query, "--json"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"grep failed: {done.stderr.strip()}")
    payload = json.loads(done.stdout)
    if payload["index"]["state"] != "ready":
        raise SystemExit(f"the text index was not ready: {payload['index']}")
    return elapsed


def window_seconds(vault: Path, query: str) -> dict[str, float]:
    from heartbeat import Heartbeat  # bench/heartbeat.py, beside this script
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="kd-first-"))
    window = MainWindow(settings=QSettings(str(scratch / "s.ini"), QSettings.Format.IniFormat))
    window.show()
    heartbeat = Heartbeat()
    loaded: list[float] = []
    window.loaded.connect(lambda: loaded.append(time.perf_counter()))
    heartbeat.start()
    started = time.perf_counter()
    window.open_vault(vault)
    while not loaded:
        app.processEvents()
        time.sleep(0.001)
    pane = window.search
    pane.field.setText(query)
    pane.search_now()
    while not pane.summary.text() or "result" not in pane.summary.text():
        app.processEvents()
        time.sleep(0.001)
    shown = time.perf_counter()
    out = {
        "shownIndexS": round(loaded[0] - started, 3),
        "firstResultsS": round(shown - started, 3),
        "summary": pane.summary.text(),
        "worstStallMs": round(heartbeat.worst_ms, 1),
    }
    while not window.settled:  # let the freshness check and graph load finish before closing
        app.processEvents()
        time.sleep(0.005)
    heartbeat.stop()
    window.close()
    return out  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=len(QUERIES))
    args = parser.parse_args()
    vault = args.vault.resolve()
    queries = list(QUERIES[: args.queries])
    env = installed_env()
    cli = [round(cli_seconds(vault, q, env), 3) for q in queries]
    result = {
        "vault": str(args.vault),
        "cliSeconds": cli,
        "cliMedianS": round(statistics.median(cli), 3),
        "cliMaxS": max(cli),
        "window": window_seconds(vault, queries[0]),
    }
    print(json.dumps(result, indent=2), flush=True)
    os._exit(0)  # skip Qt's teardown: not what this measures


if __name__ == "__main__":
    raise SystemExit(main())
