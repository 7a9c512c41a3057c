"""Knowledge API benchmark (issue 16 §5): `facts.put` → the subject's record pane shows the fact.

    python bench/facts_pane.py --vault bench/vaults/1000-1 [--puts 40]
    python bench/facts_pane.py --vault PATH --out-of-process   # puts from another process

Runs the real window offscreen in this process, on a copy of the vault, to which it adds a
self page (a person page with the alias `knowledge:self`). It installs the example recipe gem
(`examples/recipe-gem/manifest.json`) into `private`, turns on its `facts.write:self:pref.food.*`
and `facts.read:self:pref.food.*`, shows the self page in the record pane, then for each put:

- calls `facts.put(session, predicate_hint="pref.food.rated", value=<new dish>)` on a worker
  thread (never the UI thread), in a session from `vault_api.open_session` on the window's
  vault, as an extension running inside the app does: the publish reaches the window through
  `Vault.on_publish`;
- times *put → returned* (the call itself), *put → applied* (the window received the ChangeSet
  naming the new claim file) and *put → pane*: until the Facts tab's tree holds a row with the
  new value (polled through the Qt event loop).

With `--out-of-process` each put is made by a second Python process holding its own `Vault`
and session on the same folder (as `knowledge mcp` would): the window hears it through its file
watcher, and the time runs from the request sent to that process.

A heartbeat timer on the UI thread records the worst delay of the event loop during the puts.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from percentile import pct  # bench/percentile.py, beside this script

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "examples" / "recipe-gem" / "manifest.json"
PREDICATE = "pref.food.rated"
SELF_REL = "private/people/bench-self.md"
SELF_ID = "pg_bench_self"
SELF_PAGE = """---
format: knowledge-record-v1
id: pg_bench_self
revision: 1
kind: page
type: person
title: Bench Self
recorded_at: 2026-12-02T00:00:00Z
updated_at: 2026-12-02T00:00:00Z
scope: private
lifecycle: active
aliases:
- knowledge:self
---
The person whose vault this is.
"""

PUTTER = """
import json, sys
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session

vault = Vault.open(sys.argv[1])
session = open_session(vault, sys.argv[2])
print("ready", flush=True)
for line in sys.stdin:
    result = facts.put(session, predicate_hint=sys.argv[3], value=json.loads(line))
    print(result.status, flush=True)
"""


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "max": pct(values, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--puts", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--out-of-process",
        action="store_true",
        help="make each put in a second process; the window hears it through its file watcher",
    )
    args = parser.parse_args()

    from heartbeat import Heartbeat  # bench/heartbeat.py, beside this script
    from heartbeat import pump_until as wait_for
    from PySide6.QtCore import QCoreApplication, QSettings, Qt
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.engine.api import facts
    from knowledge_desktop.engine.api.grants import Extensions
    from knowledge_desktop.engine.api.manifest import validate_manifest
    from knowledge_desktop.engine.vault_api import open_session
    from knowledge_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="kd-facts-"))
    vault_dir = scratch / "vault"
    shutil.copytree(args.vault.resolve(), vault_dir)
    (vault_dir / SELF_REL).parent.mkdir(parents=True, exist_ok=True)
    (vault_dir / SELF_REL).write_text(SELF_PAGE, "utf-8")
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.show()
    heartbeat = Heartbeat()
    result: dict[str, Any] = {"vault": str(args.vault), "outOfProcess": args.out_of_process}

    def pump_until(condition, timeout: float) -> bool:  # type: ignore[no-untyped-def]
        return wait_for(app, condition, timeout)

    loaded: list[bool] = []
    window.loaded.connect(lambda: loaded.append(True))
    heartbeat.start()
    started = time.perf_counter()
    window.open_vault(vault_dir)
    if not pump_until(lambda: bool(loaded), 3600):
        print(json.dumps({"error": "vault did not load"}))
        return 1
    pump_until(lambda: window.vault is not None and window.vault.reconciler._graph is not None, 1800)
    pump_until(lambda: window.settled, 1800)
    result["openSeconds"] = round(time.perf_counter() - started, 2)
    vault = window.vault
    assert vault is not None

    extensions = Extensions(vault.store, vault.root)
    manifest = validate_manifest(json.loads(MANIFEST.read_text("utf-8")))
    extensions.install(manifest, "private")
    for permission in ("facts.write:self:pref.food.*", "facts.read:self:pref.food.*"):
        extensions.grant(manifest.name, permission)
    pump_until(lambda: window.settled, 60)

    window.open_record(SELF_REL)
    pump_until(lambda: window.current_path == SELF_REL and window.settled, 60)
    tree = window.record.facts.tree

    def shown(value: str) -> bool:
        flags = Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
        return bool(tree.findItems(value, flags, 1))

    putter: subprocess.Popen[str] | None = None
    session = None
    if args.out_of_process:
        putter = subprocess.Popen(
            [sys.executable, "-c", PUTTER, str(vault.root), manifest.name, PREDICATE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])},
        )
        assert putter.stdout is not None
        assert putter.stdin is not None
        if putter.stdout.readline().strip() != "ready":
            print(json.dumps({"error": "the putting process did not start"}))
            return 1
    else:
        session = open_session(vault, manifest.name)

    heard: list[tuple[float, Any]] = []
    window.change_applied.connect(lambda change: heard.append((time.perf_counter(), change)))
    rng = random.Random(args.seed)
    to_applied: list[float] = []
    returned: list[float] = []
    to_pane: list[float] = []
    failed: list[str] = []
    heartbeat.reset()
    for n in range(args.puts):
        value = f"dish {n} {rng.randrange(1 << 30)}"
        done: list[float] = []
        heard.clear()
        t0 = time.perf_counter()
        if putter is not None:
            assert putter.stdin is not None
            assert putter.stdout is not None
            putter.stdin.write(json.dumps(value) + "\n")
            putter.stdin.flush()

            def wait_reply(p: subprocess.Popen[str] = putter, out: list[float] = done) -> None:
                assert p.stdout is not None
                status = p.stdout.readline().strip()
                if status != "applied":
                    failed.append(status)
                out.append(time.perf_counter())

            threading.Thread(target=wait_reply).start()
        else:

            def put(v: str = value, out: list[float] = done) -> None:
                try:
                    status = facts.put(session, predicate_hint=PREDICATE, value=v).status
                    if status != "applied":
                        failed.append(status)
                except Exception as exc:  # the bench reports it
                    failed.append(repr(exc))
                out.append(time.perf_counter())

            threading.Thread(target=put).start()
        if not pump_until(lambda v=value: shown(v), 30):
            to_pane.append(30_000.0)
        else:
            to_pane.append((time.perf_counter() - t0) * 1000)
        pump_until(lambda d=done: bool(d), 30)
        claim = [t for t, c in heard if any(p.startswith("private/claims/") for p in c.paths)]
        if claim:
            to_applied.append((claim[0] - t0) * 1000)
        if done:
            returned.append((done[0] - t0) * 1000)
        pump_until(lambda: window.settled, 30)
        pump_until(lambda: False, 0.05)
    result["puts"] = args.puts
    result["failed"] = failed
    result["putReturnedMs"] = summary(returned)
    result["putToAppliedMs"] = summary(to_applied)
    result["putToFactsPaneMs"] = summary(to_pane)
    result["putsWorstStallMs"] = round(heartbeat.worst_ms, 1)
    result["putsStallsOver50ms"] = len(heartbeat.stalls)
    result["rowsShown"] = len(window.record.facts.groups[0].values) if window.record.facts.groups else 0
    result["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    if putter is not None:
        assert putter.stdin is not None
        putter.stdin.close()
        putter.wait(30)
    heartbeat.stop()
    window.close()
    QCoreApplication.processEvents()
    shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(result, indent=2), flush=True)
    os._exit(0)  # as live.py: Qt teardown order at exit is not what this measures


if __name__ == "__main__":
    raise SystemExit(main())
