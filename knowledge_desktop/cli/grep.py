"""`knowledge grep`: keyword search over the vault's records (spec: retrieval)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.cli.filters import add_record_filters as _add_record_filters
from knowledge_desktop.cli.output import emit as _emit
from knowledge_desktop.cli.output import safe as _safe
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK = 0


def cmd_grep(vault: Vault, args: argparse.Namespace) -> int:
    q = GrepQuery(
        args.query,
        mode=args.mode,
        kind=args.kind,
        types=frozenset([args.type]) if args.type else None,
        tag=args.tag,
        lifecycle=args.lifecycle,
        time_field=args.time_field,
        since=args.since,
        until=args.until,
        limit=args.limit,
        offset=args.offset,
    )
    result = vault.grep(q, args.scope)

    def human() -> str:
        out = []
        for hit in result["hits"]:
            score = f"{hit['score']:.2f}" if hit["score"] is not None else "via " + _safe(hit["via"]["id"])
            what = _safe(hit["type"] or hit["kind"])
            out.append(f"{score:>8}  {_safe(hit['title'])}  [{what}]  {_safe(hit['path'])}")
            snippet = _safe(" ".join(hit["snippet"]["text"].split())[:160])
            out.append(f"          {snippet}")
        more = f" — next: --offset {result['nextOffset']}" if result["nextOffset"] else ""
        return "\n".join([*out, f"{result['total']} hits{more}"])

    _emit(args, result, human)
    return EXIT_OK


def register(command: Command) -> None:
    p = command("grep", "Keyword search (all words must match by default).", cmd_grep)
    p.add_argument("query")
    p.add_argument("--mode", choices=("all", "any", "phrase"), default="all")
    _add_record_filters(p, notes=True)
    p.add_argument("--time-field", choices=TIME_FIELDS)
    p.add_argument("--since", type=argtypes.when)
    p.add_argument("--until", type=argtypes.when)
    p.add_argument("--limit", type=argtypes.limit(50), default=20)
    p.add_argument("--offset", type=argtypes.offset, default=0)
