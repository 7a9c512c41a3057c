"""The graph in memory: details let go after a write come back from the parse cache."""

from __future__ import annotations

from knowledge_desktop.engine.graph.derived import Derived
from tests.vaultkit import GraphKit


def build(kit: GraphKit) -> None:
    kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", fields={"role": "poet"})
    kit.claim("claims/c1.md", "cl_1", "Ada likes tea", entities=["pg_ada"], body="[[Ada Lovelace]]\n")
    kit.claim("claims/c2.md", "cl_2", "So she drinks it", dependencies=["cl_1"], body="[[Nobody]]\n")


def findings(derived: Derived) -> tuple[object, ...]:
    return (
        derived.valid,
        derived.deps_ok,
        derived.link_results,
        derived.refs,
        derived.evidence,
        [(d.code, d.line) for d in derived.diagnostics],
    )


def test_a_released_graph_derives_again_what_a_graph_holding_everything_derives() -> None:
    released, held = GraphKit(release_details=True), GraphKit()
    for kit in (released, held):
        build(kit)
    released.graph.release()
    assert released.graph.details is not None
    assert released.graph.details.holding == 0
    assert not any(node.holds_detail for node in released.graph.nodes.values())
    assert not any(d.complete for d in released.graph.derived.values())

    # cl_2 is not derived again, but its eligibility flips: its findings come back whole.
    for kit in (released, held):
        redone = kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", lifecycle="withdrawn")
        assert redone == {"private/people/ada.md", "private/claims/c1.md", "private/claims/c2.md"}
    for path in held.graph.derived:
        assert findings(released.graph.derived[path]) == findings(held.graph.derived[path]), path
    assert released.graph.nodes["private/people/ada.md"].value("title") == "Ada Lovelace"


def test_field_values_are_checked_against_the_page_type() -> None:
    kit = GraphKit()
    kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", fields={"role": 5})
    assert kit.codes("people/ada.md") == ["field-invalid"]
    assert not kit.derived("people/ada.md").valid
    kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", fields={"role": "poet", "x": 1})
    assert kit.codes("people/ada.md") == ["field-undeclared"]
    assert kit.derived("people/ada.md").valid


def test_an_impossible_meeting_date_is_date_invalid_like_a_claims() -> None:
    """A meeting's fields.occurred_at is a structured date: 2026-02-30 makes the page
    invalid with date-invalid on the field's line, as a claim's occurred_at does
    (spec: records-and-ontology, the date forms of the assertion fields)."""
    kit = GraphKit()
    kit.page("meetings/m.md", "pg_m", "Kickoff", type="meeting", fields={"occurred_at": "2026-02-30"})
    assert kit.codes("meetings/m.md") == ["date-invalid"]
    derived = kit.derived("meetings/m.md")
    assert not derived.valid
    (finding,) = derived.diagnostics
    assert "2026-02-30" in finding.message
    assert "fields.occurred_at" in finding.message
    line = kit.graph.nodes["private/meetings/m.md"].key_lines.get("fields.occurred_at")
    assert line is not None
    assert finding.line == line
    for good in ("2026-02-28", "2026-02-28T09:30:00+01:00"):
        kit.page("meetings/m.md", "pg_m", "Kickoff", type="meeting", fields={"occurred_at": good})
        assert kit.codes("meetings/m.md") == []
        assert kit.derived("meetings/m.md").valid
    kit.page("meetings/m.md", "pg_m", "Kickoff", type="meeting", fields={"occurred_at": "2026-02-28T09:30"})
    assert kit.codes("meetings/m.md") == ["date-invalid"]


def test_a_reference_that_must_name_a_page_refuses_a_claim() -> None:
    kit = GraphKit()
    build(kit)
    kit.claim("claims/c3.md", "cl_3", "About a claim", entities=["cl_1"])
    assert kit.derived("claims/c3.md").refs[0].status == "wrong-kind"
    assert kit.codes("claims/c3.md") == ["reference-wrong-kind"]
    assert not kit.eligible("claims/c3.md")
