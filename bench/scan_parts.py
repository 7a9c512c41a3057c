"""Cold scan in this process: the CPU of the scan's own thread split by the steps outside
the search text (issue 26 §2): the graph step, the projections' writes, the graph snapshot,
settling each read file (its parse JSON decoded, its node built).

    python bench/scan_parts.py VAULT      # deletes VAULT's state first, then scans it

Each step is timed with `time.thread_time` around its function, so the parse workers and
the executor's own thread are not counted; "ours" adds the steps issue 26's graph-and-writes
part covers. On a shared machine compare these CPU figures, before and after alternately.
"""

from __future__ import annotations

import collections
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPENT: dict[str, float] = collections.defaultdict(float)
OURS = (
    "graph.apply",
    "snapshot",
    "settle",
    "codec.decode",
    "catalog",
    "links",
    "temporal",
    "diagnostics",
)


def timed(owner: Any, name: str, label: str) -> None:
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[label] += time.thread_time() - started

    setattr(owner, name, wrapper)


def main() -> None:
    root = Path(sys.argv[1])
    for path in (root / ".knowledge").glob("state.sqlite*"):
        path.unlink()
    shutil.rmtree(root / ".knowledge" / "history.git", ignore_errors=True)
    from knowledge_desktop.engine import reconcile
    from knowledge_desktop.engine.graph import vault_graph
    from knowledge_desktop.engine.store import codec
    from knowledge_desktop.engine.vault import Vault

    timed(vault_graph.VaultGraph, "apply", "graph.apply")
    timed(reconcile, "_write_snapshot", "snapshot")
    timed(reconcile, "settle", "settle")
    timed(codec, "decode", "codec.decode")
    timed(reconcile, "_index_text", "search text (not ours)")
    for projection in reconcile.PROJECTIONS:
        timed(projection, "index", str(getattr(projection, "__name__", "")).rsplit(".", 1)[-1])
    started = time.thread_time()
    with Vault.open(root) as vault:
        vault.reconcile(baseline=True)
        whole = time.thread_time() - started
    print(", ".join(f"{k} {v:.2f}" for k, v in sorted(SPENT.items())))
    ours = sum(SPENT[k] for k in OURS)
    print(f"ours {ours:.2f} s of the thread's reconcile {whole:.2f} s")


if __name__ == "__main__":
    main()
