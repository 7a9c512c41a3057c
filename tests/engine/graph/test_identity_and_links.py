"""The graph in memory: duplicate ids and how body links resolve."""

from __future__ import annotations

from tests.vaultkit import GraphKit

ADA = "people/ada.md"
NOTE = "notes/note.md"


def test_a_shared_id_marks_both_files_until_one_goes() -> None:
    kit = GraphKit()
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    redone = kit.page("people/ada-copy.md", "pg_ada", "Ada again", type="person")
    assert redone == {"private/people/ada.md", "private/people/ada-copy.md"}
    assert kit.derived(ADA).duplicate
    assert kit.derived("people/ada-copy.md").duplicate
    assert kit.codes(ADA) == ["duplicate-id"]
    assert not kit.eligible(ADA)

    redone = kit.write("private/people/ada-copy.md", None)
    assert redone == {"private/people/ada.md", "private/people/ada-copy.md"}
    assert not kit.derived(ADA).duplicate
    assert kit.codes(ADA) == []
    assert kit.eligible(ADA)


def test_a_wikilink_finds_a_record_by_title_alias_or_path() -> None:
    kit = GraphKit()
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person", aliases=["The Countess"])
    kit.page(NOTE, "pg_note", "Note", body="[[ada  LOVELACE]], [[the countess]] and [[people/ada]].\n")
    assert kit.links(NOTE) == [("resolved", "pg_ada")] * 3
    assert kit.codes(NOTE) == ["unclassified-page"]  # notes/ is no type's directory here


def test_a_markdown_link_resolves_relative_to_its_file_and_may_not_leave_the_partition() -> None:
    kit = GraphKit()
    kit.page(ADA, "pg_ada", "Ada Lovelace", type="person")
    kit.page(NOTE, "pg_note", "Note", body="[her](../people/ada.md) and [out](../../public/x.md)\n")
    assert kit.links(NOTE) == [("resolved", "pg_ada"), ("outside", None)]
    assert kit.codes(NOTE) == ["unclassified-page", "link-outside-partition"]


def test_a_broken_link_is_diagnosed_on_its_line_and_mended_by_the_page_it_names() -> None:
    kit = GraphKit()
    kit.page(NOTE, "pg_note", "Note", body="First line.\nSee [[Charles Babbage]].\n")
    assert kit.links(NOTE) == [("missing", None)]
    (missing,) = [d for d in kit.derived(NOTE).diagnostics if d.code == "link-missing"]
    assert missing.line == kit.graph.nodes["private/notes/note.md"].body_line + 1

    redone = kit.page("people/babbage.md", "pg_babbage", "Charles Babbage", type="person")
    assert redone == {"private/people/babbage.md", "private/notes/note.md"}
    assert kit.links(NOTE) == [("resolved", "pg_babbage")]
    assert "link-missing" not in kit.codes(NOTE)


def test_a_name_two_pages_share_is_ambiguous() -> None:
    kit = GraphKit()
    kit.page(ADA, "pg_ada", "Ada", type="person")
    kit.page("people/ada-2.md", "pg_ada_2", "Ada", type="person")
    kit.page(NOTE, "pg_note", "Note", body="[[Ada]]\n")
    assert kit.links(NOTE) == [("ambiguous", None)]
    assert "link-ambiguous" in kit.codes(NOTE)
