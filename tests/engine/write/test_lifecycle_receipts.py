"""Lifecycle operations through the one publish path: receipts, retries, guards, reads
(spec: corrections-and-merges — Correct, Withdraw, Supersede, Impact and visibility,
Recovery and safeguards)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.operations.correct import plan_correct
from knowledge_desktop.engine.write.operations.supersede import plan_supersede, plan_unsupersede
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import Fence, WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.vaultkit import VaultKit, frontmatter, read_fence


def text(fence: Fence) -> str:
    return f"{fence.record_id}:{fence.revision}:{fence.sha256}"


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/projects/pr.md", "pg_pr", "PR 42", type="project")
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red", entities=["pg_pr"], body="CI is red.\n")
    kit.claim("private/claims/merged.md", "cl_merged", "PR 42 merged", entities=["pg_pr"])
    kit.claim("private/claims/mug.md", "cl_dep", "Depends on CI", dependencies=["cl_ci"])
    kit.claim("private/claims/dep2.md", "cl_dep2", "Depends on that", dependencies=["cl_dep"])
    return kit.scan()


def withdraw(vault: Vault, record_id: str, request_id: str, reason: str = "wrong") -> dict[str, Any]:
    fence = read_fence(vault, record_id)
    request = make_request("withdraw", {"fence": text(fence), "reason": reason}, request_id=request_id)
    return vault.write(request, lambda ctx: plan_withdraw(ctx, fence, reason))


def test_a_withdrawal_receipt_lists_the_changed_record_and_its_transitive_dependents(vault: Vault) -> None:
    """Impact and visibility: impact lists direct and transitive dependents; the receipt has
    operation, targetId, reason, items (id, revision, hash, path) and the git state."""
    receipt = withdraw(vault, "cl_ci", "rq-1")
    assert receipt["operation"] == "withdraw"
    assert receipt["targetId"] == "cl_ci"
    assert receipt["reason"] == "wrong"
    assert "replacementId" not in receipt
    (item,) = receipt["items"]
    assert (item["id"], item["revision"], item["path"]) == ("cl_ci", 2, "private/claims/ci.md")
    assert item["hash"] == read_fence(vault, "cl_ci").sha256
    assert [i["id"] for i in receipt["impact"]["items"]] == ["cl_dep", "cl_dep2"]
    assert receipt["git"]["state"] == "committed"
    assert vault.find("cl_ci")[0]["lifecycle"] == "withdrawn"
    assert not vault.find("cl_dep2")[0]["eligible"]  # reads hide dependents, nothing rewrites them


def test_the_first_withdrawal_request_stays_retryable(vault: Vault) -> None:
    """Withdraw a record: a withdrawn record rejects new withdrawal requests, while the
    original request stays retryable (same id and payload: the first receipt, nothing planned)."""
    fence = read_fence(vault, "cl_ci")
    payload = {"fence": text(fence), "reason": "wrong"}
    first = vault.write(
        make_request("withdraw", payload, request_id="rq-1"), lambda ctx: plan_withdraw(ctx, fence, "wrong")
    )
    retry = vault.write(
        make_request("withdraw", payload, request_id="rq-1"), lambda ctx: plan_withdraw(ctx, fence, "wrong")
    )
    assert retry == first
    with pytest.raises(WriteRejected) as caught:
        withdraw(vault, "cl_ci", "rq-2")
    assert caught.value.code == "already-withdrawn"


def test_a_correction_publishes_both_records_in_one_journal_entry(vault: Vault, kit: VaultKit) -> None:
    """Correct: both changes publish in one journal entry with one receipt, with replacementId."""
    fields = {
        "kind": "claim",
        "title": "PR 42 CI green",
        "claim_kind": "fact",
        "assertion_origin": "source",
        "attribution": "CI",
        "entities": ["pg_pr"],
        "evidence": [{"url": "https://ci.example.org/42"}],
    }
    draft = f"---\n{frontmatter(fields)}---\nCI is green.\n".encode()
    fence = read_fence(vault, "cl_ci")
    request = make_request("correct", {"fence": text(fence)}, request_id="rq-c")
    receipt = vault.write(request, lambda ctx: plan_correct(ctx, fence, draft, "rerun"))
    new_id = receipt["replacementId"]
    assert receipt["operation"] == "correct"
    assert [(i["id"], i["revision"]) for i in receipt["items"]] == [("cl_ci", 2), (new_id, 1)]
    assert vault.store.reader().execute("SELECT count(*) FROM journal").fetchone()[0] == 1
    hits = vault.grep(GrepQuery("red"))["hits"]
    assert [(h["id"], h.get("via", {}).get("id")) for h in hits] == [(new_id, "cl_ci")]
    guard = vault.store.reader().execute("SELECT guard, by_id FROM lifecycle_guards_v1").fetchall()
    assert guard == [("superseded", new_id)]


def test_supersede_and_undo_through_publish_leave_the_claims_as_they_were(vault: Vault) -> None:
    """Supersede: one journal entry, operation supersede, replacementId by; undo: operation
    unsupersede, the claims current again at once (the guard is lifted before the reconcile)."""
    by, ci = read_fence(vault, "cl_merged"), read_fence(vault, "cl_ci")
    receipt = vault.write(
        make_request("supersede", {"by": text(by), "fences": [text(ci)]}, request_id="rq-s"),
        lambda ctx: plan_supersede(ctx, by, [ci], "merged"),
    )
    assert (receipt["operation"], receipt["replacementId"]) == ("supersede", "cl_merged")
    assert [i["id"] for i in receipt["items"]] == ["cl_ci"]
    assert vault.find("cl_ci")[0]["lifecycle"] == "superseded"
    ci = read_fence(vault, "cl_ci")
    undo = vault.write(
        make_request("supersede", {"by": text(by), "fences": [text(ci)], "undo": True}, request_id="rq-u"),
        lambda ctx: plan_unsupersede(ctx, by, [ci], "too early"),
    )
    assert undo["operation"] == "unsupersede"
    row = vault.find("cl_ci")[0]
    assert (row["lifecycle"], row["eligible"]) == ("active", True)
    assert "lifecycle-guarded" not in {d.code for d in vault.diagnostics()}
    assert vault.store.reader().execute("SELECT count(*) FROM lifecycle_guards_v1").fetchone()[0] == 0
