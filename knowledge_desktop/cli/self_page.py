"""`knowledge self`: which person page is "you", the `self` of the knowledge API (issue 24 item 8).

    knowledge self VAULT [--partition P] [--json]             # {"self": {id, title, path, partition} | null,
                                                              #  "partition"}
    knowledge self VAULT --set ID [--partition P] [--json]    # {"self", "changed", "movedFrom", "receipt"}
    knowledge self VAULT --create NAME [--partition P] [--json]

A fresh vault has no page marked as you, and every extension that reads or
writes facts about `self` fails until it has one; this command (or Settings ›
Knowledge › You) is how a person says who they are, without an editor. `--set`
adds the alias `knowledge:self` to a person page and takes it off the page that
had it, in one fenced, journaled request (`engine/vault_self.py`); `--create`
makes a new person page carrying it. Setting the page that already is you
writes nothing (`"changed": false`). The partition is `--partition`, else the
page's own (`--set`), else `private` or the vault's only one.
Exit 0; 2 for a usage error or an id the vault does not have; 4 when the page
is not an active person page (`not-a-person`, `not-active`) or a fence refused
the write (`dispatch.py` prints `{"error": ...}` with `--json`).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_self import (
    PersonPage,
    create_self,
    current_self,
    default_partition,
    set_self,
)
from knowledge_desktop.engine.visible_text import json_text, one_line

Command = Callable[[str, str, Callable[[Vault, argparse.Namespace], int]], argparse.ArgumentParser]


def register(command: Command) -> None:
    """Add `self` to the `knowledge` subcommands (through dispatch.py's vault-opening helper)."""
    p = command("self", 'Show or choose the person page that is "you" to extensions.', cmd_self)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--set", metavar="ID", help="make this person page you (the alias moves to it)")
    which.add_argument("--create", metavar="NAME", help="create a person page titled NAME that is you")
    p.add_argument(
        "--partition",
        help="the partition (default: the page's own, else private or the only one)",
    )


def cmd_self(vault: Vault, args: argparse.Namespace) -> int:
    if args.set is not None or args.create is not None:
        if vault.read_only:
            raise QueryError("the vault is read-only here: no page can be marked as you")
        if args.set is not None:
            done = set_self(vault, args.partition, args.set)
        else:
            done = create_self(vault, args.partition or default_partition(vault.root), args.create)
        if args.json:
            _print(done.as_json())
        else:
            what = "is already you; nothing written" if done.receipt is None else "is now you"
            print(f"{_line(done.page)} {what}")
            if done.moved_from:
                print(f"  no longer you: {', '.join(one_line(i) for i in done.moved_from)}")
        return 0
    scope = args.partition or default_partition(vault.root)
    page = current_self(vault, scope)
    if args.json:
        _print({"self": page.as_json() if page is not None else None, "partition": scope})
    elif page is None:
        vault_arg = shlex.quote(str(args.vault))
        print(
            f"no page in partition {one_line(scope)!r} is marked as you; "
            "extensions cannot speak about you yet."
        )
        print(f"  pick a person page:  knowledge self {vault_arg} --set ID")
        print(f"  or create one:       knowledge self {vault_arg} --create NAME")
    else:
        print(_line(page))
    return 0


def _line(page: PersonPage) -> str:
    return f"{one_line(page.title)}  {one_line(page.id)}  {one_line(page.path)}"


def _print(value: Any) -> None:
    print(json_text(value, indent=2))
