"""`knowledge changes | revert`: the person's view of the knowledge API's changes, and undoing
them (issue 16 §1 and §3; spec: facts-entities-collections-api, Changes and undo).

    knowledge changes VAULT [--run R] [--status S] [--since ISO] --json
        # [{ref, runId, actor, op, target, summary, status, proposed, createdAt}], newest first
    knowledge revert VAULT --run R | --change REF --json
        # {runId, reverted, items: [{ref, op, status, note}]}

Both act as the person: every actor's changes are listed (`S` is applied, reverted, conflict,
rolled-back or pending), and a revert is written by `user` in a run of its own (`runId`), so
it can be listed too. A change's ref is its journal id. Exit 0; 2 for a usage error or a
change that does not exist; 4 when a change could not be undone (changed since, say: its
item says why; the rest of the run is undone all the same).
"""

from __future__ import annotations

import argparse
from typing import Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.engine.api.changes import list_changes, revert
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import person_changes
from knowledge_desktop.engine.visible_text import json_text
from knowledge_desktop.engine.visible_text import one_line as _safe

EXIT_OK, EXIT_REJECTED = 0, 4
STATUSES = ("applied", "reverted", "conflict", "rolled-back", "pending")


def register(command: Command) -> None:
    def cmd_changes(vault: Vault, args: argparse.Namespace) -> int:
        found = list_changes(person_changes(vault), run_id=args.run, status=args.status, since=args.since)
        if args.json:
            _print_json([c.as_json() for c in found])
            return EXIT_OK
        if not found:
            print("no changes")
        for c in found:
            print(
                f"{c.ref:>6}  {_safe(c.created_at)}  {_safe(c.status):<9} {_safe(c.actor):<24}"
                f" {_safe(c.run_id or '-')}  {_safe(c.summary)}"
            )
        return EXIT_OK

    def cmd_revert(vault: Vault, args: argparse.Namespace) -> int:
        if (args.run is None) == (args.change is None):
            raise QueryError("revert takes --run R or --change REF, one of them")
        if vault.read_only:
            raise QueryError("the vault is read-only: nothing can be reverted there")
        who = person_changes(vault)
        result = revert(who, run_id=args.run, change_ref=args.change)
        failed = any(i.status == "failed" for i in result.items)
        if args.json:
            _print_json({"runId": who.run_id, **result.as_json()})
        else:
            for i in result.items:
                print(f"{i.ref:>6}  {_safe(i.op):<20} {_safe(i.status):<8} {_safe(i.note)}")
            print(f"{result.reverted} change(s) reverted, in run {_safe(who.run_id)}")
        return EXIT_REJECTED if failed else EXIT_OK

    p = command("changes", "The knowledge API's changes, every actor's, newest first.", cmd_changes)
    p.add_argument("--run", metavar="R", help="only the changes of run R")
    p.add_argument("--status", choices=STATUSES, help="only changes of this status")
    p.add_argument(
        "--since", metavar="ISO", type=argtypes.when, help="only changes made at or after this date or time"
    )
    p = command("revert", "Undo a run's changes (newest first) or one change, as the person.", cmd_revert)
    p.add_argument("--run", metavar="R", help="the run to undo")
    p.add_argument("--change", metavar="REF", help="the one change to undo (its journal id)")


def _print_json(value: Any) -> None:
    print(json_text(value))
