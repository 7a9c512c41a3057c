"""A reopened vault restores its graph from the stored snapshot (graph/snapshot.py):
the same graph a derivation from the parse cache gives, without deriving."""

from __future__ import annotations

import hashlib
import shutil
import threading
from functools import partial
from pathlib import Path

import pytest

from knowledge_desktop.engine.graph import snapshot
from knowledge_desktop.engine.graph.node import DetailSource
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.reading import probe_evidence
from knowledge_desktop.engine.reconcile import Reconciler
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), root, ignore=shutil.ignore_patterns(".knowledge"))
    with Vault.open(root) as vault:
        vault.reconcile()
    return root


def state(graph: VaultGraph) -> dict[str, str]:
    return {path: snapshot.encode(node, graph.derived[path]) for path, node in graph.nodes.items()}


def indexes(graph: VaultGraph) -> tuple[object, ...]:
    return (graph.ids._groups, graph.names._groups, graph.watchers._groups, graph.dependents._groups)


def derived_afresh(reconciler: Reconciler) -> VaultGraph:
    graph = VaultGraph()
    graph.probe = partial(probe_evidence, reconciler.root)
    graph.details = DetailSource(reconciler._stored_nodes)
    graph.ontologies = reconciler.ontologies()
    return reconciler._derive_graph(graph)


def sorted_members(groups: object) -> object:
    """Index entries compared as sets: members are a string, a tuple or a set."""
    assert isinstance(groups, dict)
    return {
        group: {value: sorted([m] if isinstance(m, str) else m) for value, m in entries.items()}
        for group, entries in groups.items()
    }


def test_the_restored_graph_is_the_derived_one(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Vault.open(demo) as vault:
        fresh = derived_afresh(vault.reconciler)
    with Vault.open(demo) as vault:
        monkeypatch.setattr(Reconciler, "_derive_graph", _not_called)
        restored = vault.reconciler.graph()
    assert len(restored.nodes) == len(fresh.nodes) > 70
    assert state(restored) == state(fresh)
    assert [sorted_members(a) for a in indexes(restored)] == [sorted_members(b) for b in indexes(fresh)]
    assert all(not n.holds_detail for n in restored.nodes.values())
    assert all(not d.complete for d in restored.derived.values())


def test_an_edit_after_restoring_matches_a_fresh_scan(demo: Path) -> None:
    target = demo / "private" / "companies" / "verdant-survey-co.md"
    with Vault.open(demo) as vault:
        vault.reconciler.graph()  # restored
        target.write_text(target.read_text("utf-8").replace("Verdant Survey Co.", "Verdant Surveys"), "utf-8")
        change = vault.reconcile(["private/companies/verdant-survey-co.md"], "watcher")
        assert "catalog" in change.touched
        edited = state(vault.reconciler.graph())
    shutil.rmtree(demo / ".knowledge")
    with Vault.open(demo) as vault:
        vault.reconcile()
        assert state(derived_afresh(vault.reconciler)) == edited


def test_a_snapshot_that_misses_a_file_is_not_trusted(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Vault.open(demo) as vault, vault.store.write() as tx:
        tx.execute("DELETE FROM graph_snapshot_v1 WHERE path = (SELECT min(path) FROM graph_snapshot_v1)")
    derived: list[int] = []
    original = Reconciler._derive_graph

    def counting(self: Reconciler, graph: VaultGraph) -> VaultGraph:
        derived.append(1)
        return original(self, graph)

    monkeypatch.setattr(Reconciler, "_derive_graph", counting)
    with Vault.open(demo) as vault:
        graph = vault.reconciler.graph()
        assert derived == [1]
        assert state(graph) == state(derived_afresh(vault.reconciler))


def _not_called(self: Reconciler, graph: VaultGraph) -> VaultGraph:
    raise AssertionError("the graph was derived, not restored")


def test_a_warm_up_beside_a_reconcile_loads_the_graph_once(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[int] = []
    entered, release = threading.Event(), threading.Event()
    original = Reconciler._load_graph

    def slow_load(self: Reconciler) -> VaultGraph:
        loads.append(1)
        entered.set()
        release.wait(10)
        return original(self)

    monkeypatch.setattr(Reconciler, "_load_graph", slow_load)
    target = demo / "private" / "companies" / "verdant-survey-co.md"
    with Vault.open(demo) as vault:
        warm = threading.Thread(target=vault.warm_up)
        warm.start()
        assert entered.wait(10)
        target.write_text(target.read_text("utf-8") + "\nOne more line.\n", "utf-8")
        edit = threading.Thread(target=vault.reconcile, args=(["private/companies/verdant-survey-co.md"],))
        edit.start()  # needs the graph: waits for the warm-up's load, starts none of its own
        release.set()
        warm.join(10)
        edit.join(10)
        assert loads == [1]
        assert (
            vault.find("private/companies/verdant-survey-co.md")[0]["sha256"]
            == hashlib.sha256(target.read_bytes()).hexdigest()
        )


def test_long_snapshot_rows_stay_on_their_pages(demo: Path) -> None:
    """A row over ~1,000 bytes spilled to an overflow page in the WITHOUT ROWID table, which
    left half of its pages unused at 10k records (issue 26: the state's size)."""
    links = "\n".join(f"- [[A page nobody wrote yet, number {n}]]" for n in range(40))
    (demo / "private" / "notes" / "many-links.md").write_text(f"# Many links\n\n{links}\n", "utf-8")
    with Vault.open(demo) as vault:
        vault.reconcile()
        conn = vault.store.reader()
        (longest,) = conn.execute("SELECT max(length(state)) FROM graph_snapshot_v1").fetchone()
        overflow = conn.execute(
            "SELECT count(*) FROM dbstat WHERE name='graph_snapshot_v1' AND pagetype='overflow'"
        ).fetchone()
    assert longest > 1500
    assert overflow == (0,)
