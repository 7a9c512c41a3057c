"""`knowledge mcp VAULT --extension NAME [--run RUN_ID]`: serve the knowledge API to an MCP
client over stdin/stdout, as the installed extension NAME (issue 16 §3; docs/mcp.md).

The client starts this command itself (see docs/mcp.md for Claude Desktop, VS Code, Claude
Code and Cursor). Stdout carries the protocol only; an extension that is not installed, or a
vault that cannot be opened, is a one-line error on stderr and exit 2 before anything is
served (`dispatch.py` reports it).
"""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add `mcp VAULT --extension NAME` to the `knowledge` subcommands."""
    helptext = "Serve the knowledge API over MCP (stdio) as one installed extension, under its grants."
    p = sub.add_parser("mcp", help=helptext, description=helptext)
    p.add_argument("vault", help="the vault folder")
    p.add_argument("--extension", required=True, metavar="NAME", help="the installed extension to act as")
    p.add_argument(
        "--run", metavar="RUN_ID", help="the run id writes are journaled under (default: a new one)"
    )
    p.set_defaults(standalone=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    # Imported here: the SDK and its web stack are only loaded by this command.
    from knowledge_desktop import mcp_server

    mcp_server.serve(args.vault, args.extension, args.run)
    return 0
