"""The graph in memory: eligibility spreads to dependents, and windows meet."""

from __future__ import annotations

from knowledge_desktop.engine.graph.windows import intersect, own_window
from tests.vaultkit import GraphKit

ADA, C1, C2 = "people/ada.md", "claims/c1.md", "claims/c2.md"


def chain_of_dependents() -> GraphKit:
    """cl_1 names Ada; cl_2 depends only on cl_1."""
    kit = GraphKit()
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.claim(C1, "cl_1", "Ada likes tea", entities=["pg_ada"])
    kit.claim(C2, "cl_2", "So she drinks it", dependencies=["cl_1"])
    assert kit.eligible(C1)
    assert kit.eligible(C2)
    return kit


def test_withdrawing_a_page_makes_its_dependents_unavailable_and_restoring_it_brings_them_back() -> None:
    kit = chain_of_dependents()
    redone = kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", lifecycle="withdrawn")
    # cl_2 is not derived again (nothing it looked at changed) but its rows must be rewritten.
    assert redone == {"private/people/ada.md", "private/claims/c1.md", "private/claims/c2.md"}
    assert kit.derived(C1).valid
    assert not kit.derived(C1).deps_ok
    assert not kit.eligible(C2)

    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    assert kit.eligible(C1)
    assert kit.eligible(C2)


def test_removing_a_dependency_and_adding_it_back() -> None:
    kit = chain_of_dependents()
    redone = kit.write("private/people/ada.md", None)
    assert redone == {"private/people/ada.md", "private/claims/c1.md", "private/claims/c2.md"}
    assert "reference-missing" in kit.codes(C1)
    assert not kit.eligible(C1)
    assert not kit.eligible(C2)

    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    assert kit.codes(C1) == []
    assert kit.eligible(C1)
    assert kit.eligible(C2)


def test_a_dependency_cycle_among_available_records_stays_available() -> None:
    kit = GraphKit()
    kit.claim(C1, "cl_1", "One", dependencies=["cl_2"])
    kit.claim(C2, "cl_2", "Two", dependencies=["cl_1"])
    assert kit.eligible(C1)
    assert kit.eligible(C2)
    kit.claim(C2, "cl_2", "Two", dependencies=["cl_1"], lifecycle="withdrawn")
    assert not kit.eligible(C1)


def test_own_windows_are_half_open_and_expiry_includes_its_instant() -> None:
    assert own_window({"valid_from": "2026-01-01T00:00:00Z", "valid_until": "2026-06-01T00:00:00Z"}) == (
        "2026-01-01T00:00:00.000000Z",
        "2026-06-01T00:00:00.000000Z",
    )
    expiring = {"valid_until": "2026-06-01T00:00:00Z", "expires_at": "2026-03-01T00:00:00Z"}
    assert own_window(expiring) == (None, "2026-03-01T00:00:00.000001Z")
    assert own_window({"valid_from": "not a date"}) == (None, None)
    assert intersect(("a", None), (None, "b")) == ("a", "b")
    assert intersect(("b", "d"), ("a", "c")) == ("b", "c")


def test_a_record_counts_as_current_only_while_its_dependencies_do() -> None:
    kit = GraphKit()
    kit.claim(C1, "cl_1", "One", valid_from="2026-01-01T00:00:00Z", valid_until="2026-06-01T00:00:00Z")
    kit.claim(C2, "cl_2", "Two", dependencies=["cl_1"], valid_from="2026-03-01T00:00:00Z")
    assert kit.derived(C2).own_window == ("2026-03-01T00:00:00.000000Z", None)
    assert kit.derived(C2).window == ("2026-03-01T00:00:00.000000Z", "2026-06-01T00:00:00.000000Z")

    redone = kit.claim(C1, "cl_1", "One", valid_until="2026-04-01T00:00:00Z")
    assert "private/claims/c2.md" in redone
    assert kit.derived(C2).window == ("2026-03-01T00:00:00.000000Z", "2026-04-01T00:00:00.000000Z")
