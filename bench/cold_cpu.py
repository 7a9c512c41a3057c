"""CPU of a cold `knowledge scan`: the main process's, its worker processes', and the text index's.

`getrusage` does not count the parse workers (a forkserver's children, never waited for by
this process), so their CPU is read from /proc every 0.1 s while the scan runs (a worker's
last tenth of a second may be missed). The text index is timed inside the main process
(`reconcile._index_text`, `time.process_time`). Run it on a copy of a vault without its
state, e.g.:

    cp -r bench/vaults/10000-1 /tmp/v && rm -f /tmp/v/.knowledge/state.sqlite*
    python bench/cold_cpu.py /tmp/v
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants_cpu(root: int, seen: dict[int, float]) -> None:
    procs: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        procs[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    tree = {root}
    grew = True
    while grew:
        grew = False
        for pid, (parent, _) in procs.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    for pid in tree - {root}:
        seen[pid] = procs[pid][1]


def main() -> None:
    from knowledge_desktop.cli import main as cli
    from knowledge_desktop.engine import reconcile

    vault = Path(sys.argv[1])
    text_cpu = [0.0]
    index_text = reconcile._index_text

    def timed(*args: Any, **kwargs: Any) -> None:
        started = time.process_time()
        try:
            index_text(*args, **kwargs)
        finally:
            text_cpu[0] += time.process_time() - started

    reconcile._index_text = timed  # type: ignore[assignment]
    seen: dict[int, float] = {}
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(0.1):
            _descendants_cpu(os.getpid(), seen)

    threading.Thread(target=poll, daemon=True).start()
    sys.argv = ["knowledge", "scan", str(vault), "--json"]
    started = time.perf_counter()
    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):
        cli()
    wall = time.perf_counter() - started
    stop.set()
    own = resource.getrusage(resource.RUSAGE_SELF)
    state = vault / ".knowledge" / "state.sqlite"
    print(
        f"wall {wall:.2f} s, main CPU {own.ru_utime + own.ru_stime:.2f} s (text index {text_cpu[0]:.2f} s),"
        f" workers CPU {sum(seen.values()):.2f} s, main peak RSS {own.ru_maxrss / 1024:.0f} MiB,"
        f" state.sqlite {state.stat().st_size / 1e6:.1f} MB, load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
