"""`knowledge entities`: decisions, concepts and changes of a documentation repository (issue 17).

    knowledge entities REPO [--max-commits N] [--since-tag TAG] [--vault VAULT] [--no-symbols] --json
    knowledge symbols REPO --json

Prints the `KnowledgeEntitiesV1` document (spec: knowledge-entities-extraction.md;
docs/extraction.md); without `--json`, a short summary with each coverage
area's status. With `--vault`, that vault's current claims are the memory
candidates of `memoryRelations`. `symbols` prints the discovery snapshot the
entities link to (code modules and the names they export, issue 31). The commands' positional is a repository,
not a vault, so it is added beside the vault commands rather than through
their `command(...)` helper. Exit 0, or 2 for a usage error, a folder that
cannot be read, or more than 10,000 memory relations (never cut short).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction import ExtractOptions, extract, to_json
from knowledge_desktop.engine.extraction.bounds import DEFAULT_MAX_COMMITS
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_claims import vault_claims
from knowledge_desktop.engine.vault_state import STATE_DIR
from knowledge_desktop.engine.visible_text import json_escaped


def register(sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add `entities` to the `knowledge` subcommands; it runs without opening a vault first."""
    helptext = "Decisions, concepts and changes of a documentation repository, with evidence."
    p = sub.add_parser("entities", help=helptext, description=helptext)
    p.add_argument("repo", metavar="REPO", help="the repository folder")
    p.add_argument(
        "--max-commits",
        type=int,
        default=DEFAULT_MAX_COMMITS,
        help=f"first-parent commits read from HEAD, 1-200 (default {DEFAULT_MAX_COMMITS})",
    )
    p.add_argument("--since-tag", metavar="TAG", help="stop at this local tag, an ancestor of HEAD")
    p.add_argument("--vault", metavar="VAULT", help="link this vault's current claims (memoryRelations)")
    p.add_argument(
        "--no-symbols",
        action="store_true",
        help="do not read code (no defines-symbol or affected-fact links)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(standalone=cmd_entities)
    helptext = "Code modules of a repository and the names they export (the discovery snapshot)."
    p = sub.add_parser("symbols", help=helptext, description=helptext)
    p.add_argument("repo", metavar="REPO", help="the repository folder")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(standalone=cmd_symbols)


def cmd_symbols(args: argparse.Namespace) -> int:
    from knowledge_desktop.engine.extraction.symbols.discovery import discover_symbols

    root = Path(args.repo)
    if not root.is_dir():
        raise QueryError(f"{root} is not a folder")
    snapshot = discover_symbols(root).as_json()
    if args.json:
        print(json_escaped(to_json(snapshot)), end="")
        return 0
    for module in snapshot["facts"]:
        names = ", ".join(s["name"] for s in module["symbols"])
        print(f"{module['path']}  ({module['language']}){': ' + names if names else ''}")
    cov = snapshot["coverage"]
    codes = sorted({r["code"] for r in cov["reasons"]})
    why = f" ({', '.join(codes)})" if codes else ""
    print(f"{cov['modules']} modules, {cov['symbols']} symbols; coverage {cov['status']}{why}")
    return 0


def cmd_entities(args: argparse.Namespace) -> int:
    memory = None
    if args.vault is not None:
        # Only a vault the app already keeps: a read of the claims must not make a
        # `.knowledge/` in whatever folder was named.
        if not (Path(args.vault) / STATE_DIR / "manifest.json").is_file():
            raise QueryError(
                f"--vault {args.vault}: not a vault the app keeps (no .knowledge/manifest.json);"
                " open it in the app or run `knowledge scan` on it first"
            )
        with Vault.open(args.vault) as vault:
            vault.reconcile()
            memory = vault_claims(vault)
    options = ExtractOptions(
        max_commits=args.max_commits, since_tag=args.since_tag, symbols=not args.no_symbols
    )
    document = extract(Path(args.repo), options, memory)
    if args.json:
        print(json_escaped(to_json(document)), end="")
        return 0
    print(summary(document))
    return 0


def summary(document: dict[str, Any]) -> str:
    counts = {"decision": 0, "concept": 0, "change": 0}
    for e in document["entities"]:
        counts[e["kind"]] += 1
    lines = [
        f"{counts['decision']} decisions, {counts['concept']} concepts, {counts['change']} changes,"
        f" {len(document.get('memoryRelations', []))} memory relations"
    ]
    for area, entry in document["coverage"].items():
        codes = sorted({r["code"] for r in entry["reasons"]})
        why = f" ({', '.join(codes)})" if codes else ""
        lines.append(f"  {area:<10} {entry['status']}{why}")
    return "\n".join(lines)
