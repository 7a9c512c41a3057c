"""Adopting a whole generated Obsidian-style vault keeps every link (issue 25 §5).

    PYTHONPATH=. python bench/adopt_vault_links.py [--notes 2000] [--seed 1]

Generates a notes vault (`bench/notes_vault.py`: folders of any name, root notes,
duplicate names, every Obsidian link form) in a temporary folder, scans it, reads
every link the vault resolves to a file, adopts the whole vault in one run
(`knowledge adopt VAULT`'s engine calls, no `--partition`), reads them again and
compares: the links a record has (wikilinks, and Markdown links to `.md` files;
embeds and images are no links of a record) by (source, name linked, file
reached), the notes moved from the vault root into a partition mapped to their
new paths (a Markdown link's path may be rewritten for a move, so only the file
it reaches counts). `changed` must be empty and `missingAfter` equal to
`missingBefore`.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.notes_vault import generate_notes
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import adoption

Link = tuple[str, str, str, str]


def links_of(vault: Vault) -> tuple[collections.Counter[Link], int]:
    """Links to a file as a record can have them, and how many links lead nowhere."""
    found: collections.Counter[Link] = collections.Counter()
    missing = 0
    rows = vault.store.reader().execute(
        "SELECT src_path, link_kind, target_text, target_path, status FROM links"
    )
    for source, kind, text, target, status in rows:
        if status in ("missing", "outside") and kind in ("wiki", "markdown"):
            missing += 1
        if target is None or status not in ("resolved", "ambiguous") or kind not in ("wiki", "markdown"):
            continue
        if kind == "markdown" and not target.endswith(".md"):
            continue
        found[(source, kind, "" if kind == "markdown" else text.split("#", 1)[0].strip(), target)] += 1
    return found, missing


def moved_by(receipt: dict[str, object]) -> dict[str, str]:
    """Old path -> new of the notes the run moved: a move is two items of one id, the delete
    at the root and the file created in the partition."""
    paths: dict[str, list[str]] = collections.defaultdict(list)
    for item in receipt["items"]:  # type: ignore[attr-defined]
        paths[item["id"]].append(item["path"])
    return {
        old: new
        for pair in paths.values()
        if len(pair) == 2
        for old, new in [sorted(pair, key=lambda p: "/" in p)]
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        generate_notes(root, args.notes, args.seed)
        with Vault.open(root) as vault:
            vault.reconcile()
            before, missing_before = links_of(vault)
            started = time.perf_counter()
            receipt = adoption.adopt(vault.write)
            adopt_s = time.perf_counter() - started
            vault.reconcile()
            after, missing_after = links_of(vault)
            undone = adoption.undo(vault.write, receipt["journalId"])
        skipped = collections.Counter(s["code"] for s in receipt.get("skipped", []))
        moved = moved_by(receipt)
        mapped = {(moved.get(s, s), k, n, moved.get(t, t)) for s, k, n, t in before.elements()}
        changed = sorted(mapped ^ set(after.elements()))
        print(
            json.dumps(
                {
                    "notes": args.notes,
                    "seed": args.seed,
                    "adopted": len(receipt["items"]) - len(moved),
                    "movedFromRoot": len(moved),
                    "skipped": dict(skipped),
                    "linksBefore": sum(before.values()),
                    "linksAfter": sum(after.values()),
                    "changed": [list(c) for c in changed[:20]],
                    "changedCount": len(changed),
                    "missingBefore": missing_before,
                    "missingAfter": missing_after,
                    "adoptSeconds": round(adopt_s, 1),
                    "undoneFiles": len(undone["items"]),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
