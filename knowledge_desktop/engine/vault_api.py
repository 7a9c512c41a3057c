"""The knowledge API's sessions opened on a `Vault` (issue 16).

`engine/api/` sits below `vault` and never reads it; this bridge above both
hands a session the vault's store, folder and one publish path, so the
Python facade, the CLI and the MCP server open extensions the same way.
"""

from __future__ import annotations

from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.vault import Vault


def open_session(vault: Vault, name: str, run_id: str | None = None) -> Session:
    """A session of the installed extension `name` on `vault`, in run `run_id` (a new run when
    None). `UnknownExtension` when no such extension is installed."""
    session = Session.open(vault.store, vault.root, vault.write, name, run_id)
    session.prepare_search = vault.index_keywords
    return session
