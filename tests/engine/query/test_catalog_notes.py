"""The catalog tree's Notes section (issue 25 §1): notes counted and listed by folder."""

from __future__ import annotations

from knowledge_desktop.engine.query.catalog_tree import Branch, CatalogQuery
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit


def notes_vault(kit: VaultKit) -> Vault:
    kit.write("Home.md", "# Home\n\nSee [[Plan]]. #hub\n")
    kit.write("Work/Plan.md", "---\ntags: [work]\n---\n# Plan\n")
    kit.write("Work/Deep/Inner.md", "Inner note.\n")
    kit.write("work/lower.md", "A folder whose name differs only by case.\n")
    kit.write("Work_x/Other.md", "An underscore is not a wildcard.\n")
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", tags=["math"])
    return kit.scan()


def paths(vault: Vault, q: CatalogQuery, folder: str) -> list[str]:
    return [i["path"] for i in vault.catalog_branch(q, Branch("note", None, folder=folder))["items"]]


def test_notes_are_counted_by_folder_and_listed_per_folder(kit: VaultKit) -> None:
    vault = notes_vault(kit)
    tree = vault.catalog_tree(CatalogQuery())
    assert tree["total"] == 1  # records only
    assert tree["unrecognized"] == 0
    assert tree["notes"] == {
        "count": 5,
        "folders": [
            {"folder": "", "count": 1},
            {"folder": "Work", "count": 1},
            {"folder": "work", "count": 1},
            {"folder": "Work/Deep", "count": 1},
            {"folder": "Work_x", "count": 1},
        ],
    }
    q = CatalogQuery()
    assert paths(vault, q, "") == ["Home.md"]
    assert paths(vault, q, "Work") == ["Work/Plan.md"]  # not work/, not Work/Deep/, not Work_x/
    assert paths(vault, q, "work") == ["work/lower.md"]
    assert paths(vault, q, "Work/Deep") == ["Work/Deep/Inner.md"]
    found = vault.catalog_locate(q, "Work/Deep/Inner.md")
    assert found is not None
    assert found["branch"] == {
        "group": "note",
        "scope": None,
        "kind": None,
        "type": None,
        "folder": "Work/Deep",
    }
    assert vault.catalog_branches_of(q, ["Home.md", "private/people/ada.md"]) == [
        {"group": "note", "scope": None, "kind": None, "type": None, "folder": ""},
        {"group": "type", "scope": "private", "kind": "page", "type": "person"},
    ]


def test_filters_and_facets_apply_to_notes(kit: VaultKit) -> None:
    vault = notes_vault(kit)
    assert "work" in vault.catalog_tags()
    assert "hub" in vault.catalog_tags()
    tagged = vault.catalog_tree(CatalogQuery(tag="work"))
    assert tagged["notes"]["folders"] == [{"folder": "Work", "count": 1}]
    assert vault.catalog_tree(CatalogQuery(text="inner"))["notes"]["count"] == 1
    # Lifecycle and validity are record facets: notes have neither, so they leave them out.
    assert vault.catalog_tree(CatalogQuery(lifecycle="active"))["notes"]["count"] == 0
    assert paths(vault, CatalogQuery(validity="valid"), "Work") == []
