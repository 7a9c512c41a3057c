"""A vault with one extension (`diarist`) that may ask for every collection permission, for
the collection, document and search tests (grant what a test needs with `grant`)."""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session

PERMISSIONS = [
    f"collections.{action}:{target}"
    for action in ("read", "write")
    for target in ("diary", "keep", "user-selected")
] + ["collections.create", "changes.manage", "collections.bulk", "entities.read:person"]

DIARIST: dict[str, Any] = {
    "name": "diarist",
    "description": "Keeps a diary",
    "knowledge": {"permissions": PERMISSIONS, "reason": "Write your diary"},
}


def install(vault: Vault, name: str = "diarist") -> None:
    Extensions(vault.store, vault.root).install(validate_manifest({**DIARIST, "name": name}), "private")


def grant(vault: Vault, *permissions: str, name: str = "diarist") -> None:
    for permission in permissions:
        Extensions(vault.store, vault.root).grant(name, permission)


def revoke(vault: Vault, *permissions: str, name: str = "diarist") -> None:
    for permission in permissions:
        Extensions(vault.store, vault.root).revoke(name, permission)


def session(vault: Vault, name: str = "diarist", run_id: str | None = None) -> Session:
    return open_session(vault, name, run_id)
