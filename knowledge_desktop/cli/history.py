"""`knowledge checkpoints | history`: the app's Git checkpoints read back (issue 15, §1–2).

    knowledge checkpoints VAULT [--pending] [--observed on|off] --json
        # {"unavailable", "outbox": [...], "commits": [...], "observed": {paths, reason, enabled}}
    knowledge history VAULT ID [--limit N] --json    # [{"commit","at","author","operation","source",
                                                     #   "revision","hash","path"}], newest first

Both only read; exit 0, or 2 for a usage error.
"""

from __future__ import annotations

import argparse
from typing import Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import json_text
from knowledge_desktop.engine.visible_text import one_line as _safe


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
            print(f"checkpoints unavailable: {_safe(result['unavailable'])}")
        for row in result["outbox"]:
            detail = row["commit"] or row["reason"] or ""
            print(
                f"{row['journalId']:>5}  {_safe(row['state']):<9} {_safe(row['operation'] or '-'):<12}"
                f" {_safe(detail)}"
            )
        waiting = result["observed"]
        if not waiting["enabled"]:
            print("observed checkpoints: off")
        elif waiting["paths"]:
            print(f"observed: {waiting['paths']} path(s) waiting  {_safe(waiting['reason'] or '')}".rstrip())
        for c in result["commits"]:
            print(
                f"{_safe(c['commit'][:12])}  {_safe(c['at'])}  {_safe(c['operation'] or '-'):<12}"
                f" by {_safe(c['author'])}"
            )
        return 0

    def cmd_history(vault: Vault, args: argparse.Namespace) -> int:
        rows = vault.history.versions(args.id, args.limit)
        if args.json:
            _print_json(rows)
            return 0
        if not rows:
            print(f"no checkpointed versions of {_safe(args.id)}")
        for r in rows:
            print(
                f"{_safe(r['commit'][:12])}  {_safe(r['at'])}  r{r['revision']}  "
                f"{_safe(r['operation'] or '-'):<12} by {_safe(r['author'])}"
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
    p.add_argument("--limit", type=argtypes.limit(1000), default=50)


def _print_json(value: Any) -> None:
    print(json_text(value))
