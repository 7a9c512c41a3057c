"""`knowledge adopt | undo`: plain notes become page records in place, and back (issue 14, §4;
contract: docs/writing.md, "Adopting notes").

    knowledge adopt VAULT [--partition P] [--type FOLDER=TYPE]... [--move PATH]... [--dry-run]
                    [--root-into PARTITION] [--expect DRY.json]
                    [--request-id R] [--actor A] --json
    knowledge undo VAULT JOURNAL_ID [--request-id R] [--actor A] --json

Exit codes are the write commands': 0 published (or the same receipt again;
a dry run), 4 rejected (`{"error": …}` on stdout with --json), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command, WriteHelpers
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import json_text
from knowledge_desktop.engine.visible_text import one_line as _safe
from knowledge_desktop.engine.write import adoption
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.requests import make_request


def _type_pair(text: str) -> tuple[str, str]:
    folder, sep, name = text.partition("=")
    if not (sep and folder.strip("/") and name):
        raise argparse.ArgumentTypeError(f"--type is FOLDER=TYPE, not {text!r}")
    return folder.strip("/"), name


def register(command: Command, helpers: WriteHelpers) -> None:
    def cmd_adopt(vault: Vault, args: argparse.Namespace) -> int:
        type_map = dict(args.types or []) or None
        if args.dry_run:
            request = make_request("adopt", {}, actor=args.actor)
            ctx = WriteContext(
                vault.root,
                vault.store,
                vault.reconciler,
                vault.reconcile,
                request,
                vault.vault_id,
                utc_now_text(),
            )
            result = adoption.dry_run(
                ctx, args.partition, type_map=type_map, move=args.move or (), root_into=args.root_into
            )
            _print(args, result, _dry_human)
            return 0
        expect = None
        if args.expect is not None:
            try:
                dry = json.loads(helpers.read(args.expect))
            except json.JSONDecodeError as exc:
                raise QueryError(f"{args.expect} is not JSON: {exc}") from None
            expect = adoption.expected_from(dry if isinstance(dry, dict) else {})
            if args.root_into is None and isinstance(dry.get("rootInto"), str) and args.partition is None:
                args.root_into = dry["rootInto"]  # the root's notes go where the dry run said
        result = adoption.adopt(
            vault.write,
            args.partition,
            type_map=type_map,
            expect=expect,
            move=args.move or (),
            root_into=args.root_into,
            **helpers.request_options(args),
        )
        return helpers.receipt(args, result)

    def cmd_undo(vault: Vault, args: argparse.Namespace) -> int:
        return helpers.receipt(
            args, adoption.undo(vault.write, args.journal_id, **helpers.request_options(args))
        )

    p = command("adopt", "Turn the plain Markdown notes of the vault into page records.", cmd_adopt)
    p.add_argument("--partition", help="only this partition folder (default: every partition)")
    p.add_argument(
        "--type",
        dest="types",
        action="append",
        type=_type_pair,
        metavar="FOLDER=TYPE",
        help="the page type of notes under FOLDER (or of the note FOLDER names), partition- or"
        " vault-relative (default: the ontology's directories, else note)",
    )
    p.add_argument(
        "--move",
        action="append",
        metavar="PATH",
        help="file the note PATH (vault-relative) in its type's folder, if no link depends on where"
        " it is (default: every note stays where it is)",
    )
    p.add_argument(
        "--root-into",
        metavar="PARTITION",
        help="the partition folder the notes at the vault root move into, keeping their file names"
        " (default: the only partition holding notes, else private; a whole-vault run only)",
    )
    p.add_argument("--dry-run", action="store_true", help="list what would change; write nothing")
    p.add_argument(
        "--expect",
        metavar="DRY.json|-",
        help="a dry run's JSON: refuse if any of its files changed since, and write its ids",
    )
    helpers.write_options(p)
    p = command("undo", "Undo an adopt run: put its files back as they were.", cmd_undo)
    p.add_argument("journal_id", metavar="JOURNAL_ID", type=argtypes.journal_id)
    helpers.write_options(p)


def _dry_human(result: dict[str, Any]) -> str:
    where = result["partition"] if result["partition"] is not None else "the whole vault"
    lines = [f"would adopt {len(result['files'])} note(s) in {_safe(where)}:"]
    if any(f.get("movedTo") and "/" not in f["path"] for f in result["files"]):
        lines[0] += f" (notes at the vault root move into {_safe(result['rootInto'])}/)"
    for f in result["files"]:
        aliases = ", ".join(map(_safe, f["aliasesAdded"]))
        added = f" (+aliases {aliases})" if f["aliasesAdded"] else ""
        if f.get("movedTo"):
            added += f" -> {_safe(f['movedTo'])}"
        lines.append(
            f"  {_safe(f['path'])}  {_safe(f['id'])}  {_safe(repr(f['title']))} [{_safe(f['type'])}]{added}"
        )
    if result["skipped"]:
        lines.append(f"skipped {len(result['skipped'])}:")
        lines += [f"  {_safe(s['path'])}: {_safe(s['reason'])}" for s in result["skipped"]]
    if result.get("linksRewritten"):
        lines.append(
            f"Markdown links rewritten for notes moved from the vault root: {len(result['linksRewritten'])}"
        )
        lines += [
            f"  {_safe(r['path'])}:{r['line']}: ({_safe(r['from'])}) -> ({_safe(r['to'])})"
            for r in result["linksRewritten"]
        ]
    if result["crossPartitionLinks"]:
        count = len(result["crossPartitionLinks"])
        lines.append(f"links into another partition (they keep their targets once adopted): {count}")
        lines += [
            f"  {_safe(c['path'])}: [[{_safe(c['target'])}]] -> {_safe(c['resolvesTo'])}"
            for c in result["crossPartitionLinks"]
        ]
    return "\n".join(lines)


def _print(args: argparse.Namespace, payload: dict[str, Any], human: Any) -> None:
    if args.json:
        sys.stdout.write(json_text(payload) + "\n")
    else:
        sys.stdout.write(human(payload) + "\n")
