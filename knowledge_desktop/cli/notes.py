"""`knowledge notes`: the plain Markdown notes of a vault (issue 25 §6).

    knowledge notes VAULT [--folder F] [--tag T] [--limit N] [--offset N] [--json]
        # {"items": [{path, title, aliases, tags, links, backlinks, date, hash}], "total": N}

A notes vault (Obsidian, Logseq, Foam, plain folders) is read as it is: each
Markdown file that is not a record is a note (`engine/records/notes.py`).
Human output is one line per note: its path, its title when the file name does
not already say it, its date and tags, and its link counts. `--folder` keeps
the notes inside a folder (any depth; `/` for the vault root), `--tag` those
with a tag or a tag nested under it. Exit 0; 2 for a usage error.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from knowledge_desktop.cli import argtypes as cli_args
from knowledge_desktop.engine.records.notes import stem
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import json_text, one_line

Command = Callable[[str, str, Callable[[Vault, argparse.Namespace], int]], argparse.ArgumentParser]

MAX_LIMIT = 100_000
"""The most notes one call lists (a vault of 6,500 notes fits in one page)."""


def register(command: Command) -> None:
    """Add `notes` to the `knowledge` subcommands (through cli.py's vault-opening helper)."""
    p = command("notes", "List the plain Markdown notes (Obsidian, Logseq, Foam …).", cmd_notes)
    p.add_argument("--folder", metavar="F", help="only notes inside this folder (/ for the vault root)")
    p.add_argument("--tag", metavar="T", help="only notes with this tag (or one nested under it)")
    p.add_argument("--limit", type=cli_args.limit(MAX_LIMIT), default=None, help="at most N notes")
    p.add_argument("--offset", type=cli_args.offset, default=0, help="skip the first N notes")


def cmd_notes(vault: Vault, args: argparse.Namespace) -> int:
    found = vault.notes(args.folder, args.tag, args.limit, args.offset)
    if args.json:
        print(json_text(found, indent=2))
        return 0
    for item in found["items"]:
        print(_line(item))
    shown = len(found["items"])
    more = f" (showing {shown} from {args.offset + 1})" if shown < found["total"] else ""
    print(f"{found['total']:,} notes{more}")
    return 0


def _line(item: dict[str, Any]) -> str:
    parts = [one_line(item["path"])]
    if item["title"] != stem(item["path"]):
        parts.append(f"“{one_line(item['title'])}”")
    if item["date"]:
        parts.append(item["date"])
    if item["tags"]:
        parts.append(" ".join("#" + one_line(t) for t in item["tags"]))
    parts.append(f"{item['links']} links, {item['backlinks']} backlinks")
    return "  ".join(parts)
