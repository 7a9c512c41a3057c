"""Annotate (spec: corrections-and-merges, Supersede claims by an existing claim: link them
first with annotate)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.write.operations.annotate import plan_annotate
from knowledge_desktop.engine.write.operations.supersede import plan_supersede
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import (
    CHANGE,
    VaultKit,
    apply_plan,
    changed_lines,
    frontmatter_of,
    read_fence,
    write_context,
)


@pytest.fixture
def claims(kit: VaultKit) -> VaultKit:
    kit.page("private/projects/pr.md", "pg_pr", "PR 42", type="project")
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red")
    kit.claim("private/claims/merged.md", "cl_merged", "PR 42 merged", entities=["pg_ada"])
    kit.scan()
    return kit


def test_annotate_adds_entities_and_nothing_else(claims: VaultKit) -> None:
    """Annotate: the claim gains the pages in entities; those it named stay first."""
    vault = claims.scan()
    old = (claims.root / "private/claims/merged.md").read_bytes()
    ctx = write_context(vault)
    plan = plan_annotate(ctx, read_fence(vault, "cl_merged"), ["pg_pr", "pg_ada", "pg_pr"])
    (write,) = plan.writes
    assert frontmatter_of(write.data)["entities"] == ["pg_ada", "pg_pr"]
    gone, _ = changed_lines(old, write.data)
    assert {line.split(":")[0].strip("- ") for line in gone} <= {
        "revision",
        "updated_at",
        "entities",
        "pg_ada",
    }
    assert plan.operation == "annotate"
    assert plan.extra == {"addedEntities": ["pg_pr"]}
    assert plan.guards == []
    assert set(ctx.ontology_fences) == {"private"}


def test_annotating_makes_a_supersession_possible(claims: VaultKit) -> None:
    """Supersede: link them first with annotate."""
    vault = claims.scan()
    apply_plan(vault, plan_annotate(write_context(vault), read_fence(vault, "cl_ci"), ["pg_pr"]))
    apply_plan(vault, plan_annotate(write_context(vault), read_fence(vault, "cl_merged"), ["pg_pr"]))
    plan = plan_supersede(
        write_context(vault), read_fence(vault, "cl_merged"), [read_fence(vault, "cl_ci")], "done"
    )
    assert [w.record_id for w in plan.writes] == ["cl_ci"]


@pytest.mark.parametrize(
    ("entity", "code"),
    [("pg_nobody", "entity-invalid"), ("cl_ci", "entity-invalid"), ("pg_gone", "entity-invalid")],
)
def test_only_available_pages_of_the_partition_can_be_linked(
    claims: VaultKit, entity: str, code: str
) -> None:
    """Annotate: entities reference pages (records-and-ontology, Claims)."""
    claims.page("private/people/gone.md", "pg_gone", "Gone", type="person", lifecycle="withdrawn",
                lifecycle_change=CHANGE)  # fmt: skip
    vault = claims.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_annotate(write_context(vault), read_fence(vault, "cl_merged"), [entity])
    assert caught.value.code == code


def test_a_merged_page_is_refused_with_its_survivor(claims: VaultKit) -> None:
    """Merge duplicate pages: a new write naming a merged page is rejected with the survivor."""
    claims.page("private/projects/dup.md", "pg_dup", "PR #42", type="project", lifecycle="merged",
                merged_into="pg_pr")  # fmt: skip
    vault = claims.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_annotate(write_context(vault), read_fence(vault, "cl_merged"), ["pg_dup"])
    assert caught.value.code == "merged-target"
    assert caught.value.current["survivorId"] == "pg_pr"


def test_only_claims_are_annotated_and_something_must_change(claims: VaultKit) -> None:
    """Annotate links a claim; naming only pages it names already changes nothing."""
    vault = claims.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_annotate(write_context(vault), read_fence(vault, "pg_ada"), ["pg_pr"])
    assert caught.value.code == "not-a-claim"
    with pytest.raises(WriteRejected) as caught:
        plan_annotate(write_context(vault), read_fence(vault, "cl_merged"), ["pg_ada"])
    assert caught.value.code == "no-change"
