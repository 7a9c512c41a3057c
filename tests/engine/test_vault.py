"""Whole-vault behaviour: identity, links, references, ontology in use, eligibility.

Spec: records-and-ontology (Records, Relationships, Ontology, Filenames and
links) and corrections-and-merges (read-side effects of superseded,
withdrawn and merged records)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.inventory import RecordFilter
from tests.vaultkit import VaultKit

CHANGE = {"reason": "r", "at": "2026-10-01T09:00:00.000Z"}


def ids(kit: VaultKit, **filters: object) -> set[str]:
    result = kit.scan().records(RecordFilter(**filters), limit=1000)  # type: ignore[arg-type]
    return {item["id"] for item in result["items"]}


# -- identity ---------------------------------------------------------------------------


def test_identity_comes_from_the_id_not_the_filename(kit: VaultKit) -> None:
    """Records: the id names the record; file name and title do not."""
    kit.page("private/people/whatever-name.md", "pg_ada", "Ada Lovelace", type="person")
    row = kit.row("pg_ada")
    assert row["path"] == "private/people/whatever-name.md"


def test_duplicate_ids_stay_listed_but_exact_lookup_finds_none(kit: VaultKit) -> None:
    """Files sharing an id both stay in the default listing, marked and diagnosed; exact
    lookup returns no record for the id (spec: records-and-ontology, the identity rules)."""
    kit.page("private/people/a.md", "pg_same", "A", type="person")
    kit.page("private/people/b.md", "pg_same", "B", type="person")
    kit.page("private/people/c.md", "pg_other", "C", type="person")
    vault = kit.scan()
    listed = vault.records()
    assert [(i["path"], i["duplicate"]) for i in listed["items"]] == [
        ("private/people/a.md", True),
        ("private/people/b.md", True),
        ("private/people/c.md", False),
    ]
    assert listed["total"] == 3
    assert kit.codes("private/people/a.md") == {"duplicate-id"}
    assert vault.lookup("pg_same")["status"] == "missing"
    assert vault.lookup("pg_other")["status"] == "found"
    with pytest.raises(QueryError, match="several files"):
        vault.show("pg_same")


def test_removing_one_duplicate_makes_the_other_current_again(kit: VaultKit) -> None:
    """Records: duplicate status is recomputed when either file changes."""
    kit.page("private/people/a.md", "pg_same", "A", type="person")
    second = kit.page("private/people/b.md", "pg_same", "B", type="person")
    assert kit.scan().lookup("pg_same")["status"] == "missing"
    second.unlink()
    assert kit.scan().lookup("pg_same")["status"] == "found"
    assert kit.codes() == set()


def test_invalid_envelopes_are_listed_as_unrecognized(kit: VaultKit) -> None:
    """Records: a file with a broken envelope stays on disk, listed and diagnosed."""
    kit.write("private/notes/broken.md", "---\nformat: knowledge-record-v1\nid: x\n---\n")
    kit.write("README.md", "# A vault\n")
    kit.write("private/notes/stray.md", "---\nformat: knowledge-record-v1\n")
    vault = kit.scan()
    counts = vault.counts()
    assert counts["unrecognized"] == 2
    assert counts["records"] == 0
    assert kit.codes("private/notes/broken.md") == {"envelope-invalid"}
    assert kit.codes("private/notes/stray.md") == {"frontmatter-unclosed"}
    assert kit.codes("README.md") == {"plain-note"}  # a root note is fine (issue 25 §5)


# -- links --------------------------------------------------------------------------------


def test_links_resolve_by_path_title_alias_and_relative_markdown(kit: VaultKit) -> None:
    """Links: path (with or without .md), title, alias and relative .md links resolve."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["The Countess"])
    kit.page(
        "private/notes/n.md",
        "pg_n",
        "Note",
        type="note",
        body="[[people/ada|A]] [[people/ada.md]] [[ada lovelace]] [[  the   COUNTESS ]]"
        " [Ada](../people/ada.md)\n",
    )
    record = kit.scan().show("pg_n")
    assert [r["id"] for r in record["references"]] == ["pg_ada"] * 5
    assert kit.codes() == set()
    backlinks = kit.scan().show("pg_ada")["backlinks"]
    assert {(b["id"], b["line"]) for b in backlinks} == {("pg_n", 13)}  # after 10 keys


def test_missing_and_ambiguous_links_are_diagnosed_without_invalidating(kit: VaultKit) -> None:
    """Links: unresolved targets stay unlinked and diagnosed; the page stays valid."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person", aliases=["Twin"])
    kit.page("private/people/b.md", "pg_b", "Bob", type="person", aliases=["Twin"])
    kit.page("private/notes/n.md", "pg_n", "Note", type="note", body="[[Nobody]] and [[Twin]]\n")
    assert kit.codes("private/notes/n.md") == {"link-missing", "link-ambiguous"}
    assert kit.row("pg_n")["valid"]
    refs = kit.scan().show("pg_n")["references"]
    assert [(r["status"], r["id"]) for r in refs] == [("missing", None), ("ambiguous", None)]


def test_links_leave_the_partition_only_for_a_file_beyond_it(kit: VaultKit) -> None:
    """Paths inside records are the partition's (ARCHITECTURE); a link that finds nothing in
    it reaches the file beyond it, by path and without its id (docs/decisions.md, "Links
    beyond a record's partition"); a path out of it that leads nowhere stays outside."""
    kit.page("shared/people/x.md", "pg_x", "X", type="person")
    kit.page(
        "private/notes/n.md",
        "pg_n",
        "Note",
        type="note",
        body="[x](../../shared/people/x.md) [[../shared/people/x]] [[X]] [y](../../shared/y.md)\n",
    )
    diags = kit.diagnostics("private/notes/n.md")
    assert [c for c, _ in diags] == ["link-outside-partition", "link-outside-partition"]
    refs = kit.scan().show("pg_n")["references"]
    assert [(r["status"], r["id"], r["path"]) for r in refs] == [
        ("resolved", None, "shared/people/x.md"),
        ("outside", None, None),
        ("resolved", None, "shared/people/x.md"),
        ("outside", None, None),
    ]


def test_a_link_to_a_merged_page_resolves_to_its_survivor(kit: VaultKit) -> None:
    """Links: following merged_into reaches the surviving page."""
    kit.page(
        "private/companies/nw.md",
        "pg_nw",
        "Northwind",
        type="company",
        lifecycle="merged",
        merged_into="pg_nwl",
    )
    kit.page("private/companies/nwl.md", "pg_nwl", "Northwind Ltd", type="company", merged_from=["pg_nw"])
    kit.page("private/notes/n.md", "pg_n", "Note", type="note", body="[[Northwind]]\n")
    (ref,) = kit.scan().show("pg_n")["references"]
    assert (ref["status"], ref["id"]) == ("resolved", "pg_nwl")
    assert ids(kit, kind="page") == {"pg_nwl", "pg_n"}


@pytest.mark.parametrize(("hops", "ok"), [(8, True), (9, False)])
def test_merge_chains_resolve_up_to_eight_hops(kit: VaultKit, hops: int, ok: bool) -> None:
    """Merges: chains of up to 8 hops reach the survivor; longer ones are invalid."""
    for i in range(hops):
        kit.page(
            f"private/companies/c{i}.md",
            f"pg_c{i}",
            f"C{i}",
            type="company",
            lifecycle="merged",
            merged_into=f"pg_c{i + 1}",
        )
    kit.page(f"private/companies/c{hops}.md", f"pg_c{hops}", f"C{hops}", type="company")
    kit.claim("private/claims/x.md", "cl_x", "About C0", entities=["pg_c0"])
    assert ("cl_x" in ids(kit)) is ok
    if not ok:
        assert "merge-chain-invalid" in kit.codes("private/claims/x.md")


def test_merge_cycles_are_invalid_and_hide_records_naming_them(kit: VaultKit) -> None:
    """Merges: a cycle has no survivor; records naming it are hidden."""
    kit.page("private/companies/a.md", "pg_a", "A", type="company", lifecycle="merged", merged_into="pg_b")
    kit.page("private/companies/b.md", "pg_b", "B", type="company", lifecycle="merged", merged_into="pg_a")
    kit.claim("private/claims/x.md", "cl_x", "About A", entities=["pg_a"])
    assert "merge-chain-invalid" in kit.codes("private/companies/a.md")
    assert "cl_x" not in ids(kit)


# -- typed references and relationships ------------------------------------------------------


def test_relationship_endpoints_must_exist_and_be_pages(kit: VaultKit) -> None:
    """Relationships: both ends are existing pages."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    kit.claim("private/claims/c.md", "cl_c", "A claim")
    kit.relationship("private/relationships/r1.md", "rl_1", "pg_a", "pg_missing", "works_at")
    kit.relationship("private/relationships/r2.md", "rl_2", "pg_a", "cl_c", "mentions")
    assert kit.codes("private/relationships/r1.md") == {"reference-missing"}
    assert kit.codes("private/relationships/r2.md") == {"reference-wrong-kind"}
    assert not kit.row("rl_1")["valid"]
    assert not kit.row("rl_2")["valid"]


def test_constrained_relationships_check_endpoint_types(kit: VaultKit) -> None:
    """Default vocabulary: leads goes person → project, supports company → project."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    kit.page("private/companies/c.md", "pg_c", "Acme", type="company")
    kit.page("private/projects/p.md", "pg_p", "Apollo", type="project")
    kit.relationship("private/relationships/ok.md", "rl_ok", "pg_a", "pg_p", "leads")
    kit.relationship("private/relationships/bad.md", "rl_bad", "pg_c", "pg_p", "leads")
    kit.relationship("private/relationships/sup.md", "rl_sup", "pg_c", "pg_p", "supports")
    assert kit.codes("private/relationships/ok.md") == set()
    assert kit.codes("private/relationships/bad.md") == {"endpoint-type-not-permitted"}
    assert ids(kit, kind="relationship") == {"rl_ok", "rl_sup"}


def test_unknown_relationship_labels_are_invalid(kit: VaultKit) -> None:
    """Relationships: the label must be declared by the ontology."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    kit.relationship("private/relationships/r.md", "rl", "pg_a", "pg_a", "befriends")
    assert kit.codes() == {"unknown-relationship-label"}


def test_relationships_are_traversed_in_both_directions(kit: VaultKit) -> None:
    """Relationships: one stored edge shows up as a backlink of both endpoints."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    kit.page("private/companies/c.md", "pg_c", "Acme", type="company")
    kit.relationship("private/relationships/r.md", "rl", "pg_a", "pg_c", "works_at")
    vault = kit.scan()
    assert [b["via"] for b in vault.show("pg_a")["backlinks"]] == ["from"]
    assert [b["via"] for b in vault.show("pg_c")["backlinks"]] == ["to"]


def test_claims_with_unavailable_entities_are_not_current(kit: VaultKit) -> None:
    """Visibility: a record whose entity is withdrawn is excluded from default reads."""
    kit.page(
        "private/people/a.md", "pg_a", "Ada", type="person", lifecycle="withdrawn", lifecycle_change=CHANGE
    )
    kit.claim("private/claims/c.md", "cl_c", "Ada likes tea", entities=["pg_a"])
    assert ids(kit) == set()
    assert kit.row("cl_c")["valid"]
    assert not kit.row("cl_c")["deps_ok"]


def test_unavailability_is_transitive_and_recovers(kit: VaultKit) -> None:
    """Visibility: dependents of dependents are hidden, and come back when fixed."""
    page = kit.page(
        "private/people/a.md", "pg_a", "Ada", type="person", lifecycle="withdrawn", lifecycle_change=CHANGE
    )
    kit.claim("private/claims/c1.md", "cl_1", "One", entities=["pg_a"])
    kit.claim("private/claims/c2.md", "cl_2", "Two", dependencies=["cl_1"])
    kit.claim("private/claims/c3.md", "cl_3", "Three", dependencies=["cl_2"])
    assert ids(kit) == set()
    page.unlink()
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    assert ids(kit) == {"pg_a", "cl_1", "cl_2", "cl_3"}


def test_superseded_records_are_historical(kit: VaultKit) -> None:
    """Visibility: superseded records leave default reads but list under superseded/all."""
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Old",
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=CHANGE,
    )
    kit.claim("private/claims/new.md", "cl_new", "New", supersedes="cl_old")
    kit.claim("private/claims/dep.md", "cl_dep", "Dep", dependencies=["cl_old"])
    assert ids(kit) == {"cl_new"}
    assert ids(kit, lifecycle="superseded") == {"cl_old"}
    assert ids(kit, lifecycle="all") == {"cl_old", "cl_new"}


def test_withdrawn_records_never_list_as_current_or_historical(kit: VaultKit) -> None:
    """Visibility: withdrawal hides a record from active and historical reads alike."""
    kit.claim("private/claims/w.md", "cl_w", "W", lifecycle="withdrawn", lifecycle_change=CHANGE)
    assert ids(kit, lifecycle="all") == set()
    assert kit.scan().show("cl_w")["lifecycle"] == "withdrawn"  # exact reads still work


# -- the ontology in use ----------------------------------------------------------------------


def test_untyped_pages_are_classified_by_path_prefix(kit: VaultKit) -> None:
    """Pages: without a type, the ontology's prefixes classify the page at read time."""
    path = kit.page("private/people/ada.md", "pg_a", "Ada")
    before = path.read_bytes()
    assert kit.row("pg_a")["type"] == "person"
    assert path.read_bytes() == before  # never rewritten


def test_type_queries_expand_aliases(kit: VaultKit) -> None:
    """Aliases: asking for organization finds company pages."""
    kit.page("private/companies/acme.md", "pg_c", "Acme", type="company")
    assert ids(kit, types=frozenset({"organization"})) == {"pg_c"}


def test_page_fields_follow_the_ontology(kit: VaultKit) -> None:
    """Pages: project status takes one of four values; undeclared fields are only noted."""
    kit.page("private/projects/p.md", "pg_p", "P", type="project", fields={"status": "done"})
    kit.page(
        "private/projects/q.md", "pg_q", "Q", type="project", fields={"status": "paused", "colour": "red"}
    )
    assert kit.codes("private/projects/p.md") == {"field-invalid"}
    assert kit.codes("private/projects/q.md") == {"field-undeclared"}
    assert ids(kit) == {"pg_q"}


def test_filing_elsewhere_is_a_warning_not_an_error(kit: VaultKit) -> None:
    """Composition: directory is where a type is filed; elsewhere is diagnosed, still valid."""
    kit.page("private/projects/ada.md", "pg_a", "Ada", type="person")
    assert kit.codes() == {"misfiled"}
    assert ids(kit) == {"pg_a"}


def test_unknown_page_types_are_invalid(kit: VaultKit) -> None:
    """Pages: a type the ontology does not define makes the page invalid."""
    kit.page("private/notes/x.md", "pg_x", "X", type="spaceship")
    assert kit.codes() == {"unknown-type"}
    assert ids(kit) == set()


EXTENSION = """\
format: knowledge-ontology-v1
name: research
version: 1.0.0
extends: knowledge-default
definitions:
  - name: researcher
    kind: page
    primitive: entity
    directory: researchers/
    fields:
      - name: specialty
        type: string
        required: true
        values: [ecology, history]
"""


def test_a_local_ontology_extends_the_default(kit: VaultKit) -> None:
    """Ontology: private/ontology.yaml adds types on top of knowledge-default."""
    kit.write("private/ontology.yaml", EXTENSION)
    kit.page("private/researchers/r.md", "pg_r", "R", type="researcher", fields={"specialty": "ecology"})
    kit.page("private/researchers/s.md", "pg_s", "S", type="researcher")
    kit.page("private/people/a.md", "pg_a", "A", type="person")
    assert kit.codes("private/researchers/s.md") == {"field-invalid"}
    assert ids(kit) == {"pg_r", "pg_a"}
    (view,) = kit.scan().ontology("private")
    assert [c["name"] for c in view["chain"]] == ["research", "knowledge-default"]


def test_a_failed_activation_invalidates_typed_records_until_fixed(kit: VaultKit) -> None:
    """Ontology: no last-known-good fallback; fixing the manifest brings records back."""
    kit.page("private/people/a.md", "pg_a", "A", type="person")
    kit.claim("private/claims/c.md", "cl_c", "C")
    assert ids(kit) == {"pg_a", "cl_c"}
    kit.write("private/ontology.yaml", EXTENSION.replace("knowledge-default", "no-such-parent"))
    assert ids(kit) == {"cl_c"}
    assert "ontology-activation-failed" in kit.codes("private/ontology.yaml")
    assert kit.codes("private/people/a.md") == {"ontology-unavailable"}
    kit.write("private/ontology.yaml", EXTENSION)
    assert ids(kit) == {"pg_a", "cl_c"}
    assert kit.codes() == set()


def test_partitions_are_independent_scopes(kit: VaultKit) -> None:
    """Partitions: each top-level folder is a scope with its own ids and ontology."""
    kit.page("private/people/a.md", "pg_a", "Ada", type="person")
    kit.page("work/people/a.md", "pg_a", "Ada", type="person")
    assert kit.codes() == set()
    assert ids(kit, scope="work") == {"pg_a"}
    assert kit.scan().counts()["scopes"] == ["private", "work"]


def test_a_survivor_and_its_absorbed_page_sharing_a_name_are_one_target(kit: VaultKit) -> None:
    """Merges: the survivor gains the absorbed title as an alias; a link by it is not ambiguous."""
    kit.page(
        "private/companies/nw.md",
        "pg_nw",
        "Northwind",
        type="company",
        lifecycle="merged",
        merged_into="pg_nwl",
    )
    kit.page(
        "private/companies/nwl.md",
        "pg_nwl",
        "Northwind Ltd",
        type="company",
        aliases=["Northwind"],
        merged_from=["pg_nw"],
    )
    kit.page("private/notes/n.md", "pg_n", "Note", type="note", body="[[Northwind]]\n")
    (ref,) = kit.scan().show("pg_n")["references"]
    assert (ref["status"], ref["id"]) == ("resolved", "pg_nwl")


def test_expired_ended_and_future_assertions_are_not_current(kit: VaultKit) -> None:
    """Optional fields: expired, ended and not-yet-valid assertions leave default reads,
    and so do records that depend on them; occurrence dates change nothing."""
    kit.claim("private/claims/ended.md", "cl_ended", "Ended", valid_until="2020-01-01T00:00:00Z")
    kit.claim("private/claims/expired.md", "cl_exp", "Expired", expires_at="2020-01-01T00:00:00Z")
    kit.claim("private/claims/future.md", "cl_fut", "Future", valid_from="2999-01-01T00:00:00Z")
    kit.claim("private/claims/dep.md", "cl_dep", "Depends", dependencies=["cl_ended"])
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Long ago",
        occurred_at="1990-01-01",
        valid_from="2020-01-01T00:00:00Z",
        valid_until="2999-01-01T00:00:00Z",
    )
    assert ids(kit) == {"cl_old"}
    at_2019 = ids(kit, at="2019-06-01T00:00:00.000000Z")
    assert at_2019 == {"cl_ended", "cl_exp", "cl_dep"}
    assert kit.scan().counts()["eligible"] == 1


def test_expiry_is_inclusive_of_its_instant(kit: VaultKit) -> None:
    """Optional fields: expires_at is the instant after which the assertion leaves."""
    kit.claim("private/claims/e.md", "cl_e", "E", expires_at="2026-01-01T00:00:00Z")
    assert ids(kit, at="2026-01-01T00:00:00.000000Z") == {"cl_e"}
    assert ids(kit, at="2026-01-01T00:00:00.000001Z") == set()


def test_evidence_locators_are_verified_against_the_vault(kit: VaultKit) -> None:
    """Evidence (ARCHITECTURE): a locator is verified when its target exists and its hash
    (of the cited lines, or the whole file) matches; urls are never failed offline."""
    import hashlib

    kit.page("private/sources/s.md", "pg_src", "Stand-up notes", type="source")
    notes = kit.write("private/files/notes.txt", "one\ntwo\nthree\n")
    two = hashlib.sha256(b"two\n").hexdigest()
    whole = hashlib.sha256(notes.read_bytes()).hexdigest()
    kit.claim(
        "private/claims/ok.md",
        "cl_ok",
        "OK",
        evidence=[
            {"source": "pg_src"},
            {"path": "files/notes.txt", "lines": [2, 2], "sha256": two},
            {"path": "files/notes.txt", "sha256": whole},
            {"url": "https://example.org"},
        ],
    )
    kit.claim(
        "private/claims/bad.md",
        "cl_bad",
        "Bad",
        evidence=[
            {"source": "pg_nope"},
            {"path": "files/missing.txt"},
            {"path": "files/notes.txt", "lines": [1, 1], "sha256": two},
            {"path": "files/notes.txt", "lines": [3, 9]},
            {"path": "../../etc/passwd"},
        ],
    )
    assert kit.codes("private/claims/ok.md") == set()
    found = kit.diagnostics("private/claims/bad.md")
    assert [code for code, _ in found] == ["evidence-unverified"] * 5
    assert kit.row("cl_bad")["valid"]  # unverified evidence is a warning, not invalidity


def test_evidence_verification_follows_changes_to_the_cited_record(kit: VaultKit) -> None:
    """Evidence: creating the cited source later verifies the locator without touching the claim."""
    kit.claim("private/claims/c.md", "cl_c", "C", evidence=[{"path": "sources/s.md"}])
    assert kit.codes() == {"evidence-unverified"}
    kit.page("private/sources/s.md", "pg_src", "S", type="source")
    assert kit.codes() == set()
