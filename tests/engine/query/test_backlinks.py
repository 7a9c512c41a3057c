"""Backlinks of one record: linking lines, relationships, typed references, unlinked mentions."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query.backlinks import CONTEXT_CHARS, _trim, plain_line
from tests.vaultkit import VaultKit

LONG = "Some words before the link. " * 12


@pytest.fixture
def linked(kit: VaultKit) -> VaultKit:
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", "Ada Lovelace wrote notes.\n", aliases=["Countess"]
    )
    kit.page("private/people/babbage.md", "pg_bab", "Charles Babbage", "Worked with [[Ada Lovelace]].\n")
    kit.page("private/projects/engine.md", "pg_eng", "Analytical Engine", "The engine.\n")
    kit.page(
        "private/notes/long.md",
        "pg_long",
        "Long note",
        f"Intro line.\n\n{LONG}then [[people/ada|the Countess]] and more words after it.\n"
        "Also [Ada](../people/ada.md) in Markdown.\n",
    )
    kit.relationship("private/relationships/ada-engine.md", "rl_out", "pg_ada", "pg_eng", "relates_to")
    kit.relationship("private/relationships/bab-ada.md", "rl_in", "pg_bab", "pg_ada", "mentions")
    kit.claim("private/claims/about.md", "cl_about", "Ada likes tea", entities=["pg_ada"])
    kit.claim(
        "private/claims/owned.md", "cl_owned", "Ada writes the memo", claim_kind="commitment", owner="pg_ada"
    )
    kit.page("private/notes/tea.md", "pg_tea", "Tea notes", "Nothing here.\nThe Countess drank tea.\n")
    kit.page("private/notes/talk.md", "pg_talk", "Talk", "Ada Lovelace gave a talk.\n")
    kit.page("private/notes/other.md", "pg_other", "Other", "About engines only.\n")
    return kit


def backlinks(kit: VaultKit, key: str = "pg_ada") -> dict[str, Any]:
    return kit.scan().backlinks(key)


def test_linking_lines_carry_their_text_with_the_link_marked(linked: VaultKit) -> None:
    result = backlinks(linked)
    by_source = {entry["id"]: entry for entry in result["linked"]}
    assert set(by_source) == {"pg_bab", "pg_long"}
    line = by_source["pg_bab"]["lines"][0]
    assert line["line"] > 1
    assert line["context"] == "Worked with Ada Lovelace."
    start, end = line["mark"]
    assert line["context"][start:end] == "Ada Lovelace"
    long_lines = by_source["pg_long"]["lines"]
    assert [item["linkKind"] for item in long_lines] == ["wiki", "markdown"]
    wiki, markdown = long_lines
    assert len(wiki["context"]) <= CONTEXT_CHARS + 2
    assert wiki["context"].startswith("…")
    assert wiki["context"][wiki["mark"][0] : wiki["mark"][1]] == "the Countess"
    assert markdown["context"] == "Also Ada in Markdown."
    assert markdown["context"][markdown["mark"][0] : markdown["mark"][1]] == "Ada"


def test_relationships_in_both_directions_are_grouped_by_label(linked: VaultKit) -> None:
    groups = {group["label"]: group for group in backlinks(linked)["relationships"]}
    assert set(groups) == {"mentions", "relates_to"}
    (out,) = groups["relates_to"]["items"]
    assert out["direction"] == "out"
    assert out["other"]["title"] == "Analytical Engine"
    assert out["relationship"]["id"] == "rl_out"
    (incoming,) = groups["mentions"]["items"]
    assert incoming["direction"] == "in"
    assert incoming["other"]["id"] == "pg_bab"
    assert groups["relates_to"]["name"] == "Relates to"  # the ontology's display label


def test_the_other_end_sees_the_relationship_reversed(linked: VaultKit) -> None:
    groups = {group["label"]: group for group in backlinks(linked, "pg_eng")["relationships"]}
    (item,) = groups["relates_to"]["items"]
    assert (item["direction"], item["other"]["title"]) == ("in", "Ada Lovelace")


def test_claim_references_are_grouped_by_field(linked: VaultKit) -> None:
    groups = {group["field"]: group for group in backlinks(linked)["references"]}
    assert [item["id"] for item in groups["entities"]["items"]] == ["cl_about"]
    assert [item["id"] for item in groups["owner"]["items"]] == ["cl_owned"]
    assert groups["entities"]["name"] == "Claims about it"
    assert "from" not in groups
    assert "to" not in groups


def test_unlinked_mentions_skip_itself_and_records_that_already_point_here(linked: VaultKit) -> None:
    mentions = {m["id"]: m for m in backlinks(linked)["mentions"]}
    assert set(mentions) == {"pg_tea", "pg_talk"}
    tea = mentions["pg_tea"]
    assert tea["name"] == "Countess"
    assert tea["context"] == "The Countess drank tea."
    assert tea["context"][tea["mark"][0] : tea["mark"][1]] == "Countess"
    assert tea["line"] > 1


def test_counts_and_a_record_nothing_points_at(linked: VaultKit) -> None:
    counts = backlinks(linked)["counts"]
    assert counts == {"linked": 3, "relationships": 2, "references": 2, "mentions": 2}
    lonely = backlinks(linked, "private/notes/other.md")
    assert lonely["counts"] == {"linked": 0, "relationships": 0, "references": 0, "mentions": 0}


def test_unknown_records_are_a_query_error(linked: VaultKit) -> None:
    with pytest.raises(QueryError):
        backlinks(linked, "pg_nobody")


def test_trim_keeps_the_mark_in_view() -> None:
    text = "x" * 500 + "[[Target]]" + "y" * 500
    context, mark = _trim(text, (500, 510))
    assert mark is not None
    assert context[mark[0] : mark[1]] == "[[Target]]"
    assert context.startswith("…")
    assert context.endswith("…")
    assert _trim("   short  ", None) == ("short", None)


@pytest.mark.parametrize(
    ("raw", "marked", "plain", "mark"),
    [
        (
            "- **Who:** [[Mira]], [[companies/harbor-lane-studio|Harbor Lane Studio]].",
            "[[companies/harbor-lane-studio|Harbor Lane Studio]]",
            "Who: Mira, Harbor Lane Studio.",
            "Harbor Lane Studio",
        ),
        (
            "## Met [[people/ada-lovelace]] today",
            "[[people/ada-lovelace]]",
            "Met ada-lovelace today",
            "ada-lovelace",
        ),
        ("> 1. See [Ada](../people/ada.md) *now*", "[Ada](../people/ada.md)", "See Ada now", "Ada"),
        (
            "| [[people/ada.md#Early life]] | `founder` |",
            "[[people/ada.md#Early life]]",
            "ada · founder",
            "ada",
        ),
        (
            "[[Elif]] and **[[Ada]]** on snake_case_names",
            "[[Ada]]",
            "Elif and Ada on snake_case_names",
            "Ada",
        ),
    ],
)
def test_context_lines_read_as_text_with_the_mark_kept(raw: str, marked: str, plain: str, mark: str) -> None:
    start = raw.index(marked)
    text, span = plain_line(raw, (start, start + len(marked)))
    assert text == plain
    assert span is not None
    assert text[span[0] : span[1]] == mark


def test_a_table_rule_has_no_context() -> None:
    assert plain_line("|---|:---:|", None) == ("", None)
