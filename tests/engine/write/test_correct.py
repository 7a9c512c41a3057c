"""Correct (spec: corrections-and-merges, Correct a claim or relationship)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.write.operations.correct import plan_correct
from knowledge_desktop.engine.write.plan import GuardChange, WriteRejected
from tests.vaultkit import (
    CHANGE,
    NOW,
    VaultKit,
    apply_plan,
    changed_lines,
    frontmatter,
    frontmatter_of,
    read_fence,
    write_context,
)

CLAIM = {
    "kind": "claim",
    "title": "Ada likes coffee",
    "claim_kind": "fact",
    "assertion_origin": "source",
    "attribution": "Ada, later that day",
    "evidence": [{"url": "https://example.org/notes#later"}],
}


def draft(fields: dict[str, object], body: str = "Ada likes coffee, not tea.\n") -> bytes:
    return f"---\n{frontmatter(fields)}---\n{body}".encode()


@pytest.fixture
def tea(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/mug.md", "cl_mug", "So she owns a mug", dependencies=["cl_tea"])
    kit.scan()
    return kit


def test_a_correction_supersedes_the_original_with_a_new_record(tea: VaultKit) -> None:
    """Correct: the original keeps its content and gets a new revision with lifecycle
    superseded, superseded_by and lifecycle_change; the replacement is revision 1 with
    supersedes; both in one plan (one journal entry, one receipt)."""
    vault = tea.scan()
    old = (tea.root / "private/claims/tea.md").read_bytes()
    plan = plan_correct(
        write_context(vault, actor="grace"),
        read_fence(vault, "cl_tea"),
        draft({**CLAIM, "entities": ["pg_ada"]}),
        "she said coffee",
    )
    original, replacement = plan.writes
    assert original.path == "private/claims/tea.md"
    assert original.revision == 2
    kept = frontmatter_of(original.data)
    assert kept["lifecycle"] == "superseded"
    assert kept["superseded_by"] == plan.replacement_id
    assert kept["lifecycle_change"] == {
        "reason": "she said coffee",
        "at": NOW,
        "actor": "grace",
        "request_id": "req-1",
    }
    gone, _added = changed_lines(old, original.data)
    assert {line.split(":")[0] for line in gone} == {"revision", "updated_at", "lifecycle"}
    assert original.data.endswith(old.split(b"---\n", 2)[2])  # the body and evidence stay
    new = frontmatter_of(replacement.data)
    assert replacement.expected_sha256 is None
    assert replacement.revision == 1
    assert replacement.path == "private/claims/ada-likes-coffee.md"
    assert new["id"] == plan.replacement_id
    assert new["id"].startswith("cl_")
    assert (new["revision"], new["lifecycle"], new["supersedes"]) == (1, "active", "cl_tea")
    assert (new["recorded_at"], new["updated_at"], new["scope"]) == (NOW, NOW, "private")
    assert new["format"] == "knowledge-record-v1"
    assert replacement.data.endswith(b"---\nAda likes coffee, not tea.\n")
    assert plan.operation == "correct"
    assert plan.target_id == "cl_tea"
    assert plan.guards == [GuardChange("private", "cl_tea", "superseded", plan.replacement_id)]
    assert plan.impact_of == ["cl_tea"]


def test_after_a_correction_reads_show_the_replacement(tea: VaultKit) -> None:
    """Impact and visibility: the original leaves default reads, the replacement is current."""
    vault = tea.scan()
    plan = plan_correct(write_context(vault), read_fence(vault, "cl_tea"), draft(CLAIM), "coffee")
    apply_plan(vault, plan)
    assert tea.row("cl_tea")["lifecycle"] == "superseded"
    assert tea.row(plan.replacement_id or "")["eligible"]
    assert vault.lookup("Ada likes coffee")["record"]["id"] == plan.replacement_id


def test_a_relationship_is_corrected_into_its_label_directory(kit: VaultKit) -> None:
    """Correct: explicit relationships are corrected like claims."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    kit.page("private/companies/initech.md", "pg_ini", "Initech", type="company")
    kit.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_acme", "works_at")
    vault = kit.scan()
    fixed = {
        "kind": "relationship",
        "title": "Ada works at Initech",
        "from": "pg_ada",
        "to": "pg_ini",
        "label": "works_at",
        "attribution": "HR",
        "evidence": [{"url": "https://example.org/hr"}],
    }
    plan = plan_correct(write_context(vault), read_fence(vault, "rl_1"), draft(fixed, ""), "other company")
    assert plan.writes[1].path == "private/relationships/ada-works-at-initech.md"
    assert frontmatter_of(plan.writes[1].data)["supersedes"] == "rl_1"


def test_pages_are_not_corrected(tea: VaultKit) -> None:
    """Correct: pages are edited with save or edit-body instead."""
    vault = tea.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_correct(write_context(vault), read_fence(vault, "pg_ada"), draft(CLAIM), "x")
    assert caught.value.code == "not-correctable"


def test_only_an_active_valid_target_is_corrected(tea: VaultKit) -> None:
    """Correct: the target is a valid active (or expired) claim or relationship."""
    tea.claim("private/claims/new.md", "cl_new", "Newer")
    tea.claim(
        "private/claims/old.md",
        "cl_old",
        "Older",
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=CHANGE,
    )
    tea.claim("private/claims/bad.md", "cl_bad", "Broken", entities=["pg_nobody"])
    tea.claim("private/claims/exp.md", "cl_exp", "Expired", expires_at="2020-01-01T00:00:00.000Z")
    vault = tea.scan()
    for record_id in ("cl_old", "cl_bad"):
        with pytest.raises(WriteRejected) as caught:
            plan_correct(write_context(vault), read_fence(vault, record_id), draft(CLAIM), "x")
        assert caught.value.code == "not-active"
    plan = plan_correct(write_context(vault), read_fence(vault, "cl_exp"), draft(CLAIM), "renewed")
    assert plan.replacement_id


def test_the_replacement_is_validated_like_a_create(tea: VaultKit) -> None:
    """Correct: a replacement of the same kind, valid, and without store-owned keys."""
    vault = tea.scan()
    cases = [
        ({**CLAIM, "kind": "relationship"}, "kind-mismatch"),
        ({k: v for k, v in CLAIM.items() if k != "evidence"}, "invalid-record"),
        ({**CLAIM, "id": "cl_mine"}, "assigned-field"),
        ({**CLAIM, "superseded_by": "cl_x"}, "assigned-field"),
        ({**CLAIM, "scope": "work"}, "scope-mismatch"),
        ({**CLAIM, "entities": ["pg_nobody"]}, "invalid-record"),
    ]
    for fields, code in cases:
        with pytest.raises(WriteRejected) as caught:
            plan_correct(write_context(vault), read_fence(vault, "cl_tea"), draft(fields), "x")
        assert caught.value.code == code, fields
    with pytest.raises(WriteRejected) as caught:
        plan_correct(write_context(vault), read_fence(vault, "cl_tea"), b"no frontmatter\n", "x")
    assert caught.value.code == "invalid-record"


def test_the_replacement_cannot_depend_on_the_original_or_its_dependents(tea: VaultKit) -> None:
    """Correct: the replacement cannot depend on the original or its dependents."""
    vault = tea.scan()
    for depends in (["cl_tea"], ["cl_mug"]):
        with pytest.raises(WriteRejected) as caught:
            plan_correct(
                write_context(vault),
                read_fence(vault, "cl_tea"),
                draft({**CLAIM, "dependencies": depends}),
                "x",
            )
        assert caught.value.code == "depends-on-original"
        assert caught.value.current["ids"] == depends


def test_a_replacement_naming_a_merged_page_is_refused_with_the_survivor(tea: VaultKit) -> None:
    """Merge duplicate pages: new writes that reference a merged page are rejected with
    the survivor's id."""
    tea.page(
        "private/people/al.md", "pg_al", "A. L.", type="person", lifecycle="merged", merged_into="pg_ada"
    )
    vault = tea.scan()
    with pytest.raises(WriteRejected) as caught:
        plan_correct(
            write_context(vault), read_fence(vault, "cl_tea"), draft({**CLAIM, "entities": ["pg_al"]}), "x"
        )
    assert caught.value.code == "merged-target"
    assert caught.value.current["survivorId"] == "pg_ada"


def test_a_correction_is_fenced_by_the_ontology_fingerprint(tea: VaultKit) -> None:
    """Fingerprints (records-and-ontology): assertion writes require the current fingerprint."""
    from dataclasses import replace

    vault = tea.scan()
    ctx = write_context(vault)
    ctx.request = replace(ctx.request, expected_ontology_fingerprint="0" * 64)
    with pytest.raises(WriteRejected) as caught:
        plan_correct(ctx, read_fence(vault, "cl_tea"), draft(CLAIM), "x")
    assert caught.value.code == "fence-ontology"
    ctx = write_context(vault)
    plan_correct(ctx, read_fence(vault, "cl_tea"), draft(CLAIM), "x")
    assert set(ctx.ontology_fences) == {"private"}
