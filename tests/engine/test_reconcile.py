"""The one reconcile path: skipping unchanged files, incremental updates equal to a
full rebuild, the two table families of state.sqlite, and hostile files.
(ARCHITECTURE.md: state.sqlite, Data flow; spec: retrieval-and-dates, What is
rebuildable.)"""

from __future__ import annotations

import gc
import hashlib
import os
import random
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from knowledge_desktop.engine import reconcile as reconcile_module
from knowledge_desktop.engine.errors import NotAVault, VaultNotFound
from knowledge_desktop.engine.fs import walk as walk_module
from knowledge_desktop.engine.records import parse as parse_module
from knowledge_desktop.engine.store import db, schema
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.workers import WorkerPool
from tests import hostile_cases
from tests.vaultkit import VaultKit, snapshot


def drop_state(kit: VaultKit) -> None:
    """Delete the state database, as if the vault had never been opened."""
    for name in ("state.sqlite", "state.sqlite-wal", "state.sqlite-shm"):
        (kit.root / ".knowledge" / name).unlink(missing_ok=True)


def assert_equals_a_fresh_scan(kit: VaultKit, vault: Vault) -> None:
    """The projections `vault` holds are those a scan from nothing builds."""
    incremental = snapshot(vault)
    kit.close()
    drop_state(kit)
    assert snapshot(kit.scan()) == incremental


def reopened_with_one_edit(kit: VaultKit) -> Vault:
    """Scan, reopen and apply one new file: the graph is then the one loaded from
    the parse cache, as in a window opened on an indexed vault."""
    kit.scan()
    kit.close()
    vault = kit.open()
    kit.page("private/notes/new.md", "pg_new", "New", type="note")
    vault.reconcile(["private/notes/new.md"], "watcher")
    return vault


def small_vault(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["Ada"])
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person", body="Knows [[Ada]].\n")
    kit.page(
        "private/projects/engine.md",
        "pg_eng",
        "Engine",
        type="project",
        body="Led by [[people/ada|Ada]] with [Bob](../people/bob.md).\n",
    )
    kit.claim("private/claims/c1.md", "cl_1", "Ada leads", entities=["pg_ada", "pg_eng"])
    kit.relationship("private/relationships/r1.md", "rl_1", "pg_ada", "pg_eng", "leads")


def test_reopening_an_unchanged_vault_parses_nothing(kit: VaultKit) -> None:
    """Reconcile: unchanged stat means no read, no parse, no write."""
    small_vault(kit)
    first = kit.open().reconcile()
    assert first.parsed == 6 - 1  # five records... plus nothing else
    kit.close()
    again = kit.open().reconcile()
    assert (again.read, again.parsed) == (0, 0)
    assert again.empty


def test_a_touched_but_unchanged_file_is_read_not_parsed(kit: VaultKit) -> None:
    """Reconcile: a new mtime with the same bytes is settled by the hash alone."""
    small_vault(kit)
    vault = kit.scan()
    path = kit.root / "private/people/ada.md"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
    change = vault.reconcile()
    assert (change.read, change.parsed) == (1, 0)
    assert change.empty


def test_a_changed_title_updates_the_records_linking_to_it(kit: VaultKit) -> None:
    """Reconcile: dependents are recomputed — a renamed title breaks a link elsewhere."""
    small_vault(kit)
    vault = kit.scan()
    kit.page("private/people/ada.md", "pg_ada", "Augusta", type="person")
    change = vault.reconcile(["private/people/ada.md"], "watcher")
    assert change.changed == ["pg_ada", "pg_bob"]
    assert "link-missing" in kit.codes("private/people/bob.md")


def test_an_edit_of_pinned_evidence_is_caught_after_the_graph_is_restored(kit: VaultKit) -> None:
    """Evidence (ARCHITECTURE.md): a claim pinning a note's sha256 turns unverified when
    the note is edited outside, also in a vault reopened from its graph snapshot."""
    note = kit.write("private/notes/log.md", "Said on Monday.\n")
    pinned = hashlib.sha256(note.read_bytes()).hexdigest()
    kit.claim("private/claims/c.md", "cl_1", "Pinned", evidence=[{"path": "notes/log.md", "sha256": pinned}])
    kit.scan()
    assert "evidence-unverified" not in kit.codes("private/claims/c.md")
    vault = kit.open()  # restores the graph from its snapshot
    kit.write("private/notes/log.md", "Said on Tuesday.\n")
    vault.reconcile(["private/notes/log.md"], "watcher")
    assert "evidence-unverified" in kit.codes("private/claims/c.md")


def test_a_rename_keeps_identity(kit: VaultKit) -> None:
    """Filenames: an outside rename keeps the record's identity (it is in the file)."""
    small_vault(kit)
    vault = kit.scan()
    old = kit.root / "private/people/bob.md"
    old.rename(kit.root / "private/people/robert.md")
    change = vault.reconcile(["private/people/bob.md", "private/people/robert.md"], "watcher")
    assert change.added == []
    assert change.removed == []
    assert "pg_bob" in change.changed
    assert kit.row("pg_bob")["path"] == "private/people/robert.md"


def test_deleting_a_file_removes_its_rows(kit: VaultKit) -> None:
    """Reconcile: a deleted file's rows go; links to it become missing."""
    small_vault(kit)
    vault = kit.scan()
    (kit.root / "private/people/bob.md").unlink()
    change = vault.reconcile(["private/people/bob.md"], "watcher")
    assert change.removed == ["pg_bob"]
    assert vault.find("pg_bob") == []
    assert "link-missing" in kit.codes("private/projects/engine.md")


def test_a_removed_folder_removes_everything_below_it(kit: VaultKit) -> None:
    """Reconcile: a path that was a folder removes every known file under it."""
    small_vault(kit)
    vault = kit.scan()
    for f in (kit.root / "private/people").iterdir():
        f.unlink()
    (kit.root / "private/people").rmdir()
    change = vault.reconcile(["private/people"], "watcher")
    assert change.removed == ["pg_ada", "pg_bob"]


def _moved_away_when_listed(monkeypatch: pytest.MonkeyPatch, folder: Path, elsewhere: Path) -> list[Path]:
    """Make `folder` move to `elsewhere` just before it is listed, as another program's
    rename lands between a folder being seen and being read."""
    moved: list[Path] = []
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if Path(path) == folder and not moved:
            os.rename(folder, elsewhere)
            moved.append(folder)
        return real_scandir(path)

    monkeypatch.setattr(walk_module.os, "scandir", scandir)
    return moved


@pytest.mark.parametrize("reported", ["private/people", "private"])
def test_a_folder_renamed_away_while_listed_reads_as_removed(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reported: str
) -> None:
    """A watcher event names a folder (or its parent), and the folder is renamed out of the
    vault between the check that it is a folder and its listing: its records are removed,
    nothing is raised (a race the live-vault fuzz test met on CI)."""
    small_vault(kit)
    vault = kit.scan()
    moved = _moved_away_when_listed(monkeypatch, kit.root / "private/people", tmp_path / "gone")
    change = vault.reconcile([reported], "watcher")
    assert moved
    assert change.removed == ["pg_ada", "pg_bob"]
    monkeypatch.undo()
    assert_equals_a_fresh_scan(kit, vault)


def test_rows_another_process_wrote_are_reported_as_touched(kit: VaultKit) -> None:
    """Two Vaults on one folder (the window and `knowledge new`): the second publishes a file
    and writes its rows; when the first reconciles that file its projections read unchanged,
    yet its panes never showed them, so every projection is reported touched."""
    small_vault(kit)
    window = kit.scan()
    other = Vault.open(kit.root)
    try:
        kit.page("private/notes/late.md", "pg_late", "Late", type="note")
        other.reconcile(["private/notes/late.md"], "watcher")
    finally:
        other.close()
    change = window.reconcile(["private/notes/late.md"], "watcher")
    assert change.added == ["pg_late"]
    assert {"catalog", "links", "diagnostics"} <= {str(t) for t in change.touched}


def _random_edit(kit: VaultKit, rng: random.Random, step: int) -> list[str]:
    names = [f"p{i}" for i in range(12)]
    name = rng.choice(names)
    folder = rng.choice(["people", "notes", "projects"])
    path = f"private/{folder}/{name}.md"
    full = kit.root / path
    action = rng.random()
    if action < 0.2 and full.exists():
        full.unlink()
        return [path]
    if action < 0.3:
        existing = sorted(p for p in (kit.root / "private").rglob("*.md"))
        if existing:
            src = rng.choice(existing)
            dest = kit.root / "private" / rng.choice(["people", "notes"]) / f"m{step}.md"
            dest.parent.mkdir(parents=True, exist_ok=True)
            src.rename(dest)
            return [str(src.relative_to(kit.root)), str(dest.relative_to(kit.root))]
    if action < 0.45:
        claim_path = f"private/claims/{name}.md"
        extra_claim: dict[str, object] = {
            "entities": [rng.choice(names)],
            "evidence": [{"path": f"{rng.choice(['people', 'notes'])}/{rng.choice(names)}.md"}],
        }
        if rng.random() < 0.4:
            extra_claim["dependencies"] = [rng.choice(names)]
        if rng.random() < 0.2:
            extra_claim["valid_until"] = rng.choice(["2001-01-01T00:00:00Z", "2999-01-01T00:00:00Z"])
        kit.claim(claim_path, rng.choice(names), "Claim", **extra_claim)
        return [claim_path]
    title = rng.choice(["Ada", "Bob", "Carol", "Dan", "Eve"])
    body = " ".join(f"[[{rng.choice(['Ada', 'Bob', 'Carol', 'x', 'p1'])}]]" for _ in range(3))
    extra: dict[str, object] = {}
    if rng.random() < 0.3:
        extra["aliases"] = [rng.choice(["Ada", "Zed"])]
    if rng.random() < 0.2:
        extra["lifecycle"] = "merged"
        extra["merged_into"] = rng.choice(names)
    kit.page(path, rng.choice(names), title, body=body + "\n", **extra)
    return [path]


def test_incremental_updates_equal_a_full_rebuild(kit: VaultKit, tmp_path: Path) -> None:
    """Reconcile: after many random edits applied path by path, the projections equal
    those a fresh full scan builds (nothing missed, nothing invented)."""
    rng = random.Random(7)
    kit.page("private/people/seed.md", "pg_seed", "Seed", body="[[Ada]]\n")
    vault = kit.scan()
    for step in range(400):
        touched = _random_edit(kit, rng, step)
        vault.reconcile(touched, "watcher")
    incremental = snapshot(vault)
    kit.close()
    fresh = Vault.open(kit.root)
    fresh.store.close()
    (kit.root / ".knowledge/state.sqlite").unlink()
    for suffix in ("-wal", "-shm"):
        (kit.root / f".knowledge/state.sqlite{suffix}").unlink(missing_ok=True)
    rebuilt = Vault.open(kit.root)
    rebuilt.reconcile()
    assert snapshot(rebuilt) == incremental
    rebuilt.close()


def _rich_edit(kit: VaultKit, rng: random.Random) -> list[str]:
    """An edit touching what a graph RecordNode keeps besides links: typed pages and
    their fields, relationship endpoints and labels, evidence by source, path,
    sha256 and lines, dependencies, merges, tags and dates."""
    n = rng.randrange(8)
    pages = [f"pg_{i}" for i in range(8)]
    existing = sorted((kit.root / "private").rglob("*.md"))
    action = rng.random()
    if action < 0.12 and existing:
        victim = rng.choice(existing)
        victim.unlink()
        return [str(victim.relative_to(kit.root))]
    if action < 0.45:
        folder, type_name = rng.choice(
            [("people", "person"), ("projects", "project"), ("companies", "company"), ("sources", "source")]
        )
        path = f"private/{folder}/p{n}.md"
        extra: dict[str, object] = {}
        if rng.random() < 0.6:
            extra["type"] = rng.choice([type_name, type_name, "project", "leads", "nonsense"])
        if rng.random() < 0.5:
            extra["fields"] = rng.choice(
                [{"role": "Engineer"}, {"status": "active"}, {"status": "bogus"}, {"role": 3}, {"other": 1}]
            )
        if rng.random() < 0.3:
            extra["tags"] = rng.sample(["alpha", "beta", "gamma"], 2)
        if rng.random() < 0.1:
            extra["lifecycle"] = "merged"
            extra["merged_into"] = rng.choice(pages)
        body = f"[[{rng.choice(pages)}]] [[P{rng.randrange(8)}]] [x](../people/p{rng.randrange(8)}.md)\n"
        kit.page(path, pages[n], f"P{n}", body=body, **extra)
        return [path]
    if action < 0.7:
        path = f"private/relationships/r{n}.md"
        label = rng.choice(["leads", "supports", "works_at", "undefined_label"])
        kit.relationship(path, f"rl_{n}", rng.choice(pages), rng.choice(pages), label)
        return [path]
    path = f"private/claims/c{n}.md"
    evidence: dict[str, object] = rng.choice(
        [{"source": rng.choice(pages)}, {"path": f"people/p{rng.randrange(8)}.md"}, {"url": "https://x.org"}]
    )
    if existing and rng.random() < 0.4:
        cited = rng.choice(existing)
        data = cited.read_bytes()
        evidence = {
            "path": str(cited.relative_to(kit.root / "private")),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        if rng.random() < 0.5:
            first = data.splitlines(keepends=True)[:2]
            evidence["lines"] = [1, 2]
            evidence["sha256"] = hashlib.sha256(b"".join(first)).hexdigest()
    extra_claim: dict[str, object] = {"entities": rng.sample(pages, 2), "evidence": [evidence]}
    if rng.random() < 0.3:
        extra_claim.update(claim_kind="commitment", owner=rng.choice(pages), due_at="2026-01-05")
    if rng.random() < 0.3:
        extra_claim["dependencies"] = [f"cl_{rng.randrange(8)}"]
    if rng.random() < 0.3:
        extra_claim["occurred_at"] = rng.choice(["2025-03-01", "2025-03-01T10:00:00Z", "not a date"])
    if rng.random() < 0.2:
        extra_claim["valid_from"] = "2020-01-01T00:00:00Z"
        extra_claim["expires_at"] = rng.choice(["2001-01-01T00:00:00Z", "2999-01-01T00:00:00Z"])
    kit.claim(path, f"cl_{n}", f"Claim {n}", **extra_claim)
    return [path]


def test_incremental_updates_from_a_reopened_vault_equal_a_full_rebuild(kit: VaultKit) -> None:
    """Reconcile: the graph loaded from the parse cache (files.node) on reopen
    derives as a fresh scan does, through edits of every kind of record."""
    rng = random.Random(11)
    for _ in range(40):
        _rich_edit(kit, rng)
    kit.scan()
    kit.close()
    vault = kit.open()  # the first incremental change loads the graph from files.node
    for _ in range(150):
        vault.reconcile(_rich_edit(kit, rng), "watcher")
    assert_equals_a_fresh_scan(kit, vault)


def test_the_graph_keeps_a_compact_node_per_file(kit: VaultKit) -> None:
    """Memory: the graph lives as long as the vault is open, so a RecordNode keeps no
    parse (no frontmatter dict, no pydantic model, no ParsedFile) and stays small;
    what it does keep is in compact form (evidence as locator tuples)."""
    from pydantic import BaseModel

    from knowledge_desktop.engine.graph.node import RecordNode

    small_vault(kit)
    kit.claim(
        "private/claims/c2.md",
        "cl_2",
        "With quotes",
        entities=["pg_ada"],
        evidence=[{"source": "pg_ada", "quote": "a long quotation " * 20, "lines": [1, 2]}],
    )
    vault = reopened_with_one_edit(kit)
    graph = vault.reconciler.graph()

    def contents(value: object) -> list[object]:
        if isinstance(value, dict):
            return [value, *(item for pair in value.items() for part in pair for item in contents(part))]
        if isinstance(value, list | tuple | set | frozenset):
            return [value, *(item for part in value for item in contents(part))]
        return [value]

    for node in graph.nodes.values():
        assert not hasattr(node, "__dict__")
        kept = [item for slot in RecordNode.__slots__ for item in contents(getattr(node, slot))]
        assert not any(isinstance(item, BaseModel | parse_module.ParsedFile) for item in kept)
        frontmatter = [item for item in kept if isinstance(item, dict)]
        assert all(set(d) <= {"role", "status", "occurred_at"} for d in frontmatter)  # page fields only
        # Shared strings (scope, kind, ids) are counted in full: the real cost is lower.
        assert sum(sys.getsizeof(item) for item in kept if item is not None) < 3000
    claim = graph.nodes["private/claims/c2.md"]
    assert "quote" not in repr(claim.link_parts) + repr(claim.evidence_items)
    assert claim.evidence_items == (("pg_ada", None, None, (1, 2), None),)
    assert claim.key_lines.get("evidence.0") is not None
    assert claim.key_lines.get("attribution") is None  # not a line any diagnostic of derive cites
    vault.close()


def test_the_graph_lets_details_go_once_rows_are_written(kit: VaultKit) -> None:
    """Memory: node details and derived findings live only while a reconcile
    derives and writes; a record whose eligibility flips without being derived
    again (a dependency of a dependency) still gets the rows a fresh scan writes."""
    small_vault(kit)
    kit.claim("private/claims/c2.md", "cl_2", "Builds on c1", dependencies=["cl_1"])
    vault = reopened_with_one_edit(kit)
    graph = vault.reconciler.graph()
    assert graph.details is not None
    assert graph.details.holding == 0
    assert not any(node.holds_detail for node in graph.nodes.values())
    assert not any(derived.complete for derived in graph.derived.values())
    # Withdrawing Ada makes cl_1 unavailable (re-derived: it names her) and so cl_2,
    # which only depends on cl_1 and is not derived again.
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", lifecycle="withdrawn")
    change = vault.reconcile(["private/people/ada.md"], "watcher")
    assert "private/claims/c2.md" in change.affected_paths
    assert graph.details.holding == 0
    assert_equals_a_fresh_scan(kit, vault)


def test_files_without_a_hash_are_read_back_from_the_parse_cache(kit: VaultKit, tmp_path: Path) -> None:
    """Memory: a link out of the vault has a stand-in for its hash and size; a node
    read back from the parse cache must carry the same ones (they used to differ,
    and deriving such a file again failed)."""
    outside = tmp_path / "outside.md"
    outside.write_text("# not ours\n", encoding="utf-8")
    small_vault(kit)
    os.symlink(outside, kit.root / "private/notes-out.md")
    kit.scan()
    kit.close()
    vault = kit.open()
    # A failed ontology is a change of the partition's ontology: every file is derived again.
    kit.write("private/ontology.yaml", "format: knowledge-ontology-v1\nname: [broken\n")
    vault.reconcile(["private/ontology.yaml"], "watcher")
    assert_equals_a_fresh_scan(kit, vault)


def test_a_manifest_changed_before_the_first_reconcile_after_opening_is_noticed(kit: VaultKit) -> None:
    """Live vault (ontology changes recompute validation): the change is judged
    against the ontology the projections were derived with, not one read from
    the changed file (a freshly opened vault reads its ontologies lazily, and
    used to see no change at all)."""
    small_vault(kit)
    kit.scan()
    kit.close()
    vault = kit.open()
    kit.write("private/ontology.yaml", "format: knowledge-ontology-v1\nname: [broken\n")
    change = vault.reconcile(["private/ontology.yaml"], "watcher")
    assert change.ontology_changed == ["private"]
    rows = vault.store.reader().execute("SELECT code FROM diagnostics WHERE path = 'private/people/ada.md'")
    assert "ontology-unavailable" in {code for (code,) in rows}


def test_a_parse_cache_out_of_step_with_the_graph_is_an_error_not_a_guess(kit: VaultKit) -> None:
    """Memory: a released detail is read back only for the same bytes (path and hash)."""
    from knowledge_desktop.engine.graph.detail import StaleDetail

    small_vault(kit)
    kit.scan()
    kit.close()
    vault = kit.open()
    graph = vault.reconciler.graph()
    with vault.store.write() as tx:
        tx.execute("UPDATE files SET sha256 = 'f00' WHERE path = 'private/people/ada.md'")
    with pytest.raises(StaleDetail, match=r"private/people/ada\.md"):
        graph.nodes["private/people/ada.md"].value("title")
    vault.close()


def test_parallel_parsing_gives_the_same_projections(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reconcile: worker processes parse exactly as the calling process does."""
    small_vault(kit)
    for i in range(20):
        kit.page(
            f"private/notes/n{i}.md",
            f"pg_n{i}",
            f"Note {i}",
            type="note",
            body=f"See [[Ada]] and [[Note {i + 1}]].\n",
        )
    serial = snapshot(kit.scan())
    kit.close()
    drop_state(kit)
    monkeypatch.setattr(reconcile_module, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(reconcile_module, "BATCH", 4)
    vault = kit.open()
    assert vault.reconcile().parsed == 25
    assert snapshot(vault) == serial


def test_an_interactive_host_parses_changed_batches_in_warm_workers(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reconcile: with parse_in_workers set, a batch of changed files is parsed by worker
    processes that stay up for the next batch, with the same projections as a serial run."""
    small_vault(kit)
    changed = [f"private/notes/n{i}.md" for i in range(20)]

    def write_notes(body: str) -> None:
        for i, rel in enumerate(changed):
            kit.page(rel, f"pg_n{i}", f"Note {i}", type="note", body=body.format(next=i + 1))

    write_notes("First.\n")
    kit.scan()
    write_notes("See [[Note {next}]].\n")
    serial = snapshot(kit.scan())
    write_notes("First.\n")
    vault = kit.open()
    vault.reconcile()
    monkeypatch.setattr(reconcile_module, "OFFLOAD_MIN", 4)
    vault.parse_in_workers(10)
    vault.reconciler.workers.idle_s = 60
    write_notes("See [[Note {next}]].\n")
    assert not vault.reconciler.workers.warm
    assert vault.reconcile(changed, source="watcher").parsed == 20
    assert vault.reconciler.workers.warm  # kept for the next batch of the burst
    assert snapshot(vault) == serial
    kit.page("private/notes/n0.md", "pg_n0", "Note 0", type="note", body="Changed once more.\n")
    assert vault.reconcile(changed[:1], source="watcher").parsed == 1  # below OFFLOAD_MIN: this thread
    vault.close()
    assert not vault.reconciler.workers.warm


def test_an_idle_worker_pool_shuts_down() -> None:
    """Workers: a pool nobody used for its idle time stops its processes."""
    pool = WorkerPool(idle_s=0.05, max_workers=1)
    executor = pool.acquire()
    assert executor.submit(sum, [1, 2]).result(timeout=60) == 3
    pool.release()
    deadline = time.monotonic() + 10
    while pool.warm and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pool.warm


def test_reconciling_runs_no_full_garbage_collection(kit: VaultKit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reconcile: bulk work never triggers a full collection (each one would pause every
    thread, the window's too, for as long as it walks the heap); young ones still run.
    The one collection it asks for itself, before freezing the graph, is left out."""
    monkeypatch.setattr(reconcile_module, "return_freed_memory", lambda: None)
    small_vault(kit)
    for i in range(60):
        body = f"See [[Note {i + 1}]].\n"
        kit.page(f"private/notes/n{i}.md", f"pg_n{i}", f"Note {i}", type="note", body=body)
    vault = kit.open()  # opening (state, manifest, remembered vaults) is not what this measures
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    before = gc.get_threshold()
    gc.set_threshold(50, 1, 1)  # so eager that a full collection would come every few hundred objects
    gc.freeze()  # the test session's own heap no longer holds full collections back (the 25 % rule):
    gc.collect()  # a full collection over the now empty oldest generation resets that count
    gc.callbacks.append(seen)
    try:
        vault.reconcile()
        vault.reconciler._graph = None
        vault.reconciler.graph()  # a reload, as the window's warm-up does
        during = list(collections)
        assert gc.get_threshold() == (50, 1, 1)  # restored afterwards
        collections.clear()
        gc.collect(1)
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*before)
        gc.unfreeze()
    assert during
    assert 2 not in during
    assert 0 in during


def test_a_projection_rebuild_keeps_durable_tables(kit: VaultKit) -> None:
    """state.sqlite: projections are rebuilt on a version change; guards and receipts stay."""
    small_vault(kit)
    vault = kit.scan()
    with vault.store.write() as tx:
        tx.execute("INSERT INTO keyword_withdrawals_v1 VALUES ('private','cl_1','req','r','t')")
        tx.execute("INSERT INTO receipts VALUES ('req','h','{}','t')")
        tx.execute("UPDATE projection_meta SET value='old' WHERE key='version'")
    kit.close()
    vault = kit.open()
    assert vault.store.rebuilt
    assert vault.reconcile().parsed == 5
    conn = vault.store.reader()
    assert conn.execute("SELECT count(*) FROM keyword_withdrawals_v1").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM receipts").fetchone()[0] == 1
    assert conn.execute("SELECT value FROM projection_meta WHERE key='version'").fetchone()[0] == (
        schema.PROJECTION_VERSION
    )


def test_a_lost_state_database_is_reported(kit: VaultKit) -> None:
    """state.sqlite: losing it after .knowledge/ existed is reported, not silently redone."""
    small_vault(kit)
    kit.scan()
    kit.close()
    drop_state(kit)
    assert "state-missing" in kit.codes()


def test_the_vault_manifest_holds_a_stable_id(kit: VaultKit) -> None:
    """Vault layout: .knowledge/manifest.json names the vault once and keeps it."""
    small_vault(kit)
    first = kit.open().vault_id
    kit.close()
    assert kit.open().vault_id == first
    assert first.startswith("vlt_")


def test_hostile_files_are_diagnosed_and_the_scan_goes_on(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad input: binary, non-UTF-8, huge and out-of-vault symlinked files never stop a scan."""
    small_vault(kit)
    monkeypatch.setattr(parse_module, "MAX_FILE_BYTES", 10_000)
    kit.write("private/notes/binary.md", b"\x89PNG\x00\x00data")
    kit.write("private/notes/latin.md", "caf\xe9".encode("latin-1"))
    kit.write("private/notes/huge.md", "x" * 20_000)
    secret = tmp_path / "secret.md"
    secret.write_text("outside")
    os.symlink(secret, kit.root / "private/notes/link.md")
    os.symlink(tmp_path, kit.root / "private/linked-folder")
    found = dict(kit.diagnostics())
    assert found["file-binary"] == 1
    assert found["file-not-utf8"] == 1
    assert "file-too-large" in found
    assert "symlink-outside-vault" in found
    assert kit.scan().counts()["eligible"] == 5


def test_an_unreadable_file_is_diagnosed(kit: VaultKit) -> None:
    """Bad input: a file the user cannot read is named, not fatal (for root, who reads
    through any mode, the OS's refusal is stood in for by `hostile_cases.locked`)."""
    small_vault(kit)
    hostile_cases.locked_files(kit.root)
    with hostile_cases.locked(kit.root):
        vault = kit.scan()
        found = {d.path: d for d in vault.diagnostics()}
        assert vault.counts()["eligible"] == 5
    assert found["private/notes/locked/secret.md"].code == "file-unreadable"
    assert "permission denied" in found["private/notes/locked/secret.md"].message
    assert kit.scan().counts()["eligible"] == 7  # both read once they can be


def test_opening_bad_paths_raises_clear_errors(tmp_path: Path) -> None:
    """Vault: missing folders, files and folders without records are named clearly."""
    with pytest.raises(VaultNotFound):
        Vault.open(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotAVault):
        Vault.open(tmp_path / "file.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotAVault):
        Vault.open(tmp_path / "empty")


def test_a_read_only_vault_keeps_state_in_the_cache(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vault layout: without write access, state lives in the user's cache folder."""
    small_vault(kit)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_access = os.access

    def no_write(path: object, mode: int, **kw: object) -> bool:
        if mode & os.W_OK and str(path).startswith(str(kit.root)):
            return False
        return real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", no_write)
    vault = Vault.open(kit.root)
    assert vault.read_only
    assert str(vault.state_dir).startswith(str(tmp_path / "cache"))
    vault.reconcile()
    assert vault.counts()["eligible"] == 5
    vault.close()


def test_the_database_uses_wal(kit: VaultKit) -> None:
    """state.sqlite: write-ahead logging so readers never block on the writer."""
    small_vault(kit)
    kit.scan()
    conn = sqlite3.connect(kit.root / ".knowledge/state.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_reads_on_an_unchanged_vault_never_load_the_graph(kit: VaultKit) -> None:
    """Reads are cheap: type filters and ontology views need manifests, not every record."""
    from knowledge_desktop.engine.query.inventory import RecordFilter

    small_vault(kit)
    kit.scan()
    kit.close()
    vault = kit.open()
    vault.reconcile()
    vault.records(RecordFilter(types=frozenset({"organization"})))
    vault.ontology()
    assert vault.reconciler._graph is None


def test_the_walk_classifies_files_as_classify_path_does(kit: VaultKit) -> None:
    """Layout: the fast walk and the path rules agree on every kind of file."""
    from knowledge_desktop.engine.fs.walk import classify_path, walk

    for rel in (
        "README.md",
        "notes.txt",
        "private/ontology.yaml",
        "private/x/ontology.yaml",
        "private/ontologies/a.yaml",
        "private/ontologies/b.yml",
        "private/ontologies/c.txt",
        "private/ontologies/deep/d.yaml",
        "private/people/A.MD",
        "private/.hidden.md",
        "private/.obsidian/x.md",
        "work/deep/er/x.md",
        "private/x.md.swp",
    ):
        kit.write(rel, "x")
    found = {(e.path, e.scope, e.kind) for e in walk(kit.root)}
    expected = set()
    for path in (p.relative_to(kit.root).as_posix() for p in kit.root.rglob("*") if p.is_file()):
        where = classify_path(path)
        if where is not None:
            expected.add((path, *where))
    assert found == expected
    assert ("private/ontologies/a.yaml", "private", "manifest") in found


def test_the_writer_page_cache_grows_only_for_bulk_writes(kit: VaultKit) -> None:
    """state.sqlite: everyday writes use a small page cache; a bulk write gets a large one
    for its transaction only, even when it fails (a large cache kept would stay resident)."""
    small_vault(kit)
    store = kit.scan().store

    def cache() -> int:
        return int(store._writer.execute("PRAGMA cache_size").fetchone()[0])

    assert cache() == db.WRITER_CACHE_KIB
    with store.write(bulk=True):
        assert cache() == db.BULK_CACHE_KIB
    assert cache() == db.WRITER_CACHE_KIB
    with pytest.raises(RuntimeError), store.write(bulk=True):
        raise RuntimeError("the work failed")
    assert cache() == db.WRITER_CACHE_KIB


def test_each_thread_keeps_one_reader_connection_until_the_store_closes(kit: VaultKit) -> None:
    """state.sqlite: a thread's reads reuse its connection (opening one re-reads the schema
    with a cold cache); closing the store closes every thread's connection."""
    import threading

    small_vault(kit)
    store = kit.scan().store
    mine = store.reader()
    assert store.reader() is mine
    theirs: list[sqlite3.Connection] = []
    worker = threading.Thread(target=lambda: theirs.extend([store.reader(), store.reader()]))
    worker.start()
    worker.join()
    assert theirs[0] is theirs[1]
    assert theirs[0] is not mine
    kit.close()
    for conn in (mine, theirs[0]):
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")


def test_a_partition_that_empties_and_comes_back_is_activated_again(kit: VaultKit) -> None:
    """Reconcile remembers which partitions hold files between runs; a partition whose last
    file went away and that then gets a file again is activated afresh, with the ontology
    it has by then (the remembered set must forget a partition that emptied)."""
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    kit.page("work/notes/b.md", "pg_b", "B", type="note")
    vault = kit.scan()
    (kit.root / "work/notes/b.md").unlink()
    vault.reconcile(["work/notes/b.md"], "watcher")
    kit.write("work/ontology.yaml", "format: knowledge-ontology-v1\nname: [broken\n")
    kit.page("work/notes/c.md", "pg_c", "C", type="note")
    vault.reconcile(["work/notes/c.md"], "watcher")
    assert vault.reconciler.ontologies()["work"].ontology is None  # the broken manifest was read
    assert_equals_a_fresh_scan(kit, vault)
