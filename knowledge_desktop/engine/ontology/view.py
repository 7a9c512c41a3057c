"""The ontology of a partition as plain data, for the CLI and the window."""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.ontology.compose import Activation


def ontology_view(scope: str, activation: Activation) -> dict[str, Any]:
    ontology = activation.ontology
    failure = activation.failure
    return {
        "scope": scope,
        "active": ontology is not None,
        "name": ontology.name if ontology else None,
        "version": ontology.version if ontology else None,
        "fingerprint": ontology.fingerprint if ontology else None,
        "chain": [{"name": n, "path": p} for n, p in ontology.chain] if ontology else [],
        "borrowed": [
            {"by": by, "from": donor, "definitions": names}
            for by, donor, names in (ontology.borrowed if ontology else [])
        ],
        "definitions": [
            ontology.definitions[name].model_dump(mode="json", exclude_defaults=True)
            | {"kind": ontology.definitions[name].kind}
            for name in ontology.order
        ]
        if ontology
        else [],
        "aliasGroups": sorted(
            sorted(group) for group in {g for g in ontology.alias_groups.values() if len(g) > 1}
        )
        if ontology
        else [],
        "issues": (
            (
                [{"path": failure.path, "line": failure.line, "message": failure.message, "fatal": True}]
                if failure
                else []
            )
            + [
                {"path": p.path, "line": p.line, "message": p.message, "fatal": False}
                for p in activation.problems
            ]
        ),
    }
