"""`knowledge show --at` and `knowledge diff`: a record's past read back (issue 15, §2).

    knowledge show VAULT ID --at COMMIT|DATE --json   # the record as it was then: show's keys
                                                      #   plus "at", "commit", "source", "path"
    knowledge diff VAULT ID [--from A] [--to B]        # unified diff (default: previous version → now)

A and B are checkpoint or user-git commits (full id or a unique prefix of 7+ hex digits),
dates (YYYY-MM-DD: the end of that day, UTC) or ISO date-times, or `now`. Both only read;
exit 0, or 2 for a usage or query error (an id that did not exist then, an unknown commit).
"""

from __future__ import annotations

import argparse
import sys

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import block, json_text
from knowledge_desktop.engine.visible_text import one_line as _safe


def show_at(vault: Vault, args: argparse.Namespace) -> int:
    """`show ID --at A` (read.py's `cmd_show` hands over when --at is given)."""
    record = vault.history.show_at(args.target, args.at)
    if args.json:
        print(json_text(record))
        return 0
    print(
        f"{_safe(record['title'])}  [{_safe(record['kind'])}/{_safe(record['type'])}]  "
        f"{_safe(record['lifecycle'])}"
    )
    print(f"id {_safe(record['id'])}  revision {record['revision']}  {_safe(record['path'])}")
    print(f"as of {_safe(record['at'])}  {_safe(record['source'])} {_safe(str(record['commit'] or '')[:12])}")
    print()
    print(block((record["body"] or "").rstrip()))
    return 0


def register(command: Command) -> None:
    def cmd_diff(vault: Vault, args: argparse.Namespace) -> int:
        text = vault.history.diff(args.id, args.from_, args.to)
        if args.json:
            print(json_text({"id": args.id, "diff": text}))
        else:
            sys.stdout.write(
                block(text, crlf_as_lf=False)
            )  # a control byte in a file's line is shown, not run
        return 0

    p = command("diff", "Unified diff of a record's file between two versions.", cmd_diff)
    p.add_argument("id", metavar="ID")
    p.add_argument(
        "--from",
        dest="from_",
        metavar="A",
        type=argtypes.when,
        help="commit, date or 'now' (default: previous version)",
    )
    p.add_argument("--to", metavar="B", type=argtypes.when, help="commit, date or 'now' (default: now)")
