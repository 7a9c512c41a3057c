"""The catalog pane's engine side: counts tree, paged branches, filter, facets, sort, locate."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.catalog_tree import Branch, CatalogQuery
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path
from tests.vaultkit import VaultKit


def small_vault(kit: VaultKit) -> Vault:
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", tags=["math"], aliases=["Countess"]
    )
    kit.page("private/people/bob.md", "pg_bob", "Bob", type="person", updated_at="2026-10-05T00:00:00Z")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company", tags=["client"])
    kit.page(
        "private/companies/old.md",
        "pg_old",
        "Old Acme",
        type="company",
        lifecycle="merged",
        merged_into="pg_acme",
    )
    kit.claim("private/claims/c1.md", "cl_1", "Ada wrote notes", entities=["pg_ada"])
    kit.claim("private/claims/c2.md", "cl_2", "Bob left", claim_kind="event", evidence=[])  # invalid
    kit.claim(
        "private/claims/c3.md",
        "cl_3",
        "Expired claim",
        expires_at="2020-01-01T00:00:00.000Z",
    )
    kit.relationship("private/relationships/r1.md", "rl_1", "pg_ada", "pg_acme", "works_at")
    kit.page("shared/people/eve.md", "pg_eve", "Eve", type="person")
    kit.write("private/notes/broken.md", "---\nformat: knowledge-record-v1\nid: x\n---\n")
    kit.write("README.md", "---\nformat: knowledge-record-v1\n---\n# A broken record, not a note\n")
    return kit.scan()


def partition(tree: dict[str, Any], scope: str | None) -> dict[str, Any]:
    return next(p for p in tree["partitions"] if p["scope"] == scope)


def type_counts(tree: dict[str, Any]) -> dict[tuple[str | None, str, str | None], int]:
    return {
        (p["scope"], k["kind"], t["type"]): t["count"]
        for p in tree["partitions"]
        for k in p["kinds"]
        for t in k["types"]
    }


def paths(vault: Vault, branch: Branch, q: CatalogQuery | None = None) -> list[str]:
    return [i["path"] for i in vault.catalog_branch(q or CatalogQuery(), branch, 0, 1000)["items"]]


def test_counts_per_partition_kind_and_type_match_the_records_inventory(tmp_path: Path) -> None:
    """The demo vault: every type count equals `knowledge records --all --type T --scope S`.
    A copy: opened in place, it wrote `.knowledge/` into the repository while another
    test process copied the same folder."""
    copy = tmp_path / "demo"
    shutil.copytree(demo_vault_path(), copy, ignore=shutil.ignore_patterns(".knowledge"))
    vault = Vault.open(copy)
    try:
        vault.reconcile()
        tree = vault.catalog_tree()
        everything = RecordFilter(include_ineligible=True, lifecycle="all")
        assert tree["total"] == vault.records(everything)["total"]
        assert tree["unrecognized"] == vault.counts()["unrecognized"]
        for (scope, kind, type_), count in type_counts(tree).items():
            listed = vault.records(
                RecordFilter(include_ineligible=True, lifecycle="all", scope=scope, kind=kind),
                limit=1000,
            )
            assert count == sum(1 for item in listed["items"] if item["type"] == type_), (scope, kind, type_)
        for part in tree["partitions"]:
            assert part["count"] == sum(k["count"] for k in part["kinds"])
    finally:
        vault.close()


def test_invalid_records_have_their_own_group_and_stay_under_their_type(kit: VaultKit) -> None:
    vault = small_vault(kit)
    tree = vault.catalog_tree()
    private = partition(tree, "private")
    assert private["invalid"] == 1
    assert "evidence" in private["invalidWhy"]
    assert paths(vault, Branch("invalid", "private")) == ["private/claims/c2.md"]
    assert "private/claims/c2.md" in paths(vault, Branch("type", "private", "claim", "event"))
    item = vault.catalog_branch(CatalogQuery(), Branch("invalid", "private"))["items"][0]
    assert item["valid"] is False
    assert "evidence" in item["problem"]


def test_unrecognized_files_are_grouped_per_partition_and_outside_partitions(kit: VaultKit) -> None:
    vault = small_vault(kit)
    tree = vault.catalog_tree()
    assert partition(tree, "private")["unrecognized"] == 1
    assert partition(tree, None)["unrecognized"] == 1
    assert partition(tree, None)["kinds"] == []
    assert tree["partitions"][-1]["scope"] is None  # files outside partitions come last
    assert paths(vault, Branch("unrecognized", "private")) == ["private/notes/broken.md"]
    item = vault.catalog_branch(CatalogQuery(), Branch("unrecognized", None))["items"][0]
    assert item["label"] == "README.md"
    assert item["problem"]


def test_filter_text_matches_title_alias_id_and_path(kit: VaultKit) -> None:
    vault = small_vault(kit)
    by_title = vault.catalog_tree(CatalogQuery(text="lovelace"))
    assert type_counts(by_title) == {("private", "page", "person"): 1}
    assert by_title["unrecognized"] == 0
    assert vault.catalog_tree(CatalogQuery(text="COUNTESS"))["total"] == 1  # alias, any case
    assert vault.catalog_tree(CatalogQuery(text="cl_3"))["total"] == 1  # id
    assert vault.catalog_tree(CatalogQuery(text="companies/"))["total"] == 2  # path
    assert vault.catalog_tree(CatalogQuery(text="broken"))["unrecognized"] == 1
    assert vault.catalog_tree(CatalogQuery(text="100%"))["total"] == 0  # LIKE wildcards are literal


def test_tag_facet_is_exact_and_hides_unrecognized_files(kit: VaultKit) -> None:
    vault = small_vault(kit)
    assert vault.catalog_tags() == ["client", "math"]
    tree = vault.catalog_tree(CatalogQuery(tag="math"))
    assert type_counts(tree) == {("private", "page", "person"): 1}
    assert tree["unrecognized"] == 0
    assert vault.catalog_tree(CatalogQuery(tag="mat"))["total"] == 0


def test_lifecycle_facet(kit: VaultKit) -> None:
    vault = small_vault(kit)
    assert vault.catalog_tree(CatalogQuery(lifecycle="all"))["total"] == 9
    assert vault.catalog_tree(CatalogQuery(lifecycle="merged"))["total"] == 1
    assert vault.catalog_tree(CatalogQuery(lifecycle="active"))["total"] == 8
    with pytest.raises(QueryError):
        vault.catalog_tree(CatalogQuery(lifecycle="candidate"))


def test_validity_facet(kit: VaultKit) -> None:
    vault = small_vault(kit)
    assert vault.catalog_tree(CatalogQuery(validity="invalid"))["total"] == 1
    assert vault.catalog_tree(CatalogQuery(validity="invalid"))["unrecognized"] == 2
    assert vault.catalog_tree(CatalogQuery(validity="valid"))["total"] == 8
    outside = vault.catalog_tree(CatalogQuery(validity="outside"))
    assert type_counts(outside) == {("private", "claim", "fact"): 1}
    current = vault.catalog_tree(CatalogQuery(validity="current"))
    # not current: the invalid claim, the merged page and the expired claim
    assert current["total"] == 6
    assert current["unrecognized"] == 0


def test_sort_orders(kit: VaultKit) -> None:
    vault = small_vault(kit)
    people = Branch("type", "private", "page", "person")
    assert paths(vault, people, CatalogQuery(sort="title")) == [
        "private/people/ada.md",
        "private/people/bob.md",
    ]
    assert paths(vault, people, CatalogQuery(sort="updated")) == [
        "private/people/bob.md",  # newest first
        "private/people/ada.md",
    ]
    invalid_and_all = paths(vault, Branch("invalid", "private"), CatalogQuery(sort="type"))
    assert invalid_and_all == ["private/claims/c2.md"]


def test_sort_by_type_groups_kinds_then_types(kit: VaultKit) -> None:
    for n in range(3):
        kit.claim(f"private/claims/bad-{n}.md", f"cl_b{n}", f"Z claim {n}", evidence=[])
    kit.page("private/projects/bad.md", "pg_bad", "A bad project", type="project", fields={"status": "bogus"})
    vault = kit.scan()
    listed = vault.catalog_branch(CatalogQuery(sort="type"), Branch("invalid", "private"), 0, 100)["items"]
    assert [i["kind"] for i in listed] == ["claim", "claim", "claim", "page"]


def test_branch_pages_and_totals(kit: VaultKit) -> None:
    for n in range(25):
        kit.page(f"private/notes/n{n:02d}.md", f"pg_n{n:02d}", f"Note {n:02d}", type="note")
    vault = kit.scan()
    notes = Branch("type", "private", "page", "note")
    first = vault.catalog_branch(CatalogQuery(), notes, 0, 10)
    assert first["total"] == 25
    assert first["nextOffset"] == 10
    assert [i["title"] for i in first["items"]][:2] == ["Note 00", "Note 01"]
    last = vault.catalog_branch(CatalogQuery(), notes, 20, 10)
    assert len(last["items"]) == 5
    assert last["nextOffset"] is None
    with pytest.raises(QueryError):
        vault.catalog_branch(CatalogQuery(), notes, 0, 0)


def test_locate_gives_the_branch_and_row_under_each_sort(kit: VaultKit) -> None:
    for n in range(30):
        kit.page(
            f"private/notes/n{n:02d}.md",
            f"pg_n{n:02d}",
            f"Note {n:02d}",
            type="note",
            updated_at=f"2026-10-{n + 1:02d}T00:00:00.000Z" if n < 28 else None,
        )
    vault = kit.scan()
    notes = Branch("type", "private", "page", "note")
    for sort in ("title", "updated", "type"):
        q = CatalogQuery(sort=sort)
        order = paths(vault, notes, q)
        for path in (order[0], order[17], order[-1]):
            found = vault.catalog_locate(q, path)
            assert found is not None
            assert found["branch"] == notes.as_json()
            assert found["offset"] == order.index(path), (sort, path)
    assert vault.catalog_locate(CatalogQuery(text="zzz"), "private/notes/n01.md") is None
    assert vault.catalog_locate(CatalogQuery(), "private/nothing.md") is None


def test_branches_of_changed_paths(kit: VaultKit) -> None:
    vault = small_vault(kit)
    found = vault.catalog_branches_of(CatalogQuery(), ["private/claims/c2.md", "README.md", "gone.md"])
    assert {(b["group"], b["scope"], b["type"]) for b in found} == {
        ("type", "private", "event"),
        ("invalid", "private", None),
        ("unrecognized", None, None),
    }
