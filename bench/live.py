"""Live-vault benchmark: edit-to-pane latency, event-loop stalls, resident memory.

    python bench/live.py --vault bench/vaults/1000-1 [--edits 40]
    python bench/live.py --vault bench/vaults/100000-1 --in-place   # an indexed vault, no copy
    python bench/live.py --vault PATH --cold-copy     # stall while the copy is first indexed
    python bench/live.py --vault PATH --burst 1000    # stall while 1,000 files change at once
    python bench/live.py --vault PATH --publish       # each edit published (fenced edit-body)

Runs the real window offscreen in this process, on a copy of the vault. For each edit it rewrites
one record through a temp file and a rename (as editors save), then times:

- *edit → applied*: until the window received the ChangeSet naming that file
  (debounce + reconcile + queued delivery), and
- *edit → pane*: until the record pane shows the new text (the user sees it);
- *edit → all panes settled*: until every pane's follow-up request (catalog,
  backlinks with their mention search, timeline, diagnostics, counts) has
  been answered.

With `--publish` each edit is a fenced edit-body through the publish path on a
worker thread (as the window's write dialogs publish), and the same three
times run from the call.

A heartbeat timer on the UI thread records the worst delay of the event loop
throughout. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from percentile import pct  # bench/percentile.py, beside this script

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def rss_mb() -> dict[str, float]:
    """VmRSS and VmHWM, and VmRSS split into anonymous memory (the heap) and file pages
    mapped in (shared libraries, mapped files: the system takes those back as it needs)."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM", "RssAnon", "RssFile")):
            key, value = line.split(":")
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


REST_S = 14.0  # longer than the window waits for quiet panes before returning freed heap (10 s)

BURST_WRITER = """
import sys
from pathlib import Path
for name in sys.argv[1:]:
    path = Path(name)
    path.write_text(path.read_text("utf-8").rstrip("\\n") + "\\n\\nburst edit\\n", "utf-8")
"""


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "max": pct(values, 1)}


def save_like_an_editor(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{random.randrange(1 << 30)}")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def publish_edit(vault, rel: str, marker: str, refused: list[str]) -> None:  # type: ignore[no-untyped-def]
    """An edit-body fenced on what the record is now: what the window's dialogs publish.
    A refusal (an invalid or duplicate-id record cannot be fenced) goes to `refused`."""
    try:
        shown = vault.show(rel)
        fence = f"{shown['id']}:{shown['revision']}:{shown['hash']}"
        body = (shown.get("body") or "").rstrip("\n") + f"\n\n{marker}\n"
        vault.edit_body(fence, body, actor="bench")
    except Exception as exc:  # the bench reports it and skips the edit
        refused.append(f"{rel}: {exc}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", required=True, type=Path)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument(
        "--cold-copy", action="store_true", help="copy the vault without its index (else with it)"
    )
    parser.add_argument("--burst", type=int, default=0, help="then rewrite this many files at once")
    parser.add_argument(
        "--publish",
        action="store_true",
        help="make each edit a fenced edit-body through the publish path (on a worker thread, "
        "as the window's dialogs do) instead of an outside save",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="edit the vault itself (its index stays valid; every edited file is restored at the end)",
    )
    args = parser.parse_args()

    from heartbeat import Heartbeat  # bench/heartbeat.py, beside this script
    from heartbeat import pump_until as wait_for
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    from knowledge_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    scratch = Path(tempfile.mkdtemp(prefix="kd-live-"))
    vault = args.vault.resolve()
    originals: dict[Path, bytes] = {}
    if not args.in_place:
        # Work on a copy: the cached bench vaults stay as generated.
        target = scratch / "vault"
        ignore = shutil.ignore_patterns(".knowledge") if args.cold_copy else None
        shutil.copytree(vault, target, ignore=ignore)
        vault = target
    settings = QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.show()
    heartbeat = Heartbeat()
    result: dict[str, object] = {"vault": str(args.vault), "coldCopy": args.cold_copy}

    def pump_until(condition, timeout: float) -> bool:  # type: ignore[no-untyped-def]
        return wait_for(app, condition, timeout)

    loaded: list[bool] = []
    window.loaded.connect(lambda: loaded.append(True))
    heartbeat.start()
    started = time.perf_counter()
    window.open_vault(vault)
    if not pump_until(lambda: bool(loaded), 1800):
        print(json.dumps({"error": "vault did not load"}))
        return 1
    # Fully live: the graph is in memory, so an outside edit is applied at full speed.
    pump_until(lambda: window.vault is not None and window.vault.reconciler._graph is not None, 600)
    result["fullyLiveS"] = round(time.perf_counter() - started, 2)
    pump_until(lambda: window.settled, 600)
    result["openSeconds"] = round(time.perf_counter() - started, 2)
    result["openWorstStallMs"] = round(heartbeat.worst_ms, 1)
    result["openStallsOver50ms"] = len(heartbeat.stalls)
    result["memoryAfterOpenMB"] = rss_mb()
    pump_until(lambda: False, REST_S)  # the window returns freed heap once it is quiet
    result["memoryAfterOpenAtRestMB"] = rss_mb()

    applied: dict[str, float] = {}

    def on_change(change) -> None:  # type: ignore[no-untyped-def]
        now = time.perf_counter()
        for p in change.paths:
            applied.setdefault(p, now)

    window.change_applied.connect(on_change)
    root = window.vault.root if window.vault else vault
    records = (
        sorted(
            str(p.relative_to(root)).replace(os.sep, "/") for p in (root / "private" / "people").glob("*.md")
        )[:2000]
        or sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))[:2000]
    )
    rng = random.Random(args.seed)
    to_applied: list[float] = []
    to_pane: list[float] = []
    to_settled: list[float] = []
    refused: list[str] = []
    skipped: list[str] = []
    heartbeat.reset()
    for n in range(args.edits):
        rel = rng.choice(records)
        window.open_record(rel)
        pump_until(lambda rel=rel: window.current_path == rel and window.settled, 30)
        path = root / rel
        originals.setdefault(path, path.read_bytes())
        marker = f"live-edit-{args.seed}-{n}-{rng.randrange(1 << 30)}"
        text = path.read_text("utf-8").rstrip("\n") + f"\n\n{marker}\n"
        applied.pop(rel, None)
        t0 = time.perf_counter()
        if args.publish:
            assert window.vault is not None
            worker = threading.Thread(target=publish_edit, args=(window.vault, rel, marker, refused))
            worker.start()
        else:
            save_like_an_editor(path, text)
        if not pump_until(lambda rel=rel: rel in applied or len(refused) > len(skipped), 30):
            pass
        if len(refused) > len(skipped):
            skipped.append(rel)
            continue
        if not pump_until(lambda rel=rel: rel in applied, 30):
            to_applied.append(30_000.0)
            continue
        to_applied.append((applied[rel] - t0) * 1000)
        pump_until(lambda m=marker: m in window.record.browser.toPlainText(), 30)
        to_pane.append((time.perf_counter() - t0) * 1000)
        pump_until(lambda: window.settled, 30)
        to_settled.append((time.perf_counter() - t0) * 1000)
        pump_until(lambda: False, 0.05)
    result["edits"] = args.edits
    result["editsPublished"] = args.publish
    result["editsRefused"] = refused
    result["editToAppliedMs"] = summary(to_applied)
    result["editToPaneMs"] = summary(to_pane)
    result["editToAllPanesSettledMs"] = summary(to_settled)
    result["editsWorstStallMs"] = round(heartbeat.worst_ms, 1)

    if args.burst:
        files = sorted(p for p in root.rglob("*.md") if ".knowledge" not in p.parts)[: args.burst]
        for path in files:
            originals.setdefault(path, path.read_bytes())
        applied.clear()
        print(f"burst: starting in process {os.getpid()}", file=sys.stderr, flush=True)
        if os.environ.get("KD_BENCH_BURST_PAUSE"):  # time to attach a profiler
            time.sleep(float(os.environ["KD_BENCH_BURST_PAUSE"]))
        heartbeat.reset()
        # Another process rewrites the files (as `git checkout` would), so the window's
        # own thread only does what the app does.
        writer = subprocess.Popen(
            [sys.executable, "-c", BURST_WRITER, *map(str, files)], stdin=subprocess.DEVNULL
        )
        t0 = time.perf_counter()
        pump_until(lambda: writer.poll() is not None, 600)
        wanted = {str(p.relative_to(root)).replace(os.sep, "/") for p in files}
        pump_until(lambda: wanted <= set(applied) and window.settled, 600)
        result["burst"] = {
            "files": len(files),
            "allAppliedSeconds": round(time.perf_counter() - t0, 2),
            "missing": len(wanted - set(applied)),
            "worstStallMs": round(heartbeat.worst_ms, 1),
            "stallsOver50ms": len(heartbeat.stalls),
        }
    result["memoryAtEndMB"] = rss_mb()
    pump_until(lambda: window.settled, 60)
    pump_until(lambda: False, REST_S)
    result["memoryAtEndAtRestMB"] = rss_mb()
    for path, data in originals.items():
        path.write_bytes(data)
    result["median_edit_to_applied_ms"] = round(statistics.median(to_applied), 1) if to_applied else None
    heartbeat.stop()
    window.close()
    QCoreApplication.processEvents()
    shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(result, indent=2), flush=True)
    # Skip interpreter teardown: Qt objects dying in arbitrary order at exit are
    # not what this benchmark measures.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
