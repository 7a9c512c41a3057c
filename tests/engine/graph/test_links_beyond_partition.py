"""A record's link that finds nothing in its own partition reaches the rest of the vault the
owner reads, by the rule a note's link follows (issue 25 §5; docs/decisions.md, "Links beyond a
record's partition"): the other partitions' records by file name, title or alias, with no id
(ids are a partition's own), and incrementally — a record that takes, drops or changes the
linked name in another partition derives the linking record again."""

from __future__ import annotations

from knowledge_desktop.engine.graph.derived import ResolvedLink
from tests.vaultkit import GraphKit, envelope, record_text


def shared_page(kit: GraphKit, rel: str, record_id: str, title: str, body: str = "") -> set[str]:
    """A page of the second partition, `shared`."""
    text = record_text(envelope(record_id, "page", title, scope="shared", type="person"), body)
    return kit.write(f"shared/{rel}", text)


def kit_of_two() -> GraphKit:
    kit = GraphKit()
    kit.graph.ontologies["shared"] = kit.graph.ontologies["private"]
    return kit


def resolved(kit: GraphKit, path: str) -> list[ResolvedLink]:
    return kit.graph.derived[path].resolved_links(kit.graph.nodes[path])


def test_a_title_found_only_in_another_partition_reaches_that_record_by_path() -> None:
    kit = kit_of_two()
    shared_page(kit, "people/grace.md", "pg_grace", "Grace Hopper")
    kit.page(
        "people/ada.md",
        "pg_ada",
        "Ada",
        "[[Grace Hopper]] [[grace]] [g](../../shared/people/grace.md) [n](../../shared/none.md)\n",
        type="person",
    )
    links = resolved(kit, "private/people/ada.md")
    assert [(link.status, link.target_id, link.target_path) for link in links] == [
        ("resolved", None, "shared/people/grace.md"),  # by title
        ("resolved", None, "shared/people/grace.md"),  # by file name
        ("resolved", None, "shared/people/grace.md"),  # a Markdown path out of the partition
        ("outside", None, None),  # that leads nowhere: as before
    ]
    assert kit.codes("people/ada.md") == ["link-outside-partition"]


def test_the_own_partition_still_comes_first() -> None:
    kit = kit_of_two()
    shared_page(kit, "people/grace.md", "pg_grace_shared", "Grace")
    kit.page("people/grace.md", "pg_grace", "Grace", "x\n", type="person")
    kit.page("people/ada.md", "pg_ada", "Ada", "[[Grace]]\n", type="person")
    assert kit.links("people/ada.md") == [("resolved", "pg_grace")]


def test_a_title_change_in_another_partition_derives_the_linking_record_again() -> None:
    kit = kit_of_two()
    kit.page("people/ada.md", "pg_ada", "Ada", "[[Grace Hopper]]\n", type="person")
    assert kit.links("people/ada.md") == [("missing", None)]
    # a record of the other partition takes the title: the link now reaches it
    assert "private/people/ada.md" in shared_page(kit, "people/g.md", "pg_g", "Grace Hopper")
    assert resolved(kit, "private/people/ada.md")[0].target_path == "shared/people/g.md"
    # it drops it: missing again
    assert "private/people/ada.md" in shared_page(kit, "people/g.md", "pg_g", "Rear Admiral")
    assert kit.links("people/ada.md") == [("missing", None)]
    assert kit.codes("people/ada.md") == ["link-missing"]
    # renamed (a new file of the linked name): found by file name
    kit.write("shared/people/g.md", None)
    assert "private/people/ada.md" in shared_page(kit, "people/Grace Hopper.md", "pg_g", "Rear Admiral")
    assert resolved(kit, "private/people/ada.md")[0].target_path == "shared/people/Grace Hopper.md"
    # and an edit that changes no name derives nothing else
    changed = shared_page(kit, "people/Grace Hopper.md", "pg_g", "Rear Admiral", "new text\n")
    assert changed == {"shared/people/Grace Hopper.md"}
