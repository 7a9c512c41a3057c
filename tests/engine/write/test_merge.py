"""Merge and unmerge, through the publish path (spec: corrections-and-merges, Merge
duplicate pages)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.operations.merge import plan_merge
from knowledge_desktop.engine.write.operations.unmerge import plan_unmerge
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.plan import WriteRejected
from knowledge_desktop.engine.write.requests import make_request
from tests.vaultkit import VaultKit, changed_lines, frontmatter_of, read_fence

ADA, LOVELACE = "private/people/ada.md", "private/people/lovelace.md"


@pytest.fixture
def people(kit: VaultKit) -> VaultKit:
    """Two pages about one person, and a claim naming the one to be absorbed."""
    kit.page(
        ADA,
        "pg_ada",
        "Ada Lovelace",
        type="person",
        aliases=["Ada", "email:ada@example.org"],
        tags=["math"],
        fields={"role": "mathematician"},
        body="Wrote the first program.\n",
    )
    kit.page(
        LOVELACE,
        "pg_al",
        "Augusta Ada King",
        type="person",
        aliases=["Countess of Lovelace", "email:ada@example.org"],
        tags=["math", "poetry"],
        fields={"role": "countess", "born": "1815"},
        evidence=[{"url": "https://example.org/peerage"}],
        body="Daughter of Byron.\n",
    )
    kit.claim("private/claims/c.md", "cl_1", "The countess wrote notes", entities=["pg_al"])
    kit.scan()
    return kit


def merge(
    vault: Vault, reason: str = "same person", request_id: str = "rq-merge", **options: Any
) -> dict[str, Any]:
    survivor, absorbed = read_fence(vault, "pg_ada"), read_fence(vault, "pg_al")
    request = make_request("merge", {"reason": reason, **options}, request_id=request_id, actor="grace")
    return vault.write(request, lambda ctx: plan_merge(ctx, survivor, absorbed, reason, **options))


def unmerge(vault: Vault, request_id: str = "rq-unmerge") -> dict[str, Any]:
    fence = read_fence(vault, "pg_al")
    request = make_request("unmerge", {"reason": "not the same"}, request_id=request_id, actor="grace")
    return vault.write(request, lambda ctx: plan_unmerge(ctx, fence, "not the same"))


def data(kit: VaultKit, rel: str) -> dict[str, Any]:
    return frontmatter_of((kit.root / rel).read_bytes())


def test_the_survivor_gains_what_it_lacks_and_its_own_values_win(people: VaultKit) -> None:
    """Merge: title (as an alias), aliases, tags, evidence and missing fields are gained;
    the survivor's field values win and conflicts are reported; bodies are not merged."""
    vault = people.scan()
    receipt = merge(vault)
    ada = data(people, ADA)
    assert ada["aliases"] == ["Ada", "email:ada@example.org", "Augusta Ada King", "Countess of Lovelace"]
    assert ada["tags"] == ["math", "poetry"]
    assert ada["evidence"] == [{"url": "https://example.org/peerage"}]
    assert ada["fields"] == {"role": "mathematician", "born": "1815"}
    assert ada["merged_from"] == ["pg_al"]
    assert ada["revision"] == 2
    assert (people.root / ADA).read_text().endswith("---\nWrote the first program.\n")
    assert receipt["operation"] == "merge"
    assert receipt["targetId"] == "pg_al"
    assert receipt["survivorId"] == "pg_ada"
    assert receipt["conflicts"] == [{"field": "role", "survivor": "mathematician", "absorbed": "countess"}]
    assert {i["id"] for i in receipt["items"]} == {"pg_ada", "pg_al"}
    assert [i["id"] for i in receipt["impact"]["items"]] == ["cl_1"]


def test_the_absorbed_page_stays_and_reads_resolve_to_the_survivor(people: VaultKit) -> None:
    """Merge: the absorbed page stays on disk with lifecycle merged and merged_into; records
    naming it are not rewritten; reads resolve the reference to the survivor."""
    vault = people.scan()
    claim_before = (people.root / "private/claims/c.md").read_bytes()
    merge(vault)
    al = data(people, LOVELACE)
    assert (al["lifecycle"], al["merged_into"]) == ("merged", "pg_ada")
    assert al["lifecycle_change"]["reason"] == "same person"
    assert al["lifecycle_change"]["actor"] == "grace"
    assert (people.root / "private/claims/c.md").read_bytes() == claim_before
    assert people.row("cl_1")["eligible"]
    assert vault.lookup("Countess of Lovelace")["record"]["id"] == "pg_ada"


def test_a_combined_title_and_body_may_be_written(people: VaultKit) -> None:
    """Merge: supply body (and title) to write a combined one; the old title stays an alias."""
    vault = people.scan()
    merge(vault, title="Ada, Countess of Lovelace", body="Both pages, combined.\n")
    ada = data(people, ADA)
    assert ada["title"] == "Ada, Countess of Lovelace"
    assert "Ada Lovelace" in ada["aliases"]
    assert (people.root / ADA).read_text().endswith("---\nBoth pages, combined.\n")


def test_only_pages_of_one_type_merge(people: VaultKit) -> None:
    """Merge: merging claims or relationships, and merging across types, are not supported."""
    people.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    vault = people.scan()
    cases = [
        ("pg_ada", "pg_acme", "type-mismatch"),
        ("pg_ada", "cl_1", "not-a-page"),
        ("pg_ada", "pg_ada", "merge-self"),
    ]
    for survivor, absorbed, code in cases:
        s, a = read_fence(vault, survivor), read_fence(vault, absorbed)
        request = make_request("merge", {"s": survivor, "a": absorbed})
        with pytest.raises(WriteRejected) as caught:
            vault.write(request, lambda ctx, s=s, a=a: plan_merge(ctx, s, a, "x"))
        assert caught.value.code == code


def test_writes_naming_the_merged_page_are_refused_with_the_survivor(people: VaultKit) -> None:
    """Merge: new writes that reference a merged page are rejected with the survivor's id."""
    vault = people.scan()
    merge(vault)
    fence = read_fence(vault, "pg_al")
    with pytest.raises(WriteRejected) as caught:
        vault.write(make_request("withdraw", {}), lambda ctx: plan_withdraw(ctx, fence, "x"))
    assert caught.value.code == "merged-target"
    assert caught.value.current["survivorId"] == "pg_ada"


def test_unmerge_takes_back_what_the_merge_added_and_restores_the_page(people: VaultKit) -> None:
    """Unmerge: restores the merged page and removes what the merge added to the survivor."""
    before_ada = data(people, ADA)
    vault = people.scan()
    merge(vault)
    receipt = unmerge(vault)
    ada = data(people, ADA)
    for key in ("aliases", "tags", "fields"):
        assert ada[key] == before_ada[key], key
    for key in ("evidence", "merged_from"):
        assert key not in ada
    al = data(people, LOVELACE)
    assert al["lifecycle"] == "active"
    assert "merged_into" not in al
    assert al["lifecycle_change"]["reason"] == "not the same"
    assert receipt["operation"] == "unmerge"
    assert receipt["survivorId"] == "pg_ada"
    assert people.row("pg_al")["eligible"]
    assert vault.lookup("Countess of Lovelace")["record"]["id"] == "pg_al"


def test_unmerge_keeps_values_edited_since_and_the_merge_title_and_body(people: VaultKit) -> None:
    """Unmerge: keeps values edited since; a body or title written during the merge is not reverted."""
    vault = people.scan()
    merge(vault, title="Ada, Countess of Lovelace", body="Combined.\n")
    text = (people.root / ADA).read_text().replace("born: '1815'", "born: '1816'")
    text = text.replace('born: "1815"', "born: '1816'").replace("born: 1815", "born: '1816'")
    assert "1816" in text
    people.write(ADA, text)
    receipt = unmerge(vault)
    ada = data(people, ADA)
    assert ada["fields"] == {"role": "mathematician", "born": "1816"}
    assert ada["title"] == "Ada, Countess of Lovelace"
    assert (people.root / ADA).read_text().endswith("---\nCombined.\n")
    assert receipt["keptEdited"] == {"fields": {"born": "1816"}}


def test_only_a_merged_page_is_unmerged(people: VaultKit) -> None:
    """Unmerge restores a merged page; an active one has nothing to undo."""
    vault = people.scan()
    with pytest.raises(WriteRejected) as caught:
        unmerge(vault)
    assert caught.value.code == "not-merged"


def test_a_page_merged_by_hand_is_restored_without_guessing(people: VaultKit) -> None:
    """Unmerge: with no journaled merge, only the page and merged_from are restored."""
    people.page(ADA, "pg_ada", "Ada Lovelace", type="person", merged_from=["pg_al"])
    people.page(LOVELACE, "pg_al", "Augusta", type="person", lifecycle="merged", merged_into="pg_ada")
    vault = people.scan()
    receipt = unmerge(vault)
    assert receipt["addedUnknown"] is True
    assert "merged_from" not in data(people, ADA)
    assert data(people, LOVELACE)["lifecycle"] == "active"


HAND_WRITTEN = """---
format: knowledge-record-v1
id: pg_ada
revision: 1
kind: page
title: Ada Lovelace   # as she signed
recorded_at: 2026-09-28T18:30:00.000Z
updated_at: 2026-09-28T18:30:00.000Z
scope: private
lifecycle: active
type: person
aliases: [Ada]
x-obsidian:
  cssclass: wide
# fields the ontology declares
fields:
  role: mathematician
---
Wrote the first program.
"""


def test_a_merge_changes_only_the_survivors_keys_it_gains_byte_for_byte(people: VaultKit) -> None:
    """Records: the survivor's unknown keys, comments, flow style and body are kept; only
    revision, updated_at and the keys the merge adds to differ."""
    people.write(ADA, HAND_WRITTEN)
    vault = people.scan()
    merge(vault)
    gone, added = changed_lines(HAND_WRITTEN.encode(), (people.root / ADA).read_bytes())
    assert gone == ["revision: 1", "updated_at: 2026-09-28T18:30:00.000Z", "aliases: [Ada]"]
    assert "aliases: [Ada, Augusta Ada King, Countess of Lovelace, email:ada@example.org]" in added
    assert "x-obsidian:" in (people.root / ADA).read_text()
    assert "# fields the ontology declares" in (people.root / ADA).read_text()
    assert "title: Ada Lovelace   # as she signed" in (people.root / ADA).read_text()
    assert any(line.startswith("merged_from") for line in added)
