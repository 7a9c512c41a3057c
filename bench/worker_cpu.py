"""CPU of a cold scan's parse workers, in one process: what each step of their work costs.

A cold `knowledge scan` hands every file to parse workers (`reading.read_batch_encoded`) and
one worker packs the first checkpoint's blobs (`history.baseline._pack`). This runs the same
calls over every file of a vault in this process, so that their CPU is measured without the
scan around it (`time.process_time`), and splits the reading's CPU by step with timers
wrapped around the functions named below (their times overlap: a step includes those it
calls). A digest of everything the workers produce lets two versions be compared:

    python bench/worker_cpu.py /tmp/v     # a copy of bench/vaults/10000-1
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from knowledge_desktop.engine import reading
from knowledge_desktop.engine.fs.walk import walk
from knowledge_desktop.engine.history import baseline
from knowledge_desktop.engine.records import parse, yaml12
from knowledge_desktop.engine.store import codec
from knowledge_desktop.engine.store.packed import unpack
from knowledge_desktop.engine.store.projections import keyword, keyword_text, weights

STEPS = [
    (reading, "read_file"),
    (parse, "_parse_into"),
    (yaml12, "load"),
    (parse, "validate_record"),
    (parse, "_links"),
    (keyword_text, "of_record"),
    (weights, "own_terms"),
    (keyword_text, "pack"),
    (keyword, "times_of"),
    (codec, "encode"),
]


def timed(spent: dict[str, float], label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - started

    return run


def main() -> None:
    root = Path(sys.argv[1])
    entries = sorted(walk(root))
    jobs = [(entry, None) for entry in entries]
    reading.read_batch_encoded(str(root), jobs[:20])  # imports and caches, as a worker has them
    spent: dict[str, float] = defaultdict(float)
    for module, name in STEPS:
        if hasattr(module, name):
            setattr(module, name, timed(spent, name, getattr(module, name)))
    started = time.process_time()
    out = reading.read_batch_encoded(str(root), jobs)
    read_cpu = time.process_time() - started
    digest = hashlib.sha256()
    for result in out:
        text = result.text
        digest.update(repr((result.entry.path, result.sha256, result.encoded)).encode())
        if text is not None:
            digest.update(repr((unpack(text.body), text.exact, text.sizes, text.unpacked())).encode())
    git_dir = tempfile.mkdtemp()
    try:
        started = time.process_time()
        rows = baseline._pack(root, git_dir, [e for e in entries if e.problem is None], {})
        pack_cpu = time.process_time() - started
    finally:
        shutil.rmtree(git_dir)
    digest.update(repr(rows).encode())
    print(f"{len(entries)} files: reading {read_cpu:.2f} s, checkpoint blobs {pack_cpu:.2f} s CPU")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {label:16} {seconds:.2f} s")
    print(f"digest {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
