"""Ontology projection: each partition's active ontology and what stopped it.

One row per partition in `ontology_state` (name, version, fingerprint,
chain, failure) plus the activation's findings in `diagnostics`, on the
manifest paths. Reconcile re-reads a partition's manifests only when one of
them changed; `fingerprints` is the read view that tells what the other
projections were derived with, so a change is judged against that, not
against a manifest that may already have been read again.
"""

from __future__ import annotations

import json
import sqlite3

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.changes import DIAGNOSTICS
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.ontology.compose import ACTIVE_FILE, Activation
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Update

flag: Flag = DIAGNOSTICS
FINDINGS = ("ontology-activation-failed", "ontology-manifest-invalid")


def index(tx: Tx, update: Update) -> bool:
    for scope, activation in update.activations.items():
        _write(tx, scope, activation)
    return bool(update.activations)


def fingerprint(activation: Activation | None) -> str | None:
    """What identifies an activation's outcome: the ontology's fingerprint, or its failure."""
    if activation is None:
        return None
    if activation.ontology is None:
        return "failed:" + (activation.failure.message if activation.failure else "")
    return activation.ontology.fingerprint


def fingerprints(conn: sqlite3.Connection | Tx) -> dict[str, str | None]:
    """Each partition's ontology as `fingerprint` gives it, as the projections were derived."""
    out: dict[str, str | None] = {}
    for scope, found, failure in conn.execute("SELECT scope, fingerprint, failure FROM ontology_state"):
        if found is not None:
            out[scope] = found
        else:
            out[scope] = "failed:" + (json.loads(failure).get("message", "") if failure else "")
    return out


def _write(tx: Tx, scope: str, activation: Activation) -> None:
    ontology = activation.ontology
    tx.execute(
        f"DELETE FROM diagnostics WHERE code IN ({','.join('?' * len(FINDINGS))})"
        " AND (path = ? OR path LIKE ?)",
        (*FINDINGS, f"{scope}/{ACTIVE_FILE}", f"{scope}/ontologies/%"),
    )
    found: list[dg.Diagnostic] = []
    failure = activation.failure
    if failure is not None:
        path = failure.path if not failure.path.startswith("<") else f"{scope}/{ACTIVE_FILE}"
        found.append(
            dg.make(
                "ontology-activation-failed",
                path,
                f"ontology not activated: {failure.message}",
                line=failure.line,
            )
        )
    for problem in activation.problems:
        if not problem.path.startswith("<"):
            found.append(
                dg.make("ontology-manifest-invalid", problem.path, problem.message, line=problem.line)
            )
    tx.executemany(
        "INSERT INTO diagnostics(path, code, severity, line, record_id, message) VALUES (?,?,?,?,?,?)",
        [(d.path, d.code, d.severity.value, d.line, d.record_id, d.message) for d in found],
    )
    tx.execute(
        "INSERT OR REPLACE INTO ontology_state(scope, name, version, fingerprint, chain,"
        " failure, sources) VALUES (?,?,?,?,?,?,?)",
        (
            scope,
            ontology.name if ontology else None,
            ontology.version if ontology else None,
            ontology.fingerprint if ontology else None,
            json.dumps(ontology.chain if ontology else []),
            json.dumps({"path": failure.path, "line": failure.line, "message": failure.message})
            if failure
            else None,
            "{}",
        ),
    )
