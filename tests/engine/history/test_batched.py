"""Batched checkpoints (issue 15, the outbox: one commit per publication batch; issue 16 §5,
a run of many writes): a run's quick publications share commits, every version of every
file stays in history, and the index rebuilt from the repository equals the one written
as the commits were made."""

from __future__ import annotations

import json
from typing import Any

import pygit2
import pytest

from knowledge_desktop.api import Extension
from knowledge_desktop.cli import main
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.history import index
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.engine.write import checkpoints, publish
from knowledge_desktop.engine.write.journal import Entry, JournalFile
from knowledge_desktop.engine.write.operations.annotate import plan_annotate
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.requests import make_request
from tests.engine.history.gitkit import repo_of
from tests.vaultkit import VaultKit, read_fence

RUN = "run_batch"
MANIFEST: dict[str, Any] = {
    "name": "helper",
    "description": "Keeps what it learns about food",
    "knowledge": {
        "permissions": ["facts.read:self:pref.food.*", "facts.write:self:pref.food.*"],
        "predicates": [{"predicate": "pref.food.rated", "cardinality": "many", "description": "Rated"}],
        "reason": "Remember dishes",
    },
}


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run publication after a flush counts as quick (no timing in the assertions)."""
    monkeypatch.setattr(publish, "BATCH_INTERVAL_S", 3600.0)


def commits(vault: Vault) -> list[pygit2.Commit]:
    """The checkpoint branch, oldest first."""
    repo = repo_of(vault)
    out = []
    commit = repo[repo.references[checkpoints.BRANCH].target]
    while True:
        out.append(commit)
        if not commit.parents:
            return out[::-1]
        commit = commit.parents[0]


def pending(vault: Vault) -> list[dict[str, Any]]:
    return checkpoints.listing(vault.state_dir, vault.store.reader(), pending_only=True)["outbox"]


def rows(vault: Vault) -> list[tuple[Any, ...]]:
    return vault.store.reader().execute("SELECT * FROM checkpoint_paths ORDER BY ord, path").fetchall()


def test_a_runs_quick_puts_share_commits_and_close_commits_the_last_batch(
    kit: VaultKit, slow_clock: None, capsys: pytest.CaptureFixture[str]
) -> None:
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(MANIFEST), "private")
    for permission in MANIFEST["knowledge"]["permissions"]:
        extensions.grant("helper", permission)
    ext = Extension(vault, open_session(vault, "helper", run_id=RUN))
    before = len(commits(vault)) if (vault.state_dir / checkpoints.REPO_DIR).exists() else 0
    for n in range(20):
        assert ext.facts.put("pref.food.rated", f"dish {n}").status == "applied"
    written = [i for i in reversed(vault.journal(limit=100)["items"]) if i["runId"] == RUN]
    assert len(written) == 20
    states = [i["receipt"]["git"] for i in written]
    assert states[0]["state"] == "committed"  # the run's first publication: no flush before it
    assert {s["state"] for s in states[1:]} == {"pending"}
    assert {s["reason"] for s in states[1:]} == {publish.BATCHED}
    assert len(pending(vault)) == 19
    vault.close()  # commits what waits

    vault = Vault.open(kit.root)
    assert pending(vault) == []
    made = commits(vault)[before:]
    assert 1 < len(made) < 20
    assert "Batch: 19" in made[-1].message
    for item in written:  # every version, with its bytes' hash, by the run's actor
        (put,) = item["receipt"]["items"]
        versions = vault.history.versions(put["id"])
        assert [(v["hash"], v["operation"], v["author"], v["source"]) for v in versions] == [
            (put["hash"], "fact-put", item["actor"], "publish")
        ]
        assert vault.resume(item["requestId"])["git"]["state"] == "committed"  # the stored receipt
    vault.close()
    assert main(["checkpoints", str(kit.root), "--pending", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outbox"] == []


def run_write(vault: Vault, operation: str, record_id: str, request_id: str, run_id: str | None) -> str:
    """Withdraw or annotate a record in a run (None: a person's save); the receipt's git state."""
    fence = read_fence(vault, record_id)
    token = f"{fence.record_id}:{fence.revision}:{fence.sha256}"
    if operation == "withdraw":
        request = make_request(
            "withdraw",
            {"fence": token, "reason": f"wrong  {request_id}"},
            request_id=request_id,
            actor="helper",
            run_id=run_id,
        )
        receipt = vault.write(request, lambda ctx: plan_withdraw(ctx, fence, f"wrong  {request_id}"))
    else:
        request = make_request(
            "annotate", {"fence": token}, request_id=request_id, actor="helper", run_id=run_id
        )
        receipt = vault.write(request, lambda ctx: plan_annotate(ctx, fence, ["pg_pr"]))
    return str(receipt["git"]["state"])


def test_a_batched_commit_is_indexed_again_from_the_repository_row_for_row(
    kit: VaultKit, slow_clock: None
) -> None:
    """A path written twice in a run cuts the batch (both versions stay); the rows that `sync`
    rebuilds from the commits' trees and messages are exactly those `record` wrote: each
    path with its own publication's operation, actor, reason, record id and revision."""
    kit.page("private/projects/pr.md", "pg_pr", "PR 42", type="project")
    for name in ("ci", "tea", "cake", "pie", "jam"):
        kit.claim(f"private/claims/{name}.md", f"cl_{name}", f"About {name}")
    vault = kit.scan()
    assert vault.history.ensure_baseline() is not None
    states = [
        run_write(vault, "withdraw", "cl_pie", "rq-0", RUN),  # flushed: the first of the run
        run_write(vault, "annotate", "cl_ci", "rq-1", RUN),
        run_write(vault, "withdraw", "cl_tea", "rq-2", RUN),
        run_write(vault, "withdraw", "cl_ci", "rq-3", RUN),  # ci.md again: a new batch
        run_write(vault, "withdraw", "cl_cake", "rq-4", RUN),
    ]
    assert states == ["committed", "pending", "pending", "pending", "pending"]
    # a person's save is committed at once, and its flush commits the run's batches first
    assert run_write(vault, "annotate", "cl_jam", "rq-5", None) == "committed"
    made = commits(vault)
    requests = [index.trailers(c.message).get("Request") for c in made[-4:]]
    assert requests == ["rq-0", "rq-1, rq-2", "rq-3, rq-4", "rq-5"]
    blocks = index.batch_entries(made[-3].message)
    assert [b.trailers["Operation"] for b in blocks] == ["annotate", "withdraw"]
    assert blocks[1].trailers["Reason"] == "wrong rq-2"
    assert [f.path for f in blocks[1].files] == ["private/claims/tea.md"]
    ci = [v["operation"] for v in vault.history.versions("cl_ci")]
    assert ci[:2] == ["withdraw", "annotate"]  # both versions of ci.md

    recorded = rows(vault)
    by_path = {r[6]: r for r in recorded if r[0] == str(made[-3].id)}
    operations = (by_path["private/claims/ci.md"][4], by_path["private/claims/tea.md"][4])
    assert operations == ("annotate", "withdraw")
    assert by_path["private/claims/tea.md"][11] == "wrong rq-2"
    assert by_path["private/claims/ci.md"][11] is None  # an annotation gives no reason
    with vault.store.write() as tx:
        tx.execute("DELETE FROM checkpoint_paths")
    index.sync(vault.store, repo_of(vault))
    assert rows(vault) == recorded


def pending_of(
    seq: int, paths: list[str], actor: str = "helper", run_id: str | None = RUN
) -> checkpoints.Pending:
    """An outbox row's publication writing `paths` (for the grouping rules alone)."""
    entry = Entry(
        seq, f"rq-{seq}", "annotate", "0" * 64, actor, None, "published", {}, None, "", None, None, run_id
    )
    files = [JournalFile(n, p, None, None, None, None, "0" * 64, b"x") for n, p in enumerate(paths)]
    return checkpoints.Pending(seq, entry, files)


def test_batches_are_cut_at_a_repeated_path_another_actor_or_run_a_save_of_no_run_and_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = [
        pending_of(1, ["a.md", "b.md"]),
        pending_of(2, ["c.md"]),
        pending_of(3, ["b.md"]),  # b.md again
        pending_of(4, ["d.md"], actor="other"),
        pending_of(5, ["e.md"], actor="other", run_id="run_other"),
        pending_of(6, ["f.md"], actor="other", run_id="run_other"),
        pending_of(7, ["g.md"], actor="other", run_id=None),  # a person's save: alone
        pending_of(8, ["h.md"], actor="other", run_id="run_other"),
        pending_of(9, ["odd\nname.md"], actor="other", run_id="run_other"),  # alone
        pending_of(10, ["i.md"], actor="other", run_id="run_other"),
    ]
    groups = [[p.seq for p in group] for group in checkpoints.batches(items)]
    assert groups == [[1, 2], [3], [4], [5, 6], [7], [8], [9], [10]]
    monkeypatch.setattr(checkpoints, "BATCH_MAX", 2)
    many = [pending_of(n, [f"{n}.md"]) for n in range(5)]
    assert [[p.seq for p in g] for g in checkpoints.batches(many)] == [[0, 1], [2, 3], [4]]


def test_the_windows_maintain_commits_what_a_run_left_waiting(kit: VaultKit, slow_clock: None) -> None:
    for name in ("tea", "cake"):
        kit.claim(f"private/claims/{name}.md", f"cl_{name}", f"About {name}")
    vault = kit.scan()
    assert [run_write(vault, "withdraw", f"cl_{n}", f"rq-{n}", RUN) for n in ("tea", "cake")] == [
        "committed",
        "pending",
    ]
    assert [row["reason"] for row in pending(vault)] == [publish.BATCHED]
    vault.history.maintain()
    assert pending(vault) == []
    assert vault.resume("rq-cake")["git"]["state"] == "committed"
