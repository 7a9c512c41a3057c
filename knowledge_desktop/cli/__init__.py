"""`knowledge`: the engine from a terminal, with JSON output for scripts and CI.

Every command opens the vault, reconciles it (so answers reflect the files
as they are now), and prints either a short human summary or, with
`--json`, the documented JSON shape. Exit codes: 0 ok, 2 usage error or not
a vault (one line on stderr, no traceback), 3 when `diagnostics --fail-on`
finds something at or above the given severity, 4 when a write is rejected
by a fence or a rule (`{"error": {"code", "message", "current"}}` on stdout
with `--json`; nothing was written), 5 when a write failed part-way on the
disk or the database (the journal says what stays; `knowledge resume`), 6
when the vault's state cannot be used (`state.sqlite` locked by another
program, the disk full, the vault folder or `.knowledge/` gone while running;
one line, no traceback). A damaged `state.sqlite` met while a command runs is
set aside and rebuilt, and the command answers (exit 0) with a
`state-repaired` or `state-damaged` line on stderr (docs/decisions.md). The
write commands and their receipts are documented in docs/writing.md.

The package: one module per command group, loaded lazily so that a command
imports only what it uses (`knowledge --help` imports no command module at
all, hence no engine, numpy, pydantic, pygit2 or MCP SDK; issue 26).

    registry.py   every command's name, help line and module: all `--help` reads
    dispatch.py   builds the parser from the registry and runs the command
    argtypes.py   argument types shared by the commands (numbers, dates)
    read.py, diagnostics.py, grep.py, timeline.py, write.py, lifecycle.py, adopt.py,
    history.py, versions.py, changes.py, entities.py, extensions.py, mcp.py,
    self_page.py, notes.py, search.py  the command groups

Adding a command group `knowledge_desktop/cli/notes.py`:

1. The module defines `register(...)`, naming as its parameters what it needs:
   `command` (`command(name, help, handler)` adds a vault command with its
   positional VAULT and `--json`, and returns its parser; `handler(vault, args)`
   returns the exit code), `helpers` (the write commands' options, fence type,
   receipt printer and file reader: `lifecycle.WriteHelpers`), and `sub` with
   `parser_class` for a command whose positional is not a vault (it sets
   `standalone=handler(args)` as its default, see `entities.py`).
2. One line per command in `registry.COMMANDS`, where `knowledge --help` lists it:
   `Command("notes", "<the same help line the module gives>", "notes"),`

Nothing else: the module is imported only when its command runs, so it may
import the engine at its top. tests/test_cli_registry.py checks that every
registered command exists with the same help, and the bundle collects the whole
package (packaging/knowledge-desktop.spec).
"""

from knowledge_desktop.cli.dispatch import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_STATE,
    EXIT_USAGE,
    EXIT_WRITE_FAILED,
    build_parser,
    main,
)

__all__ = [
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_STATE",
    "EXIT_USAGE",
    "EXIT_WRITE_FAILED",
    "build_parser",
    "main",
]
