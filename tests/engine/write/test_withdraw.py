"""Withdraw (spec: corrections-and-merges, Withdraw a record; records-and-ontology,
Lifecycle and merge metadata)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import GuardChange, WriteRejected
from tests.vaultkit import (
    CHANGE,
    NOW,
    VaultKit,
    apply_plan,
    changed_lines,
    frontmatter_of,
    read_fence,
    write_context,
)

HAND_WRITTEN = """---
format: knowledge-record-v1
id: cl_tea
revision: 3   # bumped by hand
kind: claim
title: 'Ada likes tea'
recorded_at: 2026-09-28T18:30:00.000Z
updated_at: "2026-09-28T18:30:00.000Z"
scope: private
lifecycle: active
# who said it
claim_kind: fact
assertion_origin: source
attribution: Ada in the stand-up
evidence:
- url: https://example.org/notes
tags: [drinks,   morning]
x-custom:
    nested: {a: 1}
---
Ada likes tea.   \r
Second line
"""


def test_withdrawing_a_claim_writes_one_new_revision_and_a_guard(kit: VaultKit) -> None:
    """Withdraw a record: a new revision with lifecycle withdrawn and lifecycle_change
    {reason, at, actor, request_id}; a durable withdrawal guard; dependents as impact."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    plan = plan_withdraw(write_context(vault, actor="grace"), read_fence(vault, "cl_tea"), "  wrong person ")
    (write,) = plan.writes
    data = frontmatter_of(write.data)
    assert data["lifecycle"] == "withdrawn"
    assert data["revision"] == 2
    assert write.revision == 2
    assert data["updated_at"] == NOW
    assert data["lifecycle_change"] == {
        "reason": "wrong person",
        "at": NOW,
        "actor": "grace",
        "request_id": "req-1",
    }
    assert plan.operation == "withdraw"
    assert plan.target_id == "cl_tea"
    assert plan.reason == "wrong person"
    assert plan.guards == [GuardChange("private", "cl_tea", "withdrawn", None)]
    assert plan.impact_of == ["cl_tea"]
    assert write.expected_sha256 == read_fence(vault, "cl_tea").sha256


def test_a_withdrawal_changes_only_the_keys_it_owns_byte_for_byte(kit: VaultKit) -> None:
    """Records: unknown frontmatter, comments, quoting, order and the body survive; only
    revision, updated_at and lifecycle change, and lifecycle_change is added."""
    kit.write("private/claims/tea.md", HAND_WRITTEN)
    vault = kit.scan()
    plan = plan_withdraw(write_context(vault), read_fence(vault, "cl_tea"), "wrong person")
    old = HAND_WRITTEN.encode()
    gone, added = changed_lines(old, plan.writes[0].data)
    assert gone == [
        "revision: 3   # bumped by hand",
        'updated_at: "2026-09-28T18:30:00.000Z"',
        "lifecycle: active",
    ]
    assert added[:3] == [
        "revision: 4   # bumped by hand",
        f'updated_at: "{NOW}"',
        "lifecycle: withdrawn",
    ]
    assert added[3].startswith("lifecycle_change:")
    assert plan.writes[0].data.endswith(b"---\nAda likes tea.   \r\nSecond line\n")


@pytest.mark.parametrize(
    ("rel", "record_id", "build"),
    [
        ("private/people/ada.md", "pg_ada", "page"),
        ("private/relationships/r.md", "rl_1", "relationship"),
        ("private/claims/old.md", "cl_old", "superseded"),
        ("private/claims/bad.md", "cl_bad", "invalid"),
    ],
)
def test_pages_relationships_superseded_and_invalid_records_can_be_withdrawn(
    kit: VaultKit, rel: str, record_id: str, build: str
) -> None:
    """Withdraw a record: a page, a claim or an explicit relationship, including a
    superseded one or one with validation findings."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/projects/p.md", "pg_p", "Engine", type="project")
    kit.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_p", "relates_to")
    kit.claim("private/claims/new.md", "cl_new", "Newer")
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Older",
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=CHANGE,
    )
    kit.claim("private/claims/bad.md", "cl_bad", "Broken", entities=["pg_nobody"])
    vault = kit.scan()
    assert kit.row(record_id)["valid"] is (build != "invalid")
    plan = plan_withdraw(write_context(vault), read_fence(vault, record_id), "retracted")
    assert [w.path for w in plan.writes] == [rel]
    assert frontmatter_of(plan.writes[0].data)["lifecycle"] == "withdrawn"
    if build == "superseded":
        assert frontmatter_of(plan.writes[0].data)["superseded_by"] == "cl_new"


def test_withdrawing_one_relationship_leaves_its_twin_alone(kit: VaultKit) -> None:
    """Withdraw a record: never the other relationships with the same endpoints."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/projects/p.md", "pg_p", "Engine", type="project")
    kit.relationship("private/relationships/r1.md", "rl_1", "pg_ada", "pg_p", "relates_to")
    kit.relationship("private/relationships/r2.md", "rl_2", "pg_ada", "pg_p", "relates_to")
    vault = kit.scan()
    plan = plan_withdraw(write_context(vault), read_fence(vault, "rl_1"), "duplicate")
    assert [w.record_id for w in plan.writes] == ["rl_1"]
    assert [g.record_id for g in plan.guards] == ["rl_1"]


def test_a_withdrawn_record_refuses_a_new_withdrawal(kit: VaultKit) -> None:
    """Withdraw a record: a withdrawn record rejects new withdrawal requests."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    apply_plan(vault, plan_withdraw(write_context(vault), read_fence(vault, "cl_tea"), "wrong"))
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault, request_id="req-2"), read_fence(vault, "cl_tea"), "again")
    assert caught.value.code == "already-withdrawn"
    assert caught.value.current["lifecycle"] == "withdrawn"


def test_a_guarded_record_whose_file_came_back_active_refuses_a_withdrawal_too(kit: VaultKit) -> None:
    """Recovery and safeguards: the guard, not the stale file, says it is withdrawn."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    stale = (kit.root / "private/claims/tea.md").read_bytes()
    apply_plan(vault, plan_withdraw(write_context(vault), read_fence(vault, "cl_tea"), "wrong"))
    kit.write("private/claims/tea.md", stale)
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault, request_id="req-2"), read_fence(vault, "cl_tea"), "again")
    assert caught.value.code == "already-withdrawn"


def test_a_stale_fence_is_refused_with_the_current_values(kit: VaultKit) -> None:
    """Fences: revision and hash must be what the writer saw; the error names the fence
    that failed and the current revision and hash."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    fence = read_fence(vault, "cl_tea")
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault), replace(fence, revision=7), "wrong")
    assert caught.value.code == "fence-revision"
    assert caught.value.current["revision"] == 1
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea", body="Edited outside.\n")
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault), fence, "wrong")
    assert caught.value.code == "fence-hash"
    assert caught.value.current["hash"] == read_fence(vault, "cl_tea").sha256


def test_a_merged_page_is_refused_with_its_survivor(kit: VaultKit) -> None:
    """Merge duplicate pages: writes naming a merged page are rejected with the survivor's id."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", merged_from=["pg_al"])
    kit.page(
        "private/people/al.md",
        "pg_al",
        "A. Lovelace",
        type="person",
        lifecycle="merged",
        merged_into="pg_ada",
    )
    vault = kit.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault), read_fence(vault, "pg_al"), "gone")
    assert caught.value.code == "merged-target"
    assert caught.value.current["survivorId"] == "pg_ada"


def test_a_blank_reason_is_refused(kit: VaultKit) -> None:
    """Withdraw a record: the reason is nonblank."""
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    vault = kit.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_withdraw(write_context(vault), read_fence(vault, "cl_tea"), "   ")
    assert caught.value.code == "reason-required"
