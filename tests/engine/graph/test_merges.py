"""The graph in memory: references and links followed through merge chains."""

from __future__ import annotations

from knowledge_desktop.engine.limits import MAX_MERGE_HOPS
from tests.vaultkit import GraphKit


def merged_chain(kit: GraphKit, hops: int) -> None:
    """pg_0 merged into pg_1 … into pg_<hops>, which is active."""
    for i in range(hops):
        kit.page(
            f"people/p{i}.md",
            f"pg_{i}",
            f"Person {i}",
            type="person",
            lifecycle="merged",
            merged_into=f"pg_{i + 1}",
        )
    kit.page(f"people/p{hops}.md", f"pg_{hops}", f"Person {hops}", type="person")


def test_a_reference_and_a_link_to_a_merged_page_reach_the_survivor() -> None:
    kit = GraphKit()
    merged_chain(kit, 2)
    kit.claim("claims/c.md", "cl_1", "About person 0", entities=["pg_0"])
    kit.page("notes/n.md", "pg_note", "Note", body="[[Person 0]]\n")
    (ref,) = kit.derived("claims/c.md").refs
    assert (ref.status, ref.resolved_id) == ("resolved", "pg_2")
    assert kit.derived("claims/c.md").depends_on == ("pg_2",)
    assert kit.eligible("claims/c.md")
    assert kit.links("notes/n.md") == [("resolved", "pg_2")]
    assert "merge-chain-invalid" not in kit.codes("people/p0.md")


def test_a_merge_cycle_is_invalid_and_breaks_what_points_into_it() -> None:
    kit = GraphKit()
    kit.page("people/a.md", "pg_a", "A", type="person", lifecycle="merged", merged_into="pg_b")
    kit.page("people/b.md", "pg_b", "B", type="person", lifecycle="merged", merged_into="pg_a")
    kit.claim("claims/c.md", "cl_1", "About A", entities=["pg_a"])
    kit.page("notes/n.md", "pg_note", "Note", body="[[B]]\n")
    assert kit.codes("people/a.md") == ["merge-chain-invalid"]
    assert not kit.derived("people/a.md").valid
    assert not kit.derived("people/b.md").valid
    assert kit.derived("claims/c.md").refs[0].status == "broken-merge"
    assert "merge-chain-invalid" in kit.codes("claims/c.md")
    assert not kit.eligible("claims/c.md")
    assert kit.links("notes/n.md") == [("broken-merge", "pg_b")]

    # Making B the survivor mends the chain, and re-derives all who followed it.
    redone = kit.page("people/b.md", "pg_b", "B", type="person")
    assert {"private/people/a.md", "private/claims/c.md", "private/notes/n.md"} <= redone
    assert kit.derived("people/a.md").valid
    assert kit.eligible("claims/c.md")
    assert kit.links("notes/n.md") == [("resolved", "pg_b")]


def test_a_chain_is_followed_up_to_the_hop_limit_and_no_further() -> None:
    kit = GraphKit()
    merged_chain(kit, MAX_MERGE_HOPS)
    assert kit.derived("people/p0.md").valid

    kit = GraphKit()
    merged_chain(kit, MAX_MERGE_HOPS + 1)
    assert not kit.derived("people/p0.md").valid
    assert kit.codes("people/p0.md") == ["merge-chain-invalid"]
    assert kit.derived("people/p1.md").valid  # one hop shorter: within the limit
