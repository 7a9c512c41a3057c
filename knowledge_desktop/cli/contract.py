"""What a command group's `register(...)` is given (see the package docstring).

Kept apart from the groups and free of the engine (the vault is named for type checking
only), so that a group imports its siblings' vocabulary without importing their work.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

Handler = Callable[["Vault", argparse.Namespace], int]
"""A vault command: runs on the opened, reconciled vault; returns the exit code."""
Command = Callable[[str, str, Handler], argparse.ArgumentParser]
"""`command(name, help, handler)`: adds `knowledge NAME VAULT [--json]` and returns its parser."""


@dataclass(frozen=True, slots=True)
class WriteHelpers:
    """What write.py lends the other write commands: argument types and options, and how a
    receipt is printed."""

    fence: Callable[[str], str]
    """argparse type of a fence argument (a malformed one is a usage error)."""
    write_options: Callable[..., None]
    """Adds --request-id, --actor, --vault-id (and --ontology-fingerprint with assertion=True)."""
    request_options: Callable[[argparse.Namespace], dict[str, Any]]
    receipt: Callable[[argparse.Namespace, dict[str, Any]], int]
    read: Callable[[str], str]
    """The text of a file argument (`-`: stdin)."""
