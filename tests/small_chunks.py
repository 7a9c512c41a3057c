"""`knowledge ARGS` with the reconcile's chunk set small: `python -m tests.small_chunks N ARGS`
reads, parses and writes N files per transaction, so a kill test can strike between two chunks
of a vault small enough to scan in seconds (`tests/test_chunked_scan.py`)."""

from __future__ import annotations

import sys

from knowledge_desktop.cli.dispatch import main
from knowledge_desktop.engine import reconcile

if __name__ == "__main__":  # (not when a parse worker imports it again)
    reconcile.CHUNK = int(sys.argv.pop(1))
    raise SystemExit(main())
