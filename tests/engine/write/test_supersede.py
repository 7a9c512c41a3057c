"""Supersede and its undo (spec: corrections-and-merges, Supersede claims by an existing claim)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.operations.correct import plan_correct
from knowledge_desktop.engine.write.operations.supersede import plan_supersede, plan_unsupersede
from knowledge_desktop.engine.write.plan import Fence, GuardChange, WriteRejected
from tests.vaultkit import (
    CHANGE,
    NOW,
    VaultKit,
    apply_plan,
    frontmatter,
    frontmatter_of,
    read_fence,
    write_context,
)

PR = "private/projects/pr.md"


@pytest.fixture
def pr(kit: VaultKit) -> VaultKit:
    """Two CI snapshots about one pull request, then the claim that it merged."""
    kit.page(PR, "pg_pr", "PR 42", type="project")
    kit.page("private/sources/log.md", "pg_log", "CI log", type="source")
    kit.claim("private/claims/ci1.md", "cl_ci1", "PR 42 CI red", entities=["pg_pr"])
    kit.claim("private/claims/ci2.md", "cl_ci2", "PR 42 CI green", entities=["pg_pr"])
    kit.claim("private/claims/merged.md", "cl_merged", "PR 42 merged", entities=["pg_pr"])
    kit.claim("private/claims/other.md", "cl_other", "Unrelated", entities=["pg_log"])
    kit.scan()
    return kit


def fences(vault: Vault, *ids: str) -> list[Fence]:
    return [read_fence(vault, i) for i in ids]


def rejected(call: Any) -> WriteRejected:
    with pytest.raises(WriteRejected) as caught:
        call()
    return caught.value


def test_earlier_claims_are_superseded_by_an_existing_one(pr: VaultKit) -> None:
    """Supersede: each earlier claim gets a new revision like a corrected original; by is
    not rewritten; one plan, receipt operation supersede with replacementId and impact."""
    vault = pr.scan()
    before_by = (pr.root / "private/claims/merged.md").read_bytes()
    ctx = write_context(vault, actor="grace")
    plan = plan_supersede(ctx, read_fence(vault, "cl_merged"), fences(vault, "cl_ci1", "cl_ci2"), "merged")
    assert [w.record_id for w in plan.writes] == ["cl_ci1", "cl_ci2"]
    for write in plan.writes:
        data = frontmatter_of(write.data)
        assert (data["lifecycle"], data["superseded_by"], data["revision"]) == ("superseded", "cl_merged", 2)
        assert data["lifecycle_change"] == {
            "reason": "merged",
            "at": NOW,
            "actor": "grace",
            "request_id": "req-1",
        }
    assert plan.operation == "supersede"
    assert plan.replacement_id == "cl_merged"
    assert plan.guards == [
        GuardChange("private", "cl_ci1", "superseded", "cl_merged"),
        GuardChange("private", "cl_ci2", "superseded", "cl_merged"),
    ]
    assert plan.impact_of == ["cl_ci1", "cl_ci2"]
    assert "private/claims/merged.md" in {p for p, _ in ctx.checked}  # by is fenced
    assert (pr.root / "private/claims/merged.md").read_bytes() == before_by
    apply_plan(vault, plan)
    assert pr.row("cl_ci1")["lifecycle"] == "superseded"
    assert pr.row("cl_merged")["eligible"]


def test_a_shared_source_page_or_a_merged_entity_counts_as_shared(pr: VaultKit) -> None:
    """Supersede: linked pages are entities or the source page, merge redirects followed."""
    pr.page(PR, "pg_pr", "PR 42", type="project", merged_from=["pg_dup"])
    pr.page("private/projects/dup.md", "pg_dup", "PR #42", type="project", lifecycle="merged",
            merged_into="pg_pr")  # fmt: skip
    pr.claim("private/claims/via-merge.md", "cl_vm", "PR 42 review", entities=["pg_dup"])
    pr.claim("private/claims/via-source.md", "cl_vs", "CI says", evidence=[{"source": "pg_log"}])
    pr.claim("private/claims/log-final.md", "cl_lf", "CI final", evidence=[{"source": "pg_log"}])
    vault = pr.scan()
    via_merge = plan_supersede(
        write_context(vault), read_fence(vault, "cl_merged"), fences(vault, "cl_vm"), "merged"
    )
    via_source = plan_supersede(
        write_context(vault), read_fence(vault, "cl_lf"), fences(vault, "cl_vs"), "final"
    )
    for plan, path, earlier, by in (
        (via_merge, "private/claims/via-merge.md", "cl_vm", "cl_merged"),
        (via_source, "private/claims/via-source.md", "cl_vs", "cl_lf"),
    ):
        assert [(w.path, w.record_id, w.revision) for w in plan.writes] == [(path, earlier, 2)]
        written = plan.writes[0].data
        assert written is not None
        data = frontmatter_of(written)
        assert (data["lifecycle"], data["superseded_by"]) == ("superseded", by)
        assert plan.guards == [GuardChange("private", earlier, "superseded", by)]


def test_claims_about_different_subjects_are_refused(pr: VaultKit) -> None:
    """Supersede: each earlier claim shares at least one linked page with by."""
    vault = pr.scan()
    error = rejected(
        lambda: plan_supersede(
            write_context(vault), read_fence(vault, "cl_merged"), fences(vault, "cl_other"), "x"
        )
    )
    assert error.code == "no-shared-page"
    assert "annotate" in error.message


def test_one_to_twenty_five_earlier_claims_each_once_and_not_by(pr: VaultKit) -> None:
    """Supersede: 1 to 25 fences, each listed once, other than by."""
    vault = pr.scan()
    by = read_fence(vault, "cl_merged")
    ci1 = read_fence(vault, "cl_ci1")
    assert rejected(lambda: plan_supersede(write_context(vault), by, [], "x")).code == "supersede-count"
    many = [Fence(f"cl_{n}", 1, "0" * 64) for n in range(26)]
    assert rejected(lambda: plan_supersede(write_context(vault), by, many, "x")).code == "supersede-count"
    assert rejected(lambda: plan_supersede(write_context(vault), by, [ci1, ci1], "x")).code == "listed-twice"
    assert rejected(lambda: plan_supersede(write_context(vault), by, [by], "x")).code == "supersede-self"


@pytest.mark.parametrize(
    "by_extra",
    [
        {"expires_at": "2020-01-01T00:00:00.000Z"},
        {"lifecycle": "withdrawn", "lifecycle_change": CHANGE},
        {"dependencies": ["cl_gone"]},
    ],
    ids=["expired", "withdrawn", "hidden-by-dependency"],
)
def test_by_must_be_current(pr: VaultKit, by_extra: dict[str, Any]) -> None:
    """Supersede: by is active, not expired, and not hidden by an unavailable dependency."""
    pr.claim("private/claims/merged.md", "cl_merged", "PR 42 merged", entities=["pg_pr"], **by_extra)
    vault = pr.scan()
    error = rejected(
        lambda: plan_supersede(
            write_context(vault), read_fence(vault, "cl_merged"), fences(vault, "cl_ci1"), "x"
        )
    )
    assert error.code == "by-not-current"


def test_earlier_claims_must_be_active_claims(pr: VaultKit) -> None:
    """Supersede: each earlier claim is an active claim (so no cycle can form)."""
    pr.claim("private/claims/ci1.md", "cl_ci1", "PR 42 CI red", entities=["pg_pr"], lifecycle="superseded",
             superseded_by="cl_ci2", lifecycle_change=CHANGE)  # fmt: skip
    vault = pr.scan()
    by = read_fence(vault, "cl_merged")
    error = rejected(lambda: plan_supersede(write_context(vault), by, fences(vault, "cl_ci1"), "x"))
    assert error.code == "not-active"
    error = rejected(lambda: plan_supersede(write_context(vault), by, fences(vault, "pg_pr"), "x"))
    assert error.code == "not-a-claim"


def test_undo_restores_the_claims_and_lifts_their_guards(pr: VaultKit) -> None:
    """Supersede undo: the same by and the claims' current fences; each becomes active
    without superseded_by, lifecycle_change gives the undo reason, operation unsupersede."""
    vault = pr.scan()
    apply_plan(
        vault,
        plan_supersede(
            write_context(vault), read_fence(vault, "cl_merged"), fences(vault, "cl_ci1", "cl_ci2"), "m"
        ),
    )
    ctx = write_context(vault, request_id="req-2")
    plan = plan_unsupersede(
        ctx, read_fence(vault, "cl_merged"), fences(vault, "cl_ci1", "cl_ci2"), "too early"
    )
    assert plan.operation == "unsupersede"
    for write in plan.writes:
        data = frontmatter_of(write.data)
        assert data["lifecycle"] == "active"
        assert "superseded_by" not in data
        assert data["lifecycle_change"]["reason"] == "too early"
        assert data["lifecycle_change"]["request_id"] == "req-2"
        assert write.revision == 3
    assert plan.guards == [
        GuardChange("private", "cl_ci1", "superseded", "cl_merged", lift=True),
        GuardChange("private", "cl_ci2", "superseded", "cl_merged", lift=True),
    ]
    apply_plan(vault, plan, "req-2")
    assert pr.row("cl_ci1")["eligible"]
    assert "lifecycle-guarded" not in pr.codes()


def test_undo_needs_the_same_by(pr: VaultKit) -> None:
    """Supersede undo: only the supersession by that claim is undone."""
    vault = pr.scan()
    apply_plan(
        vault,
        plan_supersede(write_context(vault), read_fence(vault, "cl_merged"), fences(vault, "cl_ci1"), "m"),
    )
    error = rejected(
        lambda: plan_unsupersede(
            write_context(vault), read_fence(vault, "cl_ci2"), fences(vault, "cl_ci1"), "x"
        )
    )
    assert error.code == "not-superseded-by"
    assert error.current["supersededBy"] == "cl_merged"


def test_undo_refuses_a_claim_that_correct_replaced(pr: VaultKit) -> None:
    """Supersede undo: a claim replaced by correct is refused; its replacement is a new
    version of it."""
    vault = pr.scan()
    fixed = {
        "kind": "claim",
        "title": "PR 42 CI red (flaky)",
        "claim_kind": "fact",
        "assertion_origin": "source",
        "attribution": "CI",
        "entities": ["pg_pr"],
        "evidence": [{"url": "https://ci.example.org/42"}],
    }
    draft = f"---\n{frontmatter(fixed)}---\nFlaky.\n".encode()
    plan = plan_correct(write_context(vault), read_fence(vault, "cl_ci1"), draft, "flaky")
    apply_plan(vault, plan)
    replacement = plan.replacement_id or ""
    error = rejected(
        lambda: plan_unsupersede(
            write_context(vault), read_fence(vault, replacement), fences(vault, "cl_ci1"), "undo"
        )
    )
    assert error.code == "made-by-correct"
