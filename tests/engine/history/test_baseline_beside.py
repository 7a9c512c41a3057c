"""A cold scan's parse workers pack the first checkpoint's blobs while its own process
writes the projections (issue 26): `knowledge scan` then only makes the tree and commit."""

from __future__ import annotations

import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from knowledge_desktop.engine import reconcile
from knowledge_desktop.engine.fs.walk import walk
from knowledge_desktop.engine.history import baseline
from knowledge_desktop.engine.history.packwrite import blob_id
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path
from tests.engine.history.gitkit import repo_of


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), root, ignore=shutil.ignore_patterns(".knowledge"))
    monkeypatch.setattr(reconcile, "PARALLEL_THRESHOLD", 1)  # read in workers, as at 1,500 files
    return root


def files_of(root: Path) -> dict[str, bytes]:
    return {e.path: blob_id((root / e.path).read_bytes()) for e in walk(root) if e.problem is None}


def committed(vault: Vault) -> dict[str, bytes]:
    repo = repo_of(vault)
    found: dict[str, bytes] = {}

    def visit(tree: object, prefix: str) -> None:
        for item in tree:  # type: ignore[attr-defined]
            if item.type_str == "tree":
                visit(item, f"{prefix}{item.name}/")
            else:
                found[prefix + item.name] = item.id.raw

    visit(repo.head.peel().tree, "")
    return found


def test_the_workers_pack_the_baseline_and_this_process_reads_no_file(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Vault.open(demo) as vault:
        vault.reconcile(baseline=True)
        assert vault.history._packing is not None

        def read_here(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("the baseline read the files in the scan's own process")

        monkeypatch.setattr(baseline, "_pack", read_here)  # (the workers have their own copy)
        assert vault.history.ensure_baseline() is not None
        assert committed(vault) == files_of(demo)
        rows = vault.store.reader().execute("SELECT count(*) FROM checkpoint_paths").fetchone()[0]
        assert rows == len(files_of(demo))
        assert vault.history.ensure_baseline() is None


def test_a_failed_worker_leaves_the_baseline_to_this_process(demo: Path) -> None:
    failed: Future[baseline.Packed | None] = Future()
    failed.set_exception(OSError("the worker died"))
    with Vault.open(demo) as vault:
        vault.reconcile()
        vault.history._packing = failed
        assert vault.history.ensure_baseline() is not None
        assert committed(vault) == files_of(demo)


def test_a_scan_that_makes_no_baseline_queues_none(demo: Path) -> None:
    with Vault.open(demo) as vault:
        vault.reconcile()
        assert vault.history._packing is None
        assert vault.history.ensure_baseline() is not None
        shutil.rmtree(demo / ".knowledge" / "history.git", ignore_errors=False)
    with Vault.open(demo) as vault:
        (demo / "private" / "notes-added.md").write_text("# A note\n", "utf-8")
        vault.reconcile(["private/notes-added.md"], baseline=True)  # not a full scan
        assert vault.history._packing is None


def test_a_pool_that_takes_no_work_leaves_the_scan_alone(demo: Path) -> None:
    class ShutDown(ThreadPoolExecutor):
        def submit(self, *_args: object, **_kwargs: object) -> Future[object]:  # type: ignore[override]
            raise RuntimeError("cannot schedule new futures after shutdown")

    with Vault.open(demo) as vault:
        vault.reconcile()
        vault.history.baseline_beside(ShutDown())
        assert vault.history._packing is None
        assert vault.history.ensure_baseline() is not None
