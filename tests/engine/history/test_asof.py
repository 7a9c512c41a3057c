"""The vault as it was (issue 15, §3 File › Open As Of…, engine side; §4 as-of equality): a
vault checked out at checkpoint C and scanned fresh gives the same catalog as the as-of
view of C, which is read-only and leaves nothing behind when closed or cancelled."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import pygit2
import pytest

from knowledge_desktop.engine.asof import checkpoint_choices, open_as_of
from knowledge_desktop.engine.errors import Cancelled, QueryError
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.engine.history.gitkit import checkpoint_whole_vault, epoch, extract
from tests.vaultkit import VaultKit, fence_of, read_fence

EVERYTHING = RecordFilter(include_ineligible=True, lifecycle="all")


def catalog(vault: Vault) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    items = vault.records(EVERYTHING, limit=1000)["items"]
    rows = sorted(
        (i["id"], i["path"], i["title"], i["kind"], i["type"], i["lifecycle"], i["valid"], i["revision"])
        for i in items
    )
    return rows, vault.catalog_tree()


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the as-of view uses, watched by the tests."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def past(kit: VaultKit) -> tuple[Vault, str]:
    """A vault checkpointed whole at C (2024-05-01), then changed: a page edited and a claim
    withdrawn through the write path (checkpoints after C; the withdrawal leaves a durable
    guard), a claim added and a page deleted on disk."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", "First.\n", type="person")
    kit.page("private/people/grace.md", "pg_grace", "Grace", "[[Ada]]\n", type="person")
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/sky.md", "cl_sky", "The sky is green")
    kit.write("notes.md", "loose text\n")
    vault = kit.scan()
    c = checkpoint_whole_vault(kit.root, vault.state_dir, epoch("2024-05-01T12:00:00"))
    vault.edit_body(fence_of(vault, "pg_ada"), "Second.\n")
    fence = read_fence(vault, "cl_sky")
    payload = {"fence": f"{fence.record_id}:{fence.revision}:{fence.sha256}", "reason": "wrong"}
    request = make_request("withdraw", payload, request_id="rq-sky")
    assert vault.write(request, lambda ctx: plan_withdraw(ctx, fence, "wrong"))["git"]["state"] == "committed"
    kit.claim("private/claims/new.md", "cl_new", "A new claim")
    (kit.root / "private/people/grace.md").unlink()
    vault.reconcile()
    return vault, c


@pytest.mark.parametrize("how", ["live vault, seeded", "folder, seeded", "folder, cold"])
def test_as_of_equals_a_fresh_scan_of_the_checkpoint(
    past: tuple[Vault, str], tmp_path: Path, temp: Path, how: str
) -> None:
    """Seeded from the live state (by the open vault or by its folder) or built cold, the
    view of C lists what a fresh scan of C's files lists — the claim withdrawn later is
    active in it, and the page deleted later is there."""
    vault, c = past
    extract(pygit2.Repository(str(vault.state_dir / "history.git")), c, tmp_path / "checkout")
    with Vault.open(tmp_path / "checkout") as fresh:
        fresh.reconcile()
        expected = catalog(fresh)
    seen: list[tuple[str, int, int]] = []
    source = vault if how.startswith("live") else vault.root
    with open_as_of(source, c[:10], progress=lambda *p: seen.append(p), seed="seeded" in how) as asof:
        assert catalog(asof) == expected
        assert asof.find("cl_sky")[0]["lifecycle"] == "active"
        assert vault.find("cl_sky")[0]["lifecycle"] == "withdrawn"
        assert catalog(asof) != catalog(vault)
        assert asof.show("pg_ada")["body"] == "First.\n"
        assert asof.as_of == {"commit": c, "at": "2024-05-01T12:00:00Z", "source": "checkpoint"}
        files = [p for p in seen if p[0] == "files"]
        count = sum(
            1 for p in (tmp_path / "checkout").rglob("*") if p.is_file() and ".knowledge" not in p.parts
        )
        assert files[-1] == ("files", count, count)
        assert len(files) == count == 5
        assert not asof.root.is_relative_to(vault.root)
        assert not asof.state_dir.is_relative_to(vault.root)
        folders = list(temp.iterdir())
        assert len(folders) == 1
    assert list(temp.iterdir()) == []  # closing removed the tree and the state


def test_as_of_a_date_opens_the_newest_checkpoint_by_then(past: tuple[Vault, str], temp: Path) -> None:
    vault, c = past
    with open_as_of(vault, "2024-05-01") as asof:
        assert asof.as_of is not None
        assert asof.as_of["commit"] == c
    with pytest.raises(QueryError, match="no checkpoint was made at or before 2024-04-30"):
        open_as_of(vault.root, "2024-04-30")
    assert list(temp.iterdir()) == []


def test_as_of_refuses_writes_and_makes_no_checkpoint(past: tuple[Vault, str], temp: Path) -> None:
    vault, c = past
    repo = pygit2.Repository(str(vault.state_dir / "history.git"))
    tip = repo.references["refs/heads/checkpoints"].target
    with open_as_of(vault.root, c) as asof:
        assert asof.read_only
        with pytest.raises(WriteRejected):
            asof.edit_body(fence_of(asof, "pg_ada"), "Rewritten.\n")
        assert (asof.root / "private/people/ada.md").stat().st_mode & 0o222 == 0
    assert repo.references["refs/heads/checkpoints"].target == tip
    assert (vault.root / "private/people/ada.md").read_text().endswith("Second.\n")


def test_cancel_removes_what_was_written(past: tuple[Vault, str], temp: Path) -> None:
    """Cancelled while writing files out: `Cancelled`, and no temporary folder is left."""
    vault, c = past
    cancel = threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if done == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        open_as_of(vault.root, c, progress=progress, cancel=cancel)
    assert list(temp.iterdir()) == []


def test_cancel_while_scanning_removes_everything(past: tuple[Vault, str], temp: Path) -> None:
    """Cancelled once the files are out and the scan reads them: `Cancelled`, nothing left."""
    vault, c = past
    cancel = threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "reading":
            cancel.set()

    with pytest.raises(Cancelled):
        open_as_of(vault, c, progress=progress, cancel=cancel, seed=False)
    assert cancel.is_set()
    assert list(temp.iterdir()) == []


def test_checkpoint_choices_newest_first(past: tuple[Vault, str]) -> None:
    vault, c = past
    choices = checkpoint_choices(vault.history)
    assert [x["commit"] for x in choices][-1] == c
    assert choices[0]["operation"] == "withdraw"
    assert choices[-1]["operation"] == "observed"
    assert set(choices[0]) == {"commit", "at", "operation", "author"}
    assert checkpoint_choices(vault.root, limit=1) == choices[:1]
