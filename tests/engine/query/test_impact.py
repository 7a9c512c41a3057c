"""Impact: transitive dependents through dependencies, entities, owner and relationship
endpoints (spec: corrections-and-merges, Impact and visibility)."""

from __future__ import annotations

from knowledge_desktop.engine.query.impact import impact
from tests.vaultkit import CHANGE, VaultKit


def test_impact_follows_every_dependency_edge_transitively(kit: VaultKit) -> None:
    """Direct dependents by entities, owner and endpoints, their dependents by dependencies,
    each once and nearest first; withdrawn and unrelated records are left out."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    kit.claim("private/claims/likes.md", "cl_likes", "Ada likes tea", entities=["pg_ada"])
    kit.claim("private/claims/owes.md", "cl_owes", "Ada owes", claim_kind="commitment", owner="pg_ada")
    kit.relationship("private/relationships/works.md", "rl_works", "pg_ada", "pg_acme", "works_at")
    kit.claim("private/claims/follow.md", "cl_follow", "Follows from tea", dependencies=["cl_likes"])
    kit.claim("private/claims/deeper.md", "cl_deeper", "Follows further", dependencies=["cl_follow"])
    kit.claim(
        "private/claims/gone.md",
        "cl_gone",
        "Withdrawn",
        entities=["pg_ada"],
        lifecycle="withdrawn",
        lifecycle_change=CHANGE,
    )
    kit.claim("private/claims/other.md", "cl_other", "About Acme only", entities=["pg_acme"])
    vault = kit.scan()
    found = impact(vault.store.reader(), ["pg_ada"])
    assert [(i["id"], i["via"], i["depth"]) for i in found] == [
        ("cl_likes", "entities", 1),
        ("cl_owes", "owner", 1),
        ("rl_works", "from", 1),
        ("cl_follow", "dependencies", 2),
        ("cl_deeper", "dependencies", 3),
    ]
    assert found[3]["through"] == "cl_likes"
    assert impact(vault.store.reader(), ["cl_deeper"]) == []
