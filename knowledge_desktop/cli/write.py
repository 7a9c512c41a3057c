"""`knowledge new | save | edit-body | resume | journal`: writing records through the publish
path, and its journal (docs/writing.md).

`helpers()` lends the other write commands (lifecycle.py, adopt.py) the same fence type,
options and receipt, so every write prints its receipt and its errors alike.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command, WriteHelpers
from knowledge_desktop.cli.output import emit as _emit
from knowledge_desktop.cli.output import safe as _safe
from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.write.plan import Fence, WriteRejected

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK = 0


def _read_from(source: str) -> str:
    """The text of `--from FILE` or `--from -` (stdin), bytes kept (no newline translation)."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        return data.decode("utf-8")
    except OSError as exc:
        raise QueryError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise QueryError(f"{source} is not UTF-8 text (byte {exc.start})") from None


def _fence(text: str) -> str:
    """A fence argument `ID:REVISION:HASH`; a malformed one is a usage error (exit 2)."""
    try:
        Fence.parse(text)
    except WriteRejected as exc:
        raise argparse.ArgumentTypeError(exc.message) from None
    return text


def _request_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "request_id": args.request_id,
        "actor": args.actor,
        "expected_vault_id": args.vault_id,
        "expected_ontology_fingerprint": getattr(args, "ontology_fingerprint", None),
    }


def _receipt(args: argparse.Namespace, receipt: dict[str, Any]) -> int:
    def human() -> str:
        items = ", ".join(
            f"{_safe(i['id'])} r{i['revision']} {_safe(i['path'])}" for i in receipt.get("items", [])
        )
        return (
            f"{_safe(receipt.get('operation', '?'))} published: {items or 'no files'} "
            f"(journal {receipt.get('journalId')}, request {_safe(receipt.get('requestId'))})"
        )

    _emit(args, receipt, human)
    return EXIT_OK


def cmd_new(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.new_record(_read_from(args.source), **_request_options(args)))


def cmd_save(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.save_page(args.fence, _read_from(args.source), **_request_options(args)))


def cmd_edit_body(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.edit_body(args.fence, _read_from(args.source), **_request_options(args)))


def cmd_resume(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.resume(args.request_id, reviewed=args.reviewed))


def cmd_journal(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.journal(args.limit, args.offset)

    def human() -> str:
        lines = [
            f"{i['journalId']:>5}  {_safe(i['at'])}  {_safe(i['state']):<11} {_safe(i['operation']):<12} "
            f"{_safe(i['targetId'] or '-')}  by {_safe(i['actor'] or '-')}  ({_safe(i['requestId'])})"
            for i in result["items"]
        ]
        return "\n".join([*lines, f"{result['total']} entries"])

    _emit(args, result, human)
    return EXIT_OK


def _add_write_options(p: argparse.ArgumentParser, *, assertion: bool = False) -> None:
    p.add_argument("--request-id", help="idempotency key (default: a new one, printed in the receipt)")
    p.add_argument("--actor", help="who saves (default: the OS user)")
    p.add_argument("--vault-id", help="expected vault id (the manifest's expectedVaultId)")
    if assertion:
        p.add_argument(
            "--ontology-fingerprint",
            help="expected ontology fingerprint of the partition, for claims and relationships",
        )


def helpers() -> WriteHelpers:
    return WriteHelpers(_fence, _add_write_options, _request_options, _receipt, _read_from)


def register(command: Command) -> None:
    p = command("new", "Create a page, claim or relationship from a record file.", cmd_new)
    p.add_argument("--from", dest="source", required=True, metavar="FILE.md|-")
    _add_write_options(p, assertion=True)
    p = command("save", "Replace a whole page file, fenced ID:REVISION:HASH.", cmd_save)
    p.add_argument("fence", metavar="FENCE", type=_fence)
    p.add_argument("--from", dest="source", required=True, metavar="FILE.md|-")
    _add_write_options(p)
    p = command("edit-body", "Replace only a page's body, fenced ID:REVISION:HASH.", cmd_edit_body)
    p.add_argument("fence", metavar="FENCE", type=_fence)
    p.add_argument("--from", dest="source", required=True, metavar="FILE|-")
    _add_write_options(p)
    p = command("resume", "Finish or roll back an interrupted request; its receipt.", cmd_resume)
    p.add_argument("request_id", metavar="REQUEST_ID")
    p.add_argument("--reviewed", action="store_true", help="mark the request's write conflict as reviewed")
    p = command("journal", "The write journal, newest first, with receipts.", cmd_journal)
    p.add_argument("--limit", type=argtypes.limit(1000), default=50)
    p.add_argument("--offset", type=argtypes.offset, default=0)
