"""`knowledge checkpoints | history`: the app's Git checkpoints read back (issue 15, §1–2).

    knowledge checkpoints VAULT [--pending] [--observed on|off] --json
        # {"unavailable", "outbox": [...], "commits": [...], "observed": {paths, reason, enabled}}
    knowledge history VAULT ID [--limit N] --json    # [{"commit","at","author","operation","source",
                                                     #   "revision","hash","path"}], newest first

Both only read; exit 0, or 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from knowledge_desktop import cli_args
from knowledge_desktop.cli_lifecycle import Command
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault


def register(command: Command) -> None:
    def cmd_checkpoints(vault: Vault, args: argparse.Namespace) -> int:
        if args.observed is not None:
            if vault.read_only:
                raise QueryError("the vault is read-only: its observed-checkpoint setting cannot change")
            vault.history.observed_enabled = args.observed == "on"
        result = vault.history.checkpoints(pending_only=args.pending)
        if args.json:
            _print_json(result)
            return 0
        if result["unavailable"]:
            print(f"checkpoints unavailable: {result['unavailable']}")
        for row in result["outbox"]:
            detail = row["commit"] or row["reason"] or ""
            print(f"{row['journalId']:>5}  {row['state']:<9} {row['operation'] or '-':<12} {detail}")
        waiting = result["observed"]
        if not waiting["enabled"]:
            print("observed checkpoints: off")
        elif waiting["paths"]:
            print(f"observed: {waiting['paths']} path(s) waiting  {waiting['reason'] or ''}".rstrip())
        for c in result["commits"]:
            print(f"{c['commit'][:12]}  {c['at']}  {c['operation'] or '-':<12} by {c['author']}")
        return 0

    def cmd_history(vault: Vault, args: argparse.Namespace) -> int:
        rows = vault.history.versions(args.id, args.limit)
        if args.json:
            _print_json(rows)
            return 0
        if not rows:
            print(f"no checkpointed versions of {args.id}")
        for r in rows:
            print(
                f"{r['commit'][:12]}  {r['at']}  r{r['revision']}  {r['operation'] or '-':<12}"
                f" by {r['author']}"
            )
        return 0

    p = command("checkpoints", "The checkpoint outbox and recent checkpoint commits.", cmd_checkpoints)
    p.add_argument("--pending", action="store_true", help="only checkpoints not committed yet")
    p.add_argument(
        "--observed",
        choices=("on", "off"),
        help="turn observed checkpoints (of edits made outside the app) on or off for this vault",
    )
    p = command("history", "A record's checkpointed versions, newest first.", cmd_history)
    p.add_argument("id", metavar="ID")
    p.add_argument("--limit", type=cli_args.limit(1000), default=50)


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))
