"""A run read in chunks reads pages, then claims, then relationships (`reconcile._read_order`):
a claim's entities and a relationship's ends are then mostly read already, so a later chunk
rarely answers an earlier record's link and makes it derive again (issue 26 §3)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from knowledge_desktop.engine import reconcile
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.vault import Vault
from tests import faultkit as fk

RECORDS = 400
CHUNK = 100


def _layer(path: str) -> int:
    folder = path.split("/")[1]
    return {"claims": 1, "relationships": 2}.get(folder, 0)


def test_chunks_read_pages_then_claims_then_relationships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    fk.make_vault(root, RECORDS, seed=3, body_max=300)
    monkeypatch.setattr(reconcile, "CHUNK", CHUNK)
    chunks: list[list[str]] = []
    derived: list[int] = []
    apply = VaultGraph.apply

    def recorded(self: VaultGraph, parsed: dict[str, object], *args: object) -> set[str]:
        chunks.append(sorted(parsed))
        out = apply(self, parsed, *args)  # type: ignore[arg-type]
        derived.append(len(out))
        return out

    monkeypatch.setattr(VaultGraph, "apply", recorded)
    vault = Vault.open(root)
    try:
        vault.reconcile()
    finally:
        vault.close()
    assert len(chunks) > 3
    layers = [_layer(p) for chunk in chunks for p in chunk if p.endswith(".md")]
    # Within a chunk the paths are sorted here, so compare each chunk's layers with the next's.
    bounds = [(min(map(_layer, c)), max(map(_layer, c))) for c in chunks if c]
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(bounds)), bounds
    assert set(layers) == {0, 1, 2}
    # Every record derived once, and pages linking pages of a later chunk once more at most.
    assert sum(derived) < 1.5 * len(layers)
