"""Adopt benchmark: a generated Obsidian-style folder of plain notes adopted in one run.

    PYTHONPATH=. python bench/adopt.py [--notes 10000]

Writes `--notes` plain notes (`tests/vaultkit.obsidian_notes`: file-name, path,
alias, heading-fragment, embed and labelled wikilinks; names with spaces and
punctuation; Obsidian/Foam frontmatter on some) into a temporary vault, opens
and scans it (not timed: the state a user has when they run `adopt`), then
times the dry run and the real run (`knowledge adopt`'s engine calls: plan,
journal, atomic replacement of every file, reconcile, receipt) and the undo.
Target (issue 14): adopting 10,000 plain notes takes ≤ 20 s. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import adoption
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.requests import make_request
from tests.vaultkit import obsidian_notes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        links = obsidian_notes(root / "private", args.notes)
        with Vault.open(root) as vault:
            started = time.perf_counter()
            vault.reconcile()
            scan_s = time.perf_counter() - started
            ctx = WriteContext(
                vault.root,
                vault.store,
                vault.reconciler,
                vault.reconcile,
                make_request("adopt", {}),
                vault.vault_id,
                utc_now_text(),
            )
            started = time.perf_counter()
            dry = adoption.dry_run(ctx)
            dry_s = time.perf_counter() - started
            started = time.perf_counter()
            receipt = adoption.adopt(vault.write, expect=adoption.expected_from(dry))
            adopt_s = time.perf_counter() - started
            errors = sum(1 for d in vault.diagnostics() if d.severity is dg.Severity.ERROR)
            started = time.perf_counter()
            adoption.undo(vault.write, receipt["journalId"])
            undo_s = time.perf_counter() - started
    print(
        json.dumps(
            {
                "notes": args.notes,
                "links": len(links),
                "adopted": len(receipt["items"]),
                "skipped": len(receipt["skipped"]),
                "errorsAfter": errors,
                "scanBeforeS": round(scan_s, 2),
                "dryRunS": round(dry_s, 2),
                "adoptS": round(adopt_s, 2),
                "undoS": round(undo_s, 2),
                "targetS": 20,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
