"""Decisions (spec: knowledge-entities-extraction.md, "Extraction and identity"): ADR
layouts and `type: adr|decision`, MADR frontmatter, Status/Date paragraphs and list items
in the first 40 lines, supersession resolved relative to the ADR and only to other
extracted ADRs, and Decision headings in other documents with occurrence ids."""

from __future__ import annotations

from typing import Any

import pytest

from tests.repokit import RepoKit, codes, entity, ids_of

MADR = """---
status: accepted
date: 2024-03-01
supersedes: 0001-use-json.md
---
# Use YAML frontmatter

## Context and Problem Statement

Records need fields.

## Decision Outcome

Chosen option: YAML.
"""

NYGARD = """# 1. Use JSON

Date: 2023-01-10

## Status

Superseded by [2. Use YAML frontmatter](0002-use-yaml.md)

## Context

Records need fields.

## Decision

We use JSON.
"""


@pytest.mark.parametrize("folder", ["adr", "adrs", "decisions", "doc/architecture/decisions"])
def test_every_adr_layout_gives_one_decision_per_document(rk: RepoKit, folder: str) -> None:
    rk.write(f"{folder}/0001-use-json.md", NYGARD)
    rk.write(f"{folder}/README.md", "# Decisions\n\n- [1. Use JSON](0001-use-json.md)\n")
    rk.write(f"{folder}/template.md", "# Title\n\n## Status\n\nproposed\n")
    doc = rk.extract(history=False)
    assert ids_of(doc, "decision") == [f"decision:{folder}/0001-use-json.md"]
    (e,) = doc["entities"]
    assert (e["name"], e["status"], e["date"]) == (
        "1. Use JSON",
        "Superseded by [2. Use YAML frontmatter](0002-use-yaml.md)",
        "2023-01-10",
    )
    assert e["evidence"][0]["lineStart"] == 1
    assert e["evidence"][0]["lineEnd"] == 15


def test_a_document_declaring_type_adr_or_decision_is_an_adr_anywhere(rk: RepoKit) -> None:
    rk.write("notes/storage.md", "---\ntype: adr\nstatus: proposed\n---\n# Storage\n\nText.\n")
    rk.write("rfcs/0007.md", "---\ntype: decision\n---\n# RFC 7\n\nText.\n")
    rk.write("notes/other.md", "---\ntype: note\n---\n# Other\n\nText.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["decision:notes/storage.md", "decision:rfcs/0007.md"]
    assert entity(doc, "decision:notes/storage.md")["status"] == "proposed"


def test_madr_frontmatter_and_nygard_status_resolve_supersession_both_ways(rk: RepoKit) -> None:
    rk.write("docs/adr/0001-use-json.md", NYGARD)
    rk.write("docs/adr/0002-use-yaml.md", MADR)
    doc = rk.extract(history=False)
    new = entity(doc, "decision:docs/adr/0002-use-yaml.md")
    old = entity(doc, "decision:docs/adr/0001-use-json.md")
    assert (new["status"], new["date"]) == ("accepted", "2024-03-01")
    assert {"kind": "supersedes", "target": old["id"]} in new["links"]
    assert {"kind": "superseded-by", "target": new["id"]} in old["links"]
    assert new["evidence"][0]["lineStart"] == 6  # the body after the frontmatter
    assert doc["coverage"]["decisions"]["status"] == "complete"


def test_list_item_metadata_and_bold_keys_are_read(rk: RepoKit) -> None:
    rk.write(
        "adr/0003-x.md",
        "# Use X\n\n* Status: accepted\n* Deciders: Ada\n* Date: 2022-05-05\n\nText.\n",
    )
    rk.write("adr/0004-y.md", "# Use Y\n\n**Status:** Rejected\n\n**Date**: 2022-06-06\n")
    doc = rk.extract(history=False)
    assert (
        entity(doc, "decision:adr/0003-x.md")["status"],
        entity(doc, "decision:adr/0003-x.md")["date"],
    ) == (
        "accepted",
        "2022-05-05",
    )
    assert entity(doc, "decision:adr/0004-y.md")["status"] == "Rejected"
    assert entity(doc, "decision:adr/0004-y.md")["date"] == "2022-06-06"


def test_frontmatter_wins_and_metadata_after_line_40_is_not_read(rk: RepoKit) -> None:
    filler = "".join(f"Line {n}.\n\n" for n in range(25))
    rk.write(
        "adr/0005.md", f"---\nstatus: accepted\n---\n# Five\n\nStatus: rejected\n{filler}Date: 2020-01-01\n"
    )
    e = entity(rk.extract(history=False), "decision:adr/0005.md")
    assert e["status"] == "accepted"
    assert "date" not in e


def test_supersession_only_to_other_extracted_adrs_else_partial(rk: RepoKit) -> None:
    rk.write("README.md", "# Readme\n")
    rk.write("adr/0001.md", "---\nsuperseded-by: [../README.md, 0009-missing.md, 0001.md]\n---\n# One\n")
    rk.write("adr/sub/0002.md", "---\nsupersedes: ../0001.md\n---\n# Two\n")
    doc = rk.extract(history=False)
    assert [
        link for link in entity(doc, "decision:adr/0001.md")["links"] if link["kind"] != "affected-path"
    ] == []
    assert entity(doc, "decision:adr/sub/0002.md")["links"] == [
        {"kind": "supersedes", "target": "decision:adr/0001.md"}
    ]
    unresolved = [
        r for r in doc["coverage"]["decisions"]["reasons"] if r["code"] == "unresolved-supersession"
    ]
    assert [r["detail"] for r in unresolved] == [
        "superseded-by ../README.md",
        "superseded-by 0001.md",
        "superseded-by 0009-missing.md",
    ]
    assert doc["coverage"]["decisions"]["status"] == "partial"


def test_superseded_by_with_an_underscore_is_the_same_key(rk: RepoKit) -> None:
    rk.write("adr/0001.md", "---\nsuperseded_by: 0002.md\n---\n# One\n")
    rk.write("adr/0002.md", "---\nsupersedes: [0001.md]\n---\n# Two\n")
    doc = rk.extract(history=False)
    assert entity(doc, "decision:adr/0001.md")["links"] == [
        {"kind": "superseded-by", "target": "decision:adr/0002.md"}
    ]
    assert "unresolved-supersession" not in codes(doc, "decisions")


def test_supersession_by_number_or_bare_id_is_unresolved_not_dropped(rk: RepoKit) -> None:
    rk.write("adr/0129.md", "---\nsuperseded_by: [130]\n---\n# One twenty-nine\n")
    rk.write("adr/0130.md", "---\nsupersedes: ADR-0129\nsuperseded-by: 131\n---\n# One thirty\n")
    doc = rk.extract(history=False)
    assert [link for link in doc["entities"] if link["links"]] == []
    unresolved = sorted(
        (r["path"], r["detail"])
        for r in doc["coverage"]["decisions"]["reasons"]
        if r["code"] == "unresolved-supersession"
    )
    assert unresolved == [
        ("adr/0129.md", "superseded-by 130"),
        ("adr/0130.md", "superseded-by 131"),
        ("adr/0130.md", "supersedes ADR-0129"),
    ]
    assert doc["coverage"]["decisions"]["status"] == "partial"
    assert "invalid-frontmatter" not in codes(doc, "decisions")


def test_invalid_frontmatter_is_partial_and_the_body_still_counts(rk: RepoKit) -> None:
    rk.write("adr/0001.md", "---\nstatus: [unclosed\n---\n# One\n\nStatus: accepted\n")
    doc = rk.extract(history=False)
    assert entity(doc, "decision:adr/0001.md")["status"] == "accepted"
    assert "invalid-frontmatter" in codes(doc, "documents")
    assert doc["coverage"]["decisions"]["status"] == "partial"


def test_decision_headings_in_other_documents_with_occurrence_ids(rk: RepoKit) -> None:
    rk.write(
        "meetings/2024-q1.md",
        "# Q1 planning\n\n## Storage\n\n### Decision\n\nKeep SQLite.\n\n"
        "## Sync\n\n### Decision\n\nNo cloud sync.\n\n## Decision: Ship in March\n\nAgreed.\n\n"
        "```\n## Decision\n```\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == [
        "decision:meetings/2024-q1.md#Decision",
        "decision:meetings/2024-q1.md#Decision: Ship in March",
        "decision:meetings/2024-q1.md#Decision~2",
    ]
    first = entity(doc, "decision:meetings/2024-q1.md#Decision")
    assert first["name"] == "Storage"
    assert (first["evidence"][0]["lineStart"], first["evidence"][0]["lineEnd"]) == (5, 7)
    assert entity(doc, "decision:meetings/2024-q1.md#Decision~2")["name"] == "Sync"
    assert entity(doc, "decision:meetings/2024-q1.md#Decision: Ship in March")["name"] == "Ship in March"


def test_an_adrs_decision_heading_is_not_a_second_decision(rk: RepoKit) -> None:
    rk.write("adr/0001.md", NYGARD)
    assert ids_of(rk.extract(history=False)) == ["decision:adr/0001.md"]


def test_cited_paths_become_affected_path_links_only_when_they_exist(rk: RepoKit) -> None:
    rk.write("src/store.py", "pass\n")
    rk.write(
        "adr/0001.md",
        "# One\n\nSee [store](../src/store.py), [gone](../src/gone.py), [web](https://x.org).\n",
    )
    e = entity(rk.extract(history=False), "decision:adr/0001.md")
    assert e["links"] == [{"kind": "affected-path", "target": "src/store.py"}]


def test_a_numbered_adr_whose_slug_ends_in_template_is_a_decision(rk: RepoKit) -> None:
    # MADR's own 0019-consequences-in-minimal-template.md is a record about a template.
    rk.write(
        "docs/decisions/0019-consequences-in-minimal-template.md", "---\nstatus: accepted\n---\n# Minimal\n"
    )
    rk.write("docs/decisions/adr-template.md", "# Title\n\n## Status\n\nproposed\n")
    doc = rk.extract(history=False)
    assert ids_of(doc, "decision") == ["decision:docs/decisions/0019-consequences-in-minimal-template.md"]


def test_a_frontmatter_status_with_a_link_declares_supersession(rk: RepoKit) -> None:
    rk.write("adr/0001-a.md", "---\nstatus: superseded by [ADR-0002](0002-b.md)\n---\n# A\n")
    rk.write("adr/0002-b.md", "---\nstatus: accepted\n---\n# B\n\nStatus: Supersedes [ADR-0001](0001-a.md)\n")
    doc = rk.extract(history=False)
    a, b = entity(doc, "decision:adr/0001-a.md"), entity(doc, "decision:adr/0002-b.md")
    assert a["status"] == "superseded by [ADR-0002](0002-b.md)"
    assert {"kind": "superseded-by", "target": b["id"]} in a["links"]
    assert {"kind": "supersedes", "target": a["id"]} in b["links"]
    assert doc["coverage"]["decisions"]["status"] == "complete"


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("---\nstatus: Superseded by ADR-0002\n---\n# A\n", "Superseded by ADR-0002"),
        ("# A\n\nStatus: Supersedes the old storage decision\n", "Supersedes the old storage decision"),
        (
            "# A\n\n## Status\n\nAccepted\n\nSuperseded by ADR 2, see the wiki\n",
            "Superseded by ADR 2, see the wiki",
        ),
    ],
)
def test_a_status_declaring_supersession_without_a_link_is_unresolved(
    rk: RepoKit, text: str, quoted: str
) -> None:
    rk.write("adr/0001-a.md", text)
    rk.write("adr/0002-b.md", "# B\n\nStatus: accepted\n")
    doc = rk.extract(history=False)
    assert entity(doc, "decision:adr/0001-a.md")["links"] == []
    reasons = [r for r in doc["coverage"]["decisions"]["reasons"] if r["code"] == "unresolved-supersession"]
    assert [r["path"] for r in reasons] == ["adr/0001-a.md"]
    assert reasons[0]["detail"] == f"no link in status {quoted!r}"
    assert doc["coverage"]["decisions"]["status"] == "partial"


def test_an_unresolved_status_is_quoted_bounded(rk: RepoKit) -> None:
    rk.write("adr/0001-a.md", "# A\n\nStatus: Superseded by " + "x" * 400 + "\n")
    (reason,) = rk.extract(history=False)["coverage"]["decisions"]["reasons"]
    assert reason["code"] == "unresolved-supersession"
    assert len(reason["detail"]) < 160
    assert reason["detail"].startswith("no link in status 'Superseded by xxx")


def _supersession(e: dict[str, Any]) -> list[dict[str, str]]:
    return [link for link in e["links"] if link["kind"] in ("supersedes", "superseded-by")]


def test_a_numbered_blank_form_named_template_is_not_a_decision(rk: RepoKit) -> None:
    # The blank form kept as number zero beside the records: nothing was decided in it.
    rk.write("docs/adr/0000-template.md", "# ADR 0000: Title\n\n- **Status:** Proposed | Accepted\n")
    rk.write("docs/adr/0001-keep-logs.md", "# Keep logs\n\n- **Status:** Accepted\n")
    assert ids_of(rk.extract(history=False), "decision") == ["decision:docs/adr/0001-keep-logs.md"]


def test_supersedes_and_superseded_by_items_declare_supersession(rk: RepoKit) -> None:
    rk.write(
        "adr/0001-poll.md",
        "# Poll the queue\n\n- **Status:** Retired\n- **Superseded by:** [ADR-2](0002-push.md)\n",
    )
    rk.write(
        "adr/0002-push.md",
        "# Push events\n\n- **Status:** Accepted\n- **Date:** 2024-04-04\n"
        "- **Supersedes:** [ADR-1](0001-poll.md)\n",
    )
    rk.write("adr/0003-cache.md", "# Cache\n\n* Status: accepted\n* Supersedes: none (builds on ADR-2)\n")
    rk.write("adr/0004-trace.md", "# Trace\n\nStatus: accepted\nSupersedes: N/A\nSuperseded by: —\n")
    doc = rk.extract(history=False)
    poll, push = entity(doc, "decision:adr/0001-poll.md"), entity(doc, "decision:adr/0002-push.md")
    assert _supersession(poll) == [{"kind": "superseded-by", "target": push["id"]}]
    assert _supersession(push) == [{"kind": "supersedes", "target": poll["id"]}]
    assert (push["status"], push["date"]) == ("Accepted", "2024-04-04")
    assert _supersession(entity(doc, "decision:adr/0003-cache.md")) == []
    assert _supersession(entity(doc, "decision:adr/0004-trace.md")) == []
    assert doc["coverage"]["decisions"]["status"] == "complete"


def test_a_supersedes_item_without_a_link_is_unresolved(rk: RepoKit) -> None:
    rk.write("adr/0002-b.md", "# B\n\n- Status: accepted\n- Supersedes: ADR-0001\n")
    doc = rk.extract(history=False)
    reasons = [r for r in doc["coverage"]["decisions"]["reasons"] if r["code"] == "unresolved-supersession"]
    assert [(r["path"], r["detail"]) for r in reasons] == [
        ("adr/0002-b.md", "no link in supersedes 'ADR-0001'")
    ]


@pytest.mark.parametrize(
    "status",
    [
        "Accepted (2024-02-02) — supersedes [the first](0001-a.md)",
        "Accepted; supersedes [the first](0001-a.md)",
        "Accepted (supersedes [the first](0001-a.md))",
        "**Accepted** - supersedes [the first](0001-a.md)",
    ],
)
def test_a_later_status_clause_opening_with_the_verb_declares_supersession(rk: RepoKit, status: str) -> None:
    rk.write("adr/0001-a.md", "# A\n\n## Status\n\nAccepted\n")
    rk.write("adr/0002-b.md", f"# B\n\n## Status\n\n{status}\n")
    doc = rk.extract(history=False)
    b = entity(doc, "decision:adr/0002-b.md")
    assert _supersession(b) == [{"kind": "supersedes", "target": "decision:adr/0001-a.md"}]
    assert doc["coverage"]["decisions"]["status"] == "complete"


def test_a_verb_inside_a_clause_about_something_else_declares_nothing(rk: RepoKit) -> None:
    # The clause's subject is a figure the record quoted, not the record itself.
    rk.write(
        "adr/0001-a.md", "# A\n\nStatus: Accepted; the ten-second figure is superseded by [B](0002-b.md)\n"
    )
    rk.write("adr/0002-b.md", "# B\n\nStatus: Accepted\n")
    doc = rk.extract(history=False)
    assert _supersession(entity(doc, "decision:adr/0001-a.md")) == []
    assert "unresolved-supersession" not in codes(doc, "decisions")


def test_a_later_clause_naming_a_record_without_a_link_is_unresolved(rk: RepoKit) -> None:
    rk.write("adr/0009-sqlite.md", "# SQLite\n\n## Status\n\nAccepted (supersedes ADR-0003 as default)\n")
    doc = rk.extract(history=False)
    (reason,) = doc["coverage"]["decisions"]["reasons"]
    assert (reason["code"], reason["detail"]) == (
        "unresolved-supersession",
        "no link in status 'Accepted (supersedes ADR-0003 as default)'",
    )


def test_a_decisions_heading_over_sub_headings_is_a_log_of_entries(rk: RepoKit) -> None:
    rk.write(
        "docs/LOG.md",
        "# Decisions\n\nAppend-only; a change adds an entry.\n\n"
        "## L-1 · Keep SQLite\n\nOne file is enough.\n\n### Cost\n\nNo concurrent writers.\n\n"
        "## L-2 · No cloud sync\n\nLocal only.\n",
    )
    rk.write("notes/retro.md", "# Retro\n\n## Decisions\n\nShip in March.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc, "decision") == [
        "decision:docs/LOG.md#L-1 · Keep SQLite",
        "decision:docs/LOG.md#L-2 · No cloud sync",
        "decision:notes/retro.md#Decisions",
    ]
    first = entity(doc, "decision:docs/LOG.md#L-1 · Keep SQLite")
    assert first["name"] == "L-1 · Keep SQLite"
    assert (first["evidence"][0]["lineStart"], first["evidence"][0]["lineEnd"]) == (5, 11)
    assert entity(doc, "decision:notes/retro.md#Decisions")["name"] == "Retro"


def test_a_dash_inside_the_link_text_keeps_the_supersession(rk: RepoKit) -> None:
    rk.write("adr/0002-b.md", "# 2. B\n\nStatus: Superseded by [3. Use C - the new way](0003-c.md)\n")
    rk.write("adr/0003-c.md", "# 3. Use C\n\nStatus: Accepted\n")
    doc = rk.extract(history=False)
    links = entity(doc, "decision:adr/0002-b.md")["links"]
    assert {"kind": "superseded-by", "target": "decision:adr/0003-c.md"} in links
    assert "unresolved-supersession" not in codes(doc, "decisions")


def test_an_empty_supersession_key_leaves_the_status_to_declare_it(rk: RepoKit) -> None:
    rk.write("adr/0002-b.md", "---\nsuperseded_by:\n---\n# 2. B\n\nStatus: Superseded by [C](0003-c.md)\n")
    rk.write("adr/0003-c.md", "# 3. Use C\n\nStatus: Accepted\n")
    links = entity(rk.extract(history=False), "decision:adr/0002-b.md")["links"]
    assert {"kind": "superseded-by", "target": "decision:adr/0003-c.md"} in links


def test_a_status_of_superseded_alone_is_unresolved_and_with_a_link_names_the_successor(
    rk: RepoKit,
) -> None:
    rk.write("adr/0001-a.md", "# A\n\nStatus: Superseded\n")
    rk.write("adr/0002-b.md", "# B\n\nStatus: Superseded ([C](0003-c.md))\n")
    rk.write("adr/0003-c.md", "# C\n\nStatus: Accepted\n")
    doc = rk.extract(history=False)
    assert _supersession(entity(doc, "decision:adr/0002-b.md")) == [
        {"kind": "superseded-by", "target": "decision:adr/0003-c.md"}
    ]
    reasons = [r for r in doc["coverage"]["decisions"]["reasons"] if r["code"] == "unresolved-supersession"]
    expected = [("adr/0001-a.md", "no link in status 'Superseded'")]
    assert [(r["path"], r["detail"]) for r in reasons] == expected


@pytest.mark.parametrize(
    "item", ["nothing yet, see [A](0001-a.md)", "NA-123 [A](0001-a.md)", "— [A](0001-a.md)"]
)
def test_a_supersedes_item_that_reads_like_nothing_still_names_its_link(rk: RepoKit, item: str) -> None:
    rk.write("adr/0001-a.md", "# A\n\nStatus: Accepted\n")
    rk.write("adr/0002-b.md", f"# B\n\n- Status: Accepted\n- Supersedes: {item}\n")
    doc = rk.extract(history=False)
    assert _supersession(entity(doc, "decision:adr/0002-b.md")) == [
        {"kind": "supersedes", "target": "decision:adr/0001-a.md"}
    ]
    assert doc["coverage"]["decisions"]["status"] == "complete"


def test_a_decisions_heading_over_the_parts_of_one_decision_is_one_decision(rk: RepoKit) -> None:
    rk.write(
        "notes/sync.md",
        "# Sync design\n\n## Decisions\n\n### Context\n\nTwo laptops.\n\n### Outcome\n\nNo cloud sync.\n\n"
        "## Later\n\nMore.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc, "decision") == ["decision:notes/sync.md#Decisions"]
    one = entity(doc, "decision:notes/sync.md#Decisions")
    assert one["name"] == "Sync design"
    assert (one["evidence"][0]["lineStart"], one["evidence"][0]["lineEnd"]) == (3, 11)


def test_bare_decision_entries_in_a_log_are_named_by_their_first_line(rk: RepoKit) -> None:
    rk.write(
        "DECISIONS.md",
        "# Decisions\n\n## Decision\n\nKeep **SQLite** as the only store.\n\n## Decision\n\n"
        "Ship monthly.\n\n## Storage\n\n### Decision\n\nOne file.\n",
    )
    doc = rk.extract(history=False)
    names = {e["id"]: e["name"] for e in doc["entities"] if e["kind"] == "decision"}
    assert names == {
        "decision:DECISIONS.md#Decision": "Keep SQLite as the only store.",
        "decision:DECISIONS.md#Decision~2": "Ship monthly.",
        "decision:DECISIONS.md#Decision~3": "Storage",  # the entry itself is no second decision
    }
