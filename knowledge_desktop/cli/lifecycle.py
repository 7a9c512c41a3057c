"""`knowledge correct | withdraw | supersede | merge | unmerge | annotate`: the lifecycle
operations from a terminal (spec: corrections-and-merges; contract: docs/writing.md).

    knowledge correct VAULT FENCE --with FILE.md --reason TEXT [--request-id R] [--actor A] --json
    knowledge withdraw VAULT FENCE --reason TEXT [...] --json
    knowledge supersede VAULT --by FENCE FENCE... --reason TEXT [--undo] [...] --json
    knowledge merge VAULT --survivor FENCE --absorbed FENCE --reason TEXT [--title T] [--body FILE]
                    [...] --json
    knowledge unmerge VAULT FENCE --reason TEXT [...] --json
    knowledge annotate VAULT FENCE --entity ID... [...] --json

A fence is `ID:REVISION:HASH`. Exit codes are the write commands' (`write.py`):
0 published or the same receipt again, 4 rejected by a fence or a rule (the
error object on stdout with `--json`; nothing written), 5 failed part-way,
2 usage. `write.py` lends the helpers its own write commands use, so both
print receipts and errors alike.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from knowledge_desktop.cli.contract import Command, WriteHelpers
from knowledge_desktop.engine.write import lifecycle

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault


def register(command: Command, helpers: WriteHelpers) -> None:
    """Add the six lifecycle commands to the parser `command` builds."""
    fence, options, receipt = helpers.fence, helpers.request_options, helpers.receipt

    def cmd_correct(vault: Vault, args: argparse.Namespace) -> int:
        text = helpers.read(args.replacement)
        return receipt(args, lifecycle.correct(vault.write, args.fence, text, args.reason, **options(args)))

    def cmd_withdraw(vault: Vault, args: argparse.Namespace) -> int:
        return receipt(args, lifecycle.withdraw(vault.write, args.fence, args.reason, **options(args)))

    def cmd_supersede(vault: Vault, args: argparse.Namespace) -> int:
        result = lifecycle.supersede(
            vault.write, args.by, args.fences, args.reason, undo=args.undo, **options(args)
        )
        return receipt(args, result)

    def cmd_merge(vault: Vault, args: argparse.Namespace) -> int:
        body = helpers.read(args.body) if args.body is not None else None
        result = lifecycle.merge(
            vault.write,
            args.survivor,
            args.absorbed,
            args.reason,
            title=args.title,
            body=body,
            **options(args),
        )
        return receipt(args, result)

    def cmd_unmerge(vault: Vault, args: argparse.Namespace) -> int:
        return receipt(args, lifecycle.unmerge(vault.write, args.fence, args.reason, **options(args)))

    def cmd_annotate(vault: Vault, args: argparse.Namespace) -> int:
        return receipt(args, lifecycle.annotate(vault.write, args.fence, args.entities, **options(args)))

    def reason(p: argparse.ArgumentParser) -> None:
        p.add_argument("--reason", required=True, help="why (recorded in lifecycle_change)")

    p = command("correct", "Replace a claim or relationship with a corrected new record.", cmd_correct)
    p.add_argument("fence", metavar="FENCE", type=fence)
    p.add_argument("--with", dest="replacement", required=True, metavar="FILE.md|-")
    reason(p)
    helpers.write_options(p, assertion=True)
    p = command("withdraw", "Withdraw a page, claim or relationship.", cmd_withdraw)
    p.add_argument("fence", metavar="FENCE", type=fence)
    reason(p)
    helpers.write_options(p)
    p = command(
        "supersede", "Supersede earlier claims by an existing claim (--undo: restore).", cmd_supersede
    )
    p.add_argument("--by", required=True, metavar="FENCE", type=fence, help="the claim that replaces them")
    p.add_argument("fences", nargs="+", metavar="FENCE", type=fence, help="1 to 25 earlier claims")
    reason(p)
    p.add_argument("--undo", action="store_true", help="restore claims this `by` superseded")
    helpers.write_options(p)
    p = command("merge", "Merge a duplicate page into its survivor.", cmd_merge)
    p.add_argument("--survivor", required=True, metavar="FENCE", type=fence)
    p.add_argument("--absorbed", required=True, metavar="FENCE", type=fence)
    reason(p)
    p.add_argument("--title", help="a combined title for the survivor")
    p.add_argument("--body", metavar="FILE|-", help="a combined body for the survivor")
    helpers.write_options(p)
    p = command("unmerge", "Restore a merged page and take back what its merge added.", cmd_unmerge)
    p.add_argument("fence", metavar="FENCE", type=fence)
    reason(p)
    helpers.write_options(p)
    p = command("annotate", "Link a claim to the pages it is about (its entities).", cmd_annotate)
    p.add_argument("fence", metavar="FENCE", type=fence)
    p.add_argument("--entity", dest="entities", required=True, nargs="+", action="extend", metavar="ID")
    helpers.write_options(p, assertion=True)
