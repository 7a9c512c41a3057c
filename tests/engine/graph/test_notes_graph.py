"""Notes in the vault graph (issue 25 §2): Obsidian's link resolution, vault-wide, records
<-> notes both ways, and incremental re-derivation of only the links that could change."""

from __future__ import annotations

from knowledge_desktop.engine.graph import snapshot
from knowledge_desktop.engine.graph.node import DetailSource
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from tests.vaultkit import GraphKit


def links(kit: GraphKit, path: str) -> list[tuple[str, str | None]]:
    """(status, target path) of each link of the file at `path`."""
    node = kit.graph.nodes[path]
    return [(link.status, link.target_path) for link in kit.graph.derived[path].resolved_links(node)]


def codes(kit: GraphKit, path: str) -> list[str]:
    return [d.code for d in kit.graph.derived[path].diagnostics]


def vault() -> GraphKit:
    kit = GraphKit(release_details=True)
    kit.write("a/Dup.md", "in a\n")
    kit.write("b/Dup.md", "in b\n")
    kit.write("c/Home.md", "[[Dup]] [[Missing]] [[b/Dup]] [[dup.md|shown]] [x](../a/Dup.md)\n")
    kit.write("d/Other.md", "[[Elsewhere]]\n")
    return kit


def test_a_name_shared_by_two_files_goes_to_the_shortest_path_and_warns() -> None:
    kit = vault()
    assert links(kit, "c/Home.md") == [
        ("ambiguous", "a/Dup.md"),
        ("missing", None),
        ("resolved", "b/Dup.md"),
        ("ambiguous", "a/Dup.md"),
        ("resolved", "a/Dup.md"),
    ]
    assert codes(kit, "c/Home.md") == ["link-ambiguous", "link-missing", "link-ambiguous"]


def test_the_same_folder_wins_over_a_shorter_path() -> None:
    kit = GraphKit()
    kit.write("a/Dup.md", "x\n")
    kit.write("b/deeper/Dup.md", "y\n")
    kit.write("b/deeper/Home.md", "[[Dup]]\n")
    assert links(kit, "b/deeper/Home.md") == [("ambiguous", "b/deeper/Dup.md")]


def test_only_links_that_could_change_are_derived_again() -> None:
    """A new file of a linked name re-derives the notes that link that name and no other;
    an edit that keeps a note's name re-derives that note alone; a deletion re-resolves."""
    kit = vault()
    assert kit.write("e/Missing.md", "now here\n") == {"e/Missing.md", "c/Home.md"}
    assert links(kit, "c/Home.md")[1] == ("resolved", "e/Missing.md")
    assert kit.write("b/Dup.md", "changed text, same name\n") == {"b/Dup.md"}
    assert kit.write("a/Dup.md", None) == {"a/Dup.md", "c/Home.md"}
    assert links(kit, "c/Home.md")[0] == ("resolved", "b/Dup.md")
    assert links(kit, "c/Home.md")[4] == ("missing", None)
    assert "link-ambiguous" not in codes(kit, "c/Home.md")


def test_records_and_notes_link_both_ways() -> None:
    """A note's [[Record title]] reaches the record (with its id); a record's [[Name]] that
    matches no record reaches the note; a record renamed away re-derives the note."""
    kit = GraphKit()
    kit.page("people/ada.md", "pg_ada", "Ada Lovelace", "See [[Diary]] and [[Nobody]].\n", type="person")
    kit.write("journal/Diary.md", "Met [[Ada Lovelace]].\n")
    note = kit.graph.derived["journal/Diary.md"]
    (link,) = note.resolved_links(kit.graph.nodes["journal/Diary.md"])
    assert (link.status, link.target_id, link.target_path) == ("resolved", "pg_ada", "private/people/ada.md")
    assert kit.links("people/ada.md") == [("resolved", None), ("missing", None)]
    assert links(kit, "private/people/ada.md")[0] == ("resolved", "journal/Diary.md")
    changed = kit.page("people/ada.md", "pg_ada", "Ada King", "See [[Diary]].\n", type="person")
    assert "journal/Diary.md" in changed
    assert links(kit, "journal/Diary.md") == [("missing", None)]


def test_a_record_link_still_prefers_a_record() -> None:
    kit = GraphKit()
    kit.page("people/ada.md", "pg_ada", "Ada", "x\n", type="person")
    kit.page("people/bob.md", "pg_bob", "Bob", "[[Ada]]\n", type="person")
    kit.write("notes/Ada.md", "a note of the same name\n")
    assert kit.links("people/bob.md") == [("resolved", "pg_ada")]


def test_a_restored_graph_still_re_derives_notes_on_a_new_file() -> None:
    """The snapshot keeps what a note is and the vault-wide keys it watched: a file that
    appears after a reopen re-derives the note that linked its name."""
    kit = vault()
    kit.graph.release()
    rows = [
        snapshot.decode(
            p, kit.graph.nodes[p].sha256, snapshot.encode(kit.graph.nodes[p], kit.graph.derived[p])
        )
        for p in kit.graph.nodes
    ]
    restored = VaultGraph()
    restored.details = DetailSource(kit._read_back)
    restored.restore(rows)
    assert restored.nodes["c/Home.md"].is_note
    kit.graph = restored
    assert kit.write("e/Missing.md", "here\n") == {"e/Missing.md", "c/Home.md"}
    assert links(kit, "c/Home.md")[1] == ("resolved", "e/Missing.md")


def test_a_path_that_climbs_out_of_the_vault_is_missing_and_says_so() -> None:
    """The vault boundary stays: a note's link never reaches outside the vault."""
    kit = GraphKit()
    kit.write("a/N.md", "[x](../../etc/passwd.md) ![i](../../../x.png) [ok](/a/N.md)\n")
    assert links(kit, "a/N.md") == [("missing", None), ("missing", None), ("resolved", "a/N.md")]
    messages = [d.message for d in kit.graph.derived["a/N.md"].diagnostics]
    assert messages == [
        "link (../../etc/passwd.md) leaves the vault",
        "link ![](../../../x.png) leaves the vault",
    ]
