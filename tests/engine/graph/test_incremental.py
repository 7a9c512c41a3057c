"""The graph in memory: a change re-derives exactly the records that looked at what it touched."""

from __future__ import annotations

import hashlib

from tests.vaultkit import GraphKit, envelope, record_text

ADA = "private/people/ada.md"


def small_vault(kit: GraphKit) -> None:
    kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", body="Mathematician.\n")
    kit.page("people/bob.md", "pg_bob", "Bob", type="person")
    kit.claim("claims/c1.md", "cl_1", "Ada likes tea", entities=["pg_ada"])
    kit.page("notes/by-name.md", "pg_n1", "By name", body="[[Ada Lovelace]]\n")
    kit.page("notes/by-alias.md", "pg_n2", "By alias", body="[[The Countess]]\n")
    kit.page("notes/about-bob.md", "pg_n3", "About Bob", body="[[Bob]]\n")


def test_editing_a_body_re_derives_only_that_file() -> None:
    kit = GraphKit()
    small_vault(kit)
    assert kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", body="Poet.\n") == {ADA}


def test_a_new_alias_re_derives_the_links_that_looked_for_that_name() -> None:
    kit = GraphKit()
    small_vault(kit)
    redone = kit.page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["The Countess"])
    assert redone == {ADA, "private/notes/by-alias.md"}
    assert kit.links("notes/by-alias.md") == [("resolved", "pg_ada")]


def test_a_new_title_re_derives_the_links_to_the_old_and_the_new_name() -> None:
    kit = GraphKit()
    small_vault(kit)
    redone = kit.page("people/ada.md", "pg_ada", "Bob", type="person")
    assert redone == {ADA, "private/notes/by-name.md", "private/notes/about-bob.md"}
    assert kit.links("notes/about-bob.md") == [("ambiguous", None)]


def test_a_changed_type_re_derives_the_records_that_resolved_that_id() -> None:
    kit = GraphKit()
    small_vault(kit)
    kit.relationship("relationships/r.md", "rl_1", "pg_ada", "pg_bob", "works_on")
    assert kit.codes("relationships/r.md") == ["endpoint-type-not-permitted"]
    # The relationship names pg_bob; the link [[Bob]] resolved to it. Ada's claim names another id.
    redone = kit.page("people/bob.md", "pg_bob", "Bob", type="project")
    assert redone == {"private/people/bob.md", "private/relationships/r.md", "private/notes/about-bob.md"}
    assert kit.codes("relationships/r.md") == []


def test_evidence_is_checked_against_the_bytes_it_cites() -> None:
    kit = GraphKit()
    kit.files["private/sources/log.txt"] = b"line one\nline two\n"  # not a record: only the probe reads it
    line_two = hashlib.sha256(b"line two\n").hexdigest()
    evidence = [
        {"path": "sources/log.txt", "lines": [2, 2], "sha256": line_two},
        {"path": "sources/log.txt", "sha256": line_two},
        {"path": "sources/log.txt", "lines": [3, 4]},
        {"path": "../public/log.txt"},
    ]
    kit.claim("claims/c.md", "cl_1", "Cited", evidence=evidence)
    checked = kit.derived("claims/c.md").evidence
    assert [e.status for e in checked] == ["verified", "unverified", "unverified", "unverified"]
    assert [e.reason for e in checked[1:]] == [
        "sources/log.txt no longer matches its sha256",
        "sources/log.txt has 2 lines; lines 3-4 cited",
        "path '../public/log.txt' leaves the partition",
    ]
    assert kit.codes("claims/c.md") == ["evidence-unverified"] * 3


def test_evidence_citing_a_missing_record_is_checked_again_when_it_appears() -> None:
    kit = GraphKit()
    kit.claim("claims/c.md", "cl_1", "Cited", evidence=[{"path": "sources/log.md"}, {"source": "pg_log"}])
    assert [e.status for e in kit.derived("claims/c.md").evidence] == ["unverified", "unverified"]
    redone = kit.write("private/sources/log.md", record_text(envelope("pg_log", "page", "Log"), ""))
    assert redone == {"private/sources/log.md", "private/claims/c.md"}
    assert [e.status for e in kit.derived("claims/c.md").evidence] == ["verified", "verified"]
    assert kit.codes("claims/c.md") == []


def test_evidence_pinning_a_files_bytes_is_checked_again_when_they_change() -> None:
    """A claim citing a vault file by sha256 is derived again when that file's bytes
    change, and only claims that pin bytes are: a citation by path alone, or a link,
    does not care what the file says."""
    kit = GraphKit()
    original = record_text(envelope("pg_log", "page", "Log"), "Said on Monday.\n")
    kit.write("private/sources/log.md", original)
    pinned = hashlib.sha256(original.encode()).hexdigest()
    kit.claim("claims/pinned.md", "cl_1", "Pinned", evidence=[{"path": "sources/log.md", "sha256": pinned}])
    kit.claim("claims/by-path.md", "cl_2", "By path", evidence=[{"path": "sources/log.md"}])
    assert kit.codes("claims/pinned.md") == []

    edited = record_text(envelope("pg_log", "page", "Log"), "Said on Tuesday.\n")
    redone = kit.write("private/sources/log.md", edited)
    assert redone == {"private/sources/log.md", "private/claims/pinned.md"}
    assert kit.codes("claims/pinned.md") == ["evidence-unverified"]
    assert kit.derived("claims/pinned.md").evidence[0].reason == "sources/log.md no longer matches its sha256"

    restored = kit.write("private/sources/log.md", original)
    assert restored == {"private/sources/log.md", "private/claims/pinned.md"}
    assert kit.codes("claims/pinned.md") == []
