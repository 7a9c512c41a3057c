"""Every `knowledge` command: its name, its one-line help and the module that implements it.

This table is all `knowledge --help` reads, so listing the commands imports no command
module (and so no engine, numpy, pydantic, pygit2 or MCP SDK). The module of a command is
imported only when that command is named on the command line (`dispatch.build_parser`).
The order here is the order of `knowledge --help`. A help text here must be the one the
module gives the command's own parser (tests/test_cli_registry.py checks both agree).
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    name: str
    help: str
    module: str
    """The module under knowledge_desktop/cli/ whose `register(...)` adds this command."""


COMMANDS: tuple[Command, ...] = (
    Command("scan", "Reconcile the vault and print counts.", "read"),
    Command("records", "List records (current ones by default).", "read"),
    Command("show", "Show one record by id or vault-relative path.", "read"),
    Command("diagnostics", "List or export diagnostics.", "diagnostics"),
    Command("grep", "Keyword search (all words must match by default).", "grep"),
    Command("lookup", "Exact lookup by id, title or alias.", "read"),
    Command("timeline", "Dated records, for the vault or one entity.", "timeline"),
    Command("chronicle", "Day, since and last-seen views.", "timeline"),
    Command("new", "Create a page, claim or relationship from a record file.", "write"),
    Command("save", "Replace a whole page file, fenced ID:REVISION:HASH.", "write"),
    Command("edit-body", "Replace only a page's body, fenced ID:REVISION:HASH.", "write"),
    Command("resume", "Finish or roll back an interrupted request; its receipt.", "write"),
    Command("journal", "The write journal, newest first, with receipts.", "write"),
    Command("correct", "Replace a claim or relationship with a corrected new record.", "lifecycle"),
    Command("withdraw", "Withdraw a page, claim or relationship.", "lifecycle"),
    Command("supersede", "Supersede earlier claims by an existing claim (--undo: restore).", "lifecycle"),
    Command("merge", "Merge a duplicate page into its survivor.", "lifecycle"),
    Command("unmerge", "Restore a merged page and take back what its merge added.", "lifecycle"),
    Command("annotate", "Link a claim to the pages it is about (its entities).", "lifecycle"),
    Command("adopt", "Turn the plain Markdown notes of the vault into page records.", "adopt"),
    Command("undo", "Undo an adopt run: put its files back as they were.", "adopt"),
    Command("checkpoints", "The checkpoint outbox and recent checkpoint commits.", "history"),
    Command("history", "A record's checkpointed versions, newest first.", "history"),
    Command("changes", "The knowledge API's changes, every actor's, newest first.", "changes"),
    Command("revert", "Undo a run's changes (newest first) or one change, as the person.", "changes"),
    Command(
        "entities",
        "Decisions, concepts and changes of a documentation repository, with evidence.",
        "entities",
    ),
    Command(
        "symbols",
        "Code modules of a repository and the names they export (the discovery snapshot).",
        "entities",
    ),
    Command(
        "extensions",
        "Installed extensions and their knowledge permissions (all off until granted).",
        "extensions",
    ),
    Command(
        "mcp",
        "Serve the knowledge API over MCP (stdio) as one installed extension, under its grants.",
        "mcp",
    ),
    Command("diff", "Unified diff of a record's file between two versions.", "versions"),
    Command("self", 'Show or choose the person page that is "you" to extensions.', "self_page"),
    Command("notes", "List the plain Markdown notes (Obsidian, Logseq, Foam …).", "notes"),
    Command("search", "Search by words and meaning (hybrid by default).", "search"),
    Command("ontology", "Show each partition's active ontology.", "read"),
)

BY_NAME = {c.name: c for c in COMMANDS}
