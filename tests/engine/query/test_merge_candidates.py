"""Merge candidates (spec: corrections-and-merges, Merge duplicate pages: mergeCandidates)."""

from __future__ import annotations

from tests.vaultkit import CHANGE, VaultKit


def groups(kit: VaultKit) -> list[tuple[str, str, list[str]]]:
    return [(g["strength"], g["key"], [p["id"] for p in g["pages"]]) for g in kit.scan().merge_candidates()]


def test_a_shared_identity_alias_is_a_strong_candidate(kit: VaultKit) -> None:
    """Pages of one type sharing a namespaced identity alias (email:, github:, discord:)."""
    kit.page("private/people/a.md", "pg_a", "Ada Lovelace", type="person", aliases=["email:Ada@Example.org"])
    kit.page("private/people/b.md", "pg_b", "A. King", type="person", aliases=["email:ada@example.org"])
    kit.page("private/people/c.md", "pg_c", "Charles", type="person", aliases=["github:cb", "discord:42"])
    kit.page("private/people/d.md", "pg_d", "Babbage", type="person", aliases=["discord:42"])
    assert groups(kit) == [
        ("strong", "discord:42", ["pg_c", "pg_d"]),
        ("strong", "email:ada@example.org", ["pg_a", "pg_b"]),
    ]


def test_an_exact_normalised_title_is_a_weak_candidate(kit: VaultKit) -> None:
    """The same title once normalised (case, spacing, NFKC) is a weak candidate; a shared
    plain alias or a similar name is none."""
    kit.page("private/people/a.md", "pg_a", "Ada  Lovelace", type="person", aliases=["Ada"])
    kit.page("private/people/b.md", "pg_b", "ada lovelace", type="person")
    kit.page("private/people/c.md", "pg_c", "Ada Lovelace-King", type="person", aliases=["Ada"])
    assert groups(kit) == [("weak", "ada lovelace", ["pg_a", "pg_b"])]


def test_only_current_pages_of_one_type_and_partition_count(kit: VaultKit) -> None:
    """Merging across types is not supported; merged and withdrawn pages are decided."""
    alias = ["email:ada@example.org"]
    kit.page("private/people/a.md", "pg_a", "Ada", type="person", aliases=alias)
    kit.page("private/companies/b.md", "pg_b", "Ada", type="company", aliases=alias)
    kit.page("private/people/c.md", "pg_c", "Ada", type="person", aliases=alias, lifecycle="withdrawn",
             lifecycle_change=CHANGE)  # fmt: skip
    kit.page("work/people/d.md", "pg_d", "Ada", type="person", aliases=alias)
    kit.claim("private/claims/e.md", "cl_e", "Ada", aliases=alias)
    assert groups(kit) == []


def test_a_strong_group_hides_the_weak_one_of_the_same_pages(kit: VaultKit) -> None:
    """A pair that shares both an identity alias and a title is listed once, as strong."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person", aliases=["github:ada"])
    kit.page("private/people/b.md", "pg_b", "Ada", type="person", aliases=["github:ada"])
    assert groups(kit) == [("strong", "github:ada", ["pg_a", "pg_b"])]


def test_an_address_is_no_identity(kit: VaultKit) -> None:
    """A URL alias is an address, not a namespaced identity."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person", aliases=["https://ada.example.org"])
    kit.page("private/people/b.md", "pg_b", "Grace", type="person", aliases=["https://ada.example.org"])
    assert groups(kit) == []
