"""Receipts: what a published request returns, stored so a retry returns it again.

Spec (corrections-and-merges, Recovery and safeguards): repeating the exact
request and payload after a lost response returns the first receipt and
writes nothing; a changed payload under the same request id is rejected.
The payload is compared by the SHA-256 of its canonical JSON.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.write.journal import Entry, JournalFile
from knowledge_desktop.engine.write.plan import Request

GIT_PENDING = {"state": "pending", "reason": "not committed yet"}
"""`git` of a receipt as stored with its publication; `Publisher` sets it once the
checkpoint is committed or has failed (`checkpoints.py`)."""


def payload_sha256(request: Request) -> str:
    """What identifies a request's payload: its operation, arguments and vault fence."""
    canonical = json.dumps(
        {
            "operation": request.operation,
            "payload": request.payload,
            "expectedVaultId": request.expected_vault_id,
            "expectedOntologyFingerprint": request.expected_ontology_fingerprint,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def build(entry: Entry, files: list[JournalFile], indexed: bool) -> dict[str, Any]:
    """The receipt of a published entry (shape: docs/writing.md, "Receipts")."""
    plan = entry.plan
    receipt: dict[str, Any] = {
        "requestId": entry.request_id,
        "operation": entry.operation,
        "targetId": entry.target_id,
    }
    if plan.get("replacementId") is not None:
        receipt["replacementId"] = plan["replacementId"]
    receipt.update(
        {
            "reason": plan.get("reason"),
            "items": [
                {"id": f.record_id, "revision": f.revision, "hash": f.new_sha256, "path": f.path}
                for f in files
            ],
            "impact": {"items": plan.get("impact", [])},
            "indexed": indexed,
            "git": dict(GIT_PENDING),
            "journalId": entry.seq,
            "at": plan.get("at", entry.created_at),
        }
    )
    for key, value in plan.get("extra", {}).items():
        receipt.setdefault(key, value)
    return receipt


def store(tx: Tx, request_id: str, payload_sha: str, receipt: dict[str, Any], now: str) -> None:
    tx.execute(
        "INSERT OR REPLACE INTO receipts(request_id, payload_sha256, receipt, created_at) VALUES (?,?,?,?)",
        (request_id, payload_sha, json.dumps(receipt, ensure_ascii=False), now),
    )


def find(conn: sqlite3.Connection | Tx, request_id: str) -> tuple[str, dict[str, Any]] | None:
    """(payload sha256, receipt) of a published request."""
    row = conn.execute(
        "SELECT payload_sha256, receipt FROM receipts WHERE request_id=?", (request_id,)
    ).fetchone()
    if row is None:
        return None
    receipt: dict[str, Any] = json.loads(row[1])
    return str(row[0]), receipt
