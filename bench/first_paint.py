"""First paint of the last vault: from starting the process to the window painted with its catalog.

    python bench/first_paint.py --vault PATH [--runs 5] [--rest]

Each run starts `knowledge-desktop` with no folder (as a person does), in a fresh
process whose settings name `--vault` as the last vault (an empty config folder under
the system temp dir, so the person's own settings are never read or written), and
times, from just before the process is started:

- *window painted*: the main window's first paint (empty panes);
- *catalog painted*: the catalog's tree view painted after the vault's tree reached
  it (partitions with counts, the first branch expanded): what issue 26 calls first
  paint;
- *graph loaded*: the in-memory graph that live edits need is loaded, on a worker
  (the window never waits for it).

With `--rest` the last run then stays open until the window has settled and been
quiet for `REST_S` seconds (it returns freed heap after 10 s of quiet) and reports
its resident memory (VmRSS, VmHWM) then.

The vault must be indexed already (`knowledge scan`). Prints one JSON object: the
median and range over the runs, and each run.
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

REST_S = 14.0
"""Longer than the window waits for quiet panes before returning freed heap (10 s)."""

# Run with `python -c` so that worker processes do not re-import a main module.
CHILD = r"""
import json, os, sys, time

def rss():
    out = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return out

rest = float(sys.argv[1])
marks = {}

def emit(**extra):
    print(json.dumps({"marks": marks, **extra}), flush=True)

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from knowledge_desktop.ui import app as app_module
from knowledge_desktop.ui.main_window import MainWindow
from knowledge_desktop.ui.panes.catalog import CatalogPane

class PaintWatch(QObject):
    def __init__(self, name, then=None):
        super().__init__()
        self.name, self.then = name, then

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and self.name not in marks:
            marks[self.name] = time.time()
            if self.then is not None:
                QTimer.singleShot(0, self.then)
        return False

watches = []
show_tree = CatalogPane._show_tree

def finish():
    if not rest:
        emit()
        os._exit(0)
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
    started = time.perf_counter()

    def poll():
        vault = window.vault
        if "graph" not in marks and vault is not None and vault.reconciler._graph is not None:
            marks["graph"] = time.time()
        if "settled" not in marks and window.settled and "graph" in marks:
            marks["settled"] = time.time()
            QTimer.singleShot(int(rest * 1000), lambda: (emit(rest=rss()), os._exit(0)))
            return
        if time.perf_counter() - started > 1800:
            emit(error="never settled")
            os._exit(1)
        QTimer.singleShot(50, poll)

    poll()

def timed_show_tree(self, tree, query, expanded):
    show_tree(self, tree, query, expanded)
    if "tree" not in marks and self.model.rowCount():
        marks["tree"] = time.time()
        watch = PaintWatch("catalog", finish)
        watches.append(watch)
        self.tree.viewport().installEventFilter(watch)
        self.tree.viewport().update()

CatalogPane._show_tree = timed_show_tree
window_show = MainWindow.show

def timed_show(self):
    watch = PaintWatch("window")
    watches.append(watch)
    self.installEventFilter(watch)
    window_show(self)

MainWindow.show = timed_show
sys.exit(app_module.main([]))
"""


def settings_home(vault: Path, home: Path) -> dict[str, str]:
    """An environment whose Qt settings name `vault` as the last one (and nothing else)."""
    folder = home / "Knowledge Desktop"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Knowledge Desktop.conf").write_text(f"[General]\nlastVault={vault}\n", "utf-8")
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(home)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run(vault: Path, rest: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="kd-first-paint-") as tmp:
        env = settings_home(vault, Path(tmp))
        started = time.time()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(rest)],
            capture_output=True,
            text=True,
            env=env,
            timeout=1800 + rest,
            check=False,
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"first_paint: the window process failed ({proc.returncode})")
    got = json.loads(lines[-1])
    out: dict[str, object] = {
        f"{name}S": round(at - started, 3) for name, at in sorted(got["marks"].items(), key=lambda i: i[1])
    }
    if "rest" in got:
        out["atRestMiB"] = got["rest"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rest", action="store_true", help="then measure the last run's memory at rest")
    args = parser.parse_args()
    vault = args.vault.resolve()
    if not (vault / ".knowledge" / "state.sqlite").exists():
        raise SystemExit(f"first_paint: {vault} is not indexed (run `knowledge scan` first)")
    runs = [run(vault, REST_S if args.rest and n == args.runs - 1 else 0.0) for n in range(args.runs)]
    result: dict[str, object] = {"vault": str(vault), "load": os.getloadavg()[0]}
    for key in ("windowS", "catalogS"):
        values = [float(r[key]) for r in runs if key in r]  # type: ignore[arg-type]
        if values:
            result[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    result["runs"] = runs
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
