"""The `knowledge` parser, built from the registry, and `main`, which runs one command.

Only the module of the command named on the command line is imported (with the engine
parts it uses); every other command is a placeholder that knows its name and help, which
is all `knowledge --help` prints. `build_parser()` without arguments loads every module,
for the tests that walk the whole parser.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from knowledge_desktop.cli.registry import BY_NAME, COMMANDS

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK, EXIT_USAGE, EXIT_FINDINGS, EXIT_REJECTED, EXIT_WRITE_FAILED, EXIT_STATE = 0, 2, 3, 4, 5, 6


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, no usage dump
        sys.stderr.write(f"knowledge: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _register(module_name: str, sub: Any, command: Callable[..., argparse.ArgumentParser]) -> None:
    """Import `knowledge_desktop.cli.<module_name>` and call its `register`, passing the
    arguments it names: `command` (adds a vault command: positional VAULT, `--json`),
    `helpers` (the write commands' options and receipt), `sub` and `parser_class` (for a
    command that is not `knowledge NAME VAULT`)."""
    module = importlib.import_module(f"knowledge_desktop.cli.{module_name}")
    register = module.register
    wanted = register.__code__.co_varnames[: register.__code__.co_argcount]
    given: dict[str, Any] = {"command": command, "sub": sub, "parser_class": _Parser}
    if "helpers" in wanted:
        from knowledge_desktop.cli import write

        given["helpers"] = write.helpers()
    register(*(given[name] for name in wanted))


def build_parser(modules: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser with the commands of `modules` (names in `registry.COMMANDS`) complete and
    the others as placeholders; all complete when `modules` is None."""
    load = {c.module for c in COMMANDS} if modules is None else set(modules)
    parser = _Parser(prog="knowledge", description="Read and write a knowledge-record-v1 vault.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(
        name: str, helptext: str, handler: Callable[[Vault, argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = sub.add_parser(name, help=helptext, description=helptext)
        p.add_argument("vault", help="the vault folder")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(handler=handler)
        return p

    registered: set[str] = set()
    for entry in COMMANDS:
        if entry.module not in load:
            sub.add_parser(entry.name, help=entry.help)
        elif entry.module not in registered:
            registered.add(entry.module)
            _register(entry.module, sub, command)
    return parser


def _named_module(argv: Sequence[str]) -> list[str]:
    """The module of the command `argv` names (its first word that is not an option), if any."""
    first = next((word for word in argv if not word.startswith("-")), None)
    entry = BY_NAME.get(first) if first is not None else None
    return [entry.module] if entry is not None else []


def _tell_repairs(vault: Vault) -> None:
    """One line on stderr for each damaged state.sqlite this run set aside and rebuilt, with
    its diagnostic (`state-repaired` or `state-damaged`), so a script sees it though the
    command answered (exit 0)."""
    from knowledge_desktop.engine.vault_state import incident_finding
    from knowledge_desktop.engine.visible_text import one_line

    for incident in vault.repairs:
        d = incident_finding(incident)
        sys.stderr.write(f"knowledge: {d.code}: {one_line(d.message)}\n")


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_named_module(words)).parse_args(words)
    # The engine is imported once the command line is known to be good.
    from knowledge_desktop.engine.errors import KnownError, StateError, VaultGone
    from knowledge_desktop.engine.vault import Vault
    from knowledge_desktop.engine.visible_text import json_text
    from knowledge_desktop.engine.visible_text import one_line as _safe
    from knowledge_desktop.engine.write.plan import WriteRejected
    from knowledge_desktop.engine.write.publish import WriteFailed

    try:
        standalone = getattr(args, "standalone", None)
        if standalone is not None:  # a command whose positional is not a vault (`entities`)
            code: int = standalone(args)
        else:
            with Vault.open(args.vault) as vault:
                if getattr(args, "verify", False):
                    vault.verify()
                vault.repairing(lambda: vault.reconcile(baseline=getattr(args, "baseline", False)))
                try:
                    code = vault.repairing(lambda: args.handler(vault, args))
                finally:
                    _tell_repairs(vault)
        return code
    except (WriteRejected, WriteFailed) as exc:
        if getattr(args, "json", False):
            sys.stdout.write(json_text(exc.as_json()) + "\n")
        else:
            sys.stderr.write(f"knowledge: {_safe(exc.code)}: {_safe(exc.message)}\n")
        return EXIT_REJECTED if isinstance(exc, WriteRejected) else EXIT_WRITE_FAILED
    except (StateError, VaultGone) as exc:
        sys.stderr.write(f"knowledge: {_safe(exc)}\n")
        return EXIT_STATE
    except KnownError as exc:
        sys.stderr.write(f"knowledge: {_safe(exc)}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # the environment's: a folder that cannot be listed, a full disk
        where = f" ({_safe(exc.filename)})" if exc.filename else ""
        sys.stderr.write(f"knowledge: {_safe(exc.strerror or exc)}{where}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
