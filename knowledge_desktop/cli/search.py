"""`knowledge search`: search by words, by meaning, or both (issue 27).

    knowledge search VAULT QUERY [--mode hybrid|semantic|keyword] [--kind K] [--type T]
                     [--limit N] [--json]
    # {"mode": "...", "results": [{"id", "kind", "type", "title", "path", "score",
    #                              "keywordRank", "semanticRank", "snippet"}]}

Hybrid (the default) fuses the keyword ranking and the nearest passages by meaning
(`engine/query/hybrid.py`); `keywordRank` and `semanticRank` say where each result
stood in each half (null when it was not in it). Notes (issue 25) are searched too,
`--kind note` alone: `kind` "note", `id` and `type` null, ranked among notes and
merged by score with the records (`query/hybrid.search`). `knowledge grep` stays keyword only,
as the retrieval spec asks of it. Exit 0; 2 for a usage error or a bad query.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from knowledge_desktop.cli import argtypes as cli_args
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import json_text, one_line

Command = Callable[[str, str, Callable[[Vault, argparse.Namespace], int]], argparse.ArgumentParser]


def register(command: Command) -> None:
    """Add `search` to the `knowledge` subcommands (through cli.py's vault-opening helper)."""
    p = command("search", "Search by words and meaning (hybrid by default).", cmd_search)
    p.add_argument("query")
    p.add_argument("--mode", choices=("hybrid", "semantic", "keyword"), default="hybrid")
    p.add_argument("--kind", choices=("page", "claim", "relationship", "note"))
    p.add_argument("--type", help="ontology type; aliases expand")
    p.add_argument("--limit", type=cli_args.limit(50), default=10)


def cmd_search(vault: Vault, args: argparse.Namespace) -> int:
    q = GrepQuery(
        args.query,
        kind=args.kind,
        types=frozenset([args.type]) if args.type else None,
        limit=args.limit,
    )
    result = vault.search(q, args.mode, notes=True)
    if args.json:
        print(json_text(result))
        return 0
    for hit in result["results"]:
        ranks = f"k{hit['keywordRank'] or '-'} s{hit['semanticRank'] or '-'}"
        kind = hit["type"] or hit["kind"]
        print(f"{hit['score']:>9.4f}  {ranks:<8} {one_line(str(hit['title']))}  [{kind}]  {hit['path']}")
        snippet = (hit["snippet"] or {}).get("text") or ""
        print(f"           {one_line(' '.join(snippet.split())[:160])}")
    print(f"{len(result['results'])} results ({result['mode']})")
    return 0
