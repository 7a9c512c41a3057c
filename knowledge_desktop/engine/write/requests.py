"""Building a `Request`: a request id when the caller gives none, the OS user as the actor."""

from __future__ import annotations

import getpass
from typing import Any

from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.plan import Request


def default_actor() -> str:
    """Who saves when nobody says (`--actor`): the OS user."""
    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError):
        return "unknown"


def make_request(
    operation: str,
    payload: dict[str, Any],
    *,
    request_id: str | None = None,
    actor: str | None = None,
    expected_vault_id: str | None = None,
    expected_ontology_fingerprint: str | None = None,
    run_id: str | None = None,
) -> Request:
    return Request(
        request_id or new_id("request"),
        operation,
        payload,
        actor or default_actor(),
        expected_vault_id,
        expected_ontology_fingerprint,
        run_id,
    )
