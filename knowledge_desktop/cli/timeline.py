"""`knowledge timeline | chronicle`: dated records, for the vault, an entity or a day
(spec: time-and-chronicle)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.cli.output import emit as _emit
from knowledge_desktop.cli.output import safe as _safe
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK = 0


def _timeline_human(result: dict[str, Any]) -> str:
    lines = []
    for item in result["items"]:
        if "source" in item:
            lines.append(
                f"{_safe(item['value']):<26} {_safe(item['source']['title'])} — {item['claims']} claims"
                f"{': ' + _safe(' '.join((item['summary'] or '').split())[:100]) if item['summary'] else ''}"
            )
        else:
            shown = _safe(item.get("local") or item["value"])
            lines.append(
                f"{shown:<26} {_safe(item['type'] or item['kind']):<12} "
                f"{_safe(item.get('title') or item['path'])}"
            )
    return "\n".join(lines) or "(nothing dated)"


def cmd_timeline(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.timeline(
        entity=args.entity,
        kind=args.kind,
        time_field=args.time_field,
        since=args.since,
        until=args.until,
        order=args.order,
        eligibility=args.eligibility,
        include_sources=args.include_sources,
        group=args.group,
        scope=args.scope,
        limit=args.limit,
        offset=args.offset,
        tz=args.tz,
        notes=True,
    )
    _emit(args, result, lambda: _timeline_human(result))
    return EXIT_OK


def cmd_chronicle(vault: Vault, args: argparse.Namespace) -> int:
    if args.chronicle == "day":
        result = vault.chronicle_day(args.date, tz=args.tz, week=args.week, scope=args.scope, notes=True)
    elif args.chronicle == "since":
        result = vault.chronicle_since(args.date, scope=args.scope, notes=True)
    else:
        result = vault.last_seen(args.entity, on_or_before=args.on_or_before, scope=args.scope)
    _emit(args, result, lambda: _timeline_human(result))
    return EXIT_OK


def register(command: Command, sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    p = command("timeline", "Dated records, for the vault or one entity.", cmd_timeline)
    p.add_argument("--entity", help="entity (page) id")
    p.add_argument("--kind", help="exact record type, such as decision, event or meeting")
    p.add_argument("--time-field", choices=TIME_FIELDS, default="occurred_at")
    p.add_argument("--since", type=argtypes.when)
    p.add_argument("--until", type=argtypes.when)
    p.add_argument("--order", choices=("asc", "desc"), default="asc")
    p.add_argument("--eligibility", choices=("current", "include_inactive"), default="current")
    p.add_argument("--include-sources", action="store_true")
    p.add_argument("--group", choices=("source",))
    p.add_argument("--scope")
    p.add_argument("--tz", help="IANA time zone for displayed times")
    p.add_argument("--limit", type=argtypes.limit(500), default=50)
    p.add_argument("--offset", type=argtypes.offset, default=0)
    chronicle = sub.add_parser("chronicle", help="Day, since and last-seen views.")
    chron = chronicle.add_subparsers(dest="chronicle", required=True, parser_class=parser_class)
    for name, helptext in (
        ("day", "One day, or its Monday–Sunday week."),
        ("since", "Occurrences from a date until now, oldest first."),
        ("last-seen", "The latest dated context for an entity."),
    ):
        c = chron.add_parser(name, help=helptext, description=helptext)
        c.add_argument("vault")
        if name == "last-seen":
            c.add_argument("entity")
            c.add_argument("--on-or-before", type=argtypes.when)
        else:
            c.add_argument("date", help="YYYY-MM-DD", type=argtypes.when)
        if name == "day":
            c.add_argument("--week", action="store_true")
            c.add_argument("--tz", default="UTC")
        c.add_argument("--scope")
        c.add_argument("--json", action="store_true")
        c.set_defaults(handler=cmd_chronicle)
