"""The graph stores a pattern that recurs across records once (issue 26: the window's
memory at 100k records): each record's watched-key kinds (`Derived.watched_kinds`, one
letter per watched key) repeat across records, 849 patterns among 100,000 records in the
generated vault, and held one copy per record (6 MiB)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), root, ignore=shutil.ignore_patterns(".knowledge"))
    return root


def copies(graph: VaultGraph) -> int:
    """How many more string objects the records' kind patterns use than distinct patterns."""
    kinds = [d.watched_kinds for d in graph.derived.values() if len(d.watched_kinds) > 1]
    assert len(set(kinds)) < len(kinds)  # some pattern recurs (else the check proves nothing)
    return len({id(k) for k in kinds}) - len(set(kinds))


def test_a_derived_graph_holds_each_pattern_once(demo: Path) -> None:
    with Vault.open(demo) as vault:
        vault.reconcile()
        assert copies(vault.reconciler.graph()) == 0


def test_a_restored_graph_holds_each_pattern_once(demo: Path) -> None:
    with Vault.open(demo) as vault:
        vault.reconcile()
    with Vault.open(demo) as vault:  # reopened: the graph comes from the stored snapshot
        vault.reconcile()
        graph = vault.reconciler.graph()
        assert copies(graph) == 0
