"""Concepts (spec: knowledge-entities-extraction.md, "Extraction and identity"):
glossary headings, `**Term**: definition`, `Term — definition` (em and en dash),
definition lists, concept documents with aliases bound to their title, multi-term
glossary aliases left unbound (partial), exact names merging evidence, and fenced or
generated content never making a definition."""

from __future__ import annotations

from tests.repokit import RepoKit, codes, entity, ids_of, region

GLOSSARY = """# Glossary

**Vault**: a folder of records.

- **Partition:** a top-level folder.
- Claim — an assertion with evidence.
- Relationship – a typed edge.
- not a term, just prose — with a dash in it.

## Ontology

The declared types.

```
**Fenced**: not a definition.
Fenced term — not a definition either.
```

    **Indented**: code, not a definition.
"""


def test_a_glossary_document_yields_each_pattern(rk: RepoKit) -> None:
    rk.write("docs/GLOSSARY.md", GLOSSARY)
    doc = rk.extract(history=False)
    assert ids_of(doc) == [
        "concept:Claim",
        "concept:Ontology",
        "concept:Partition",
        "concept:Relationship",
        "concept:Vault",
    ]
    assert (
        region(entity(doc, "concept:Vault"))["lineStart"],
        region(entity(doc, "concept:Vault"))["lineEnd"],
    ) == (
        3,
        3,
    )
    ontology = region(entity(doc, "concept:Ontology"))
    assert (ontology["lineStart"], ontology["lineEnd"]) == (10, 19)
    assert doc["coverage"]["concepts"]["status"] == "complete"


def test_glossary_sections_in_other_documents_and_bold_prose_outside_them(rk: RepoKit) -> None:
    rk.write(
        "README.md",
        "# Project\n\n**Note**: bold prose is not a definition here.\n\nWord — nor is this.\n\n"
        "## Terms\n\n- **Atom** — a small note.\n- **Digest**: a summary.\n\n"
        "## Usage\n\n**Run**: not a term.\n",
    )
    assert ids_of(rk.extract(history=False)) == ["concept:Atom", "concept:Digest"]


def test_definition_lists_define_terms_anywhere(rk: RepoKit) -> None:
    rk.write(
        "docs/guide.md",
        "# Guide\n\nScope\n: a partition's name.\n\nLifecycle\n: active or withdrawn.\n  More.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Lifecycle", "concept:Scope"]
    lifecycle = region(entity(doc, "concept:Lifecycle"))
    assert (lifecycle["lineStart"], lifecycle["lineEnd"]) == (6, 8)


def test_generated_content_never_makes_a_definition_and_is_partial(rk: RepoKit) -> None:
    rk.write(
        "GLOSSARY.md",
        "# Glossary\n\n**Kept**: by hand.\n\n<!-- BEGIN GENERATED: terms -->\n**Made**: by a tool.\n"
        "<!-- END GENERATED -->\n",
    )
    rk.write("TERMS.md", "<!-- This file is generated. Do not edit. -->\n# Terms\n\n**Tool**: generated.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Kept"]
    assert "generated-content" in codes(doc, "concepts")
    assert doc["coverage"]["concepts"]["status"] == "partial"


def test_a_concept_document_binds_its_aliases_to_its_title(rk: RepoKit) -> None:
    rk.write(
        "concepts/vault.md",
        "---\ntype: concept\naliases: [vault folder, Tresor]\n---\n# Vault\n\nA folder.\n",
    )
    rk.write("notes/record.md", "---\ntitle: Record\naliases: [record file]\n---\nA Markdown file.\n")
    doc = rk.extract(history=False)
    assert entity(doc, "concept:Vault")["aliases"] == ["Tresor", "vault folder"]
    assert entity(doc, "concept:Record")["aliases"] == ["record file"]
    assert region(entity(doc, "concept:Record"))["lineStart"] == 5


def test_multi_term_glossary_aliases_stay_unbound_and_partial(rk: RepoKit) -> None:
    rk.write(
        "GLOSSARY.md",
        "---\naliases: [V, C]\n---\n# Glossary\n\n**Vault**: a folder.\n\n**Claim**: an assertion.\n",
    )
    doc = rk.extract(history=False)
    assert [e["aliases"] for e in doc["entities"]] == [[], []]
    assert "glossary-aliases-unbound" in codes(doc, "concepts")
    assert doc["coverage"]["concepts"]["status"] == "partial"


def test_a_single_term_glossary_binds_its_aliases(rk: RepoKit) -> None:
    rk.write("glossary.md", "---\naliases: [V]\n---\n# Glossary\n\n**Vault**: a folder.\n")
    doc = rk.extract(history=False)
    assert entity(doc, "concept:Vault")["aliases"] == ["V"]
    assert doc["coverage"]["concepts"]["status"] == "complete"


def test_exact_names_merge_evidence_and_case_differs(rk: RepoKit) -> None:
    rk.write("GLOSSARY.md", "# Glossary\n\n**Vault**: a folder.\n\n**vault**: lower case is another term.\n")
    rk.write("docs/terms.md", "# Terms\n\n**Vault**: the same term, defined again.\n")
    doc = rk.extract(history=False)
    vault = entity(doc, "concept:Vault")
    assert [(ev["path"], ev["lineStart"]) for ev in vault["evidence"]] == [
        ("GLOSSARY.md", 3),
        ("docs/terms.md", 3),
    ]
    assert "concept:vault" in ids_of(doc)


def test_an_alias_two_concepts_declare_is_ambiguous(rk: RepoKit) -> None:
    rk.write("concepts/a.md", "---\ntype: concept\naliases: [shared]\n---\n# Alpha\n")
    rk.write("concepts/b.md", "---\ntype: concept\naliases: [shared]\n---\n# Beta\n")
    doc = rk.extract(history=False)
    assert "ambiguous-alias" in codes(doc, "concepts")
    assert entity(doc, "concept:Alpha")["aliases"] == ["shared"]


def test_a_glossary_or_terms_heading_in_a_terminology_document_is_not_a_term(rk: RepoKit) -> None:
    # Woodpecker's docs/92-development/09-terminology.md: "## Glossary" holds the
    # `- **Term**: definition` list and "## Terms" holds naming rules; neither is a term.
    rk.write(
        "docs/terminology.md",
        "# Terminology\n\n## Glossary\n\n- **Agent**: runs the steps.\n- **Forge**: hosts the code.\n\n"
        "## Terms\n\nPipelines were previously called builds.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Agent", "concept:Forge"]


def test_terms_with_underscores_and_code_spans_are_defined_by_their_inner_text(rk: RepoKit) -> None:
    rk.write(
        "GLOSSARY.md",
        "# Glossary\n\n"
        "**max_commits**: the window size.\n\n"
        "`snake_case` — a naming style.\n\n"
        "- __since_tag__: where the window ends.\n"
        "- **`head_ref`**: the commit the walk starts from.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == [
        "concept:head_ref",
        "concept:max_commits",
        "concept:since_tag",
        "concept:snake_case",
    ]
    assert entity(doc, "concept:snake_case")["name"] == "snake_case"
    assert region(entity(doc, "concept:snake_case"))["lineStart"] == 5


def test_a_dash_without_spaces_around_it_is_not_a_definition(rk: RepoKit) -> None:
    rk.write("GLOSSARY.md", "# Glossary\n\nTerm—definition without spaces.\n\nRange – a span of values.\n")
    assert ids_of(rk.extract(history=False)) == ["concept:Range"]


def test_a_wrapped_line_holding_a_dash_continues_its_paragraph(rk: RepoKit) -> None:
    rk.write(
        "GLOSSARY.md",
        "# Glossary\n\n"
        "Words as this project uses them, chosen\n"
        "carefully — where a word is narrowed, we say so.\n\n"
        "**Ledger** — the append-only list of changes, kept per folder and not\n"
        "per file — a folder is the unit of history.\n\n"
        "Shard — one slice of the index.\n"
        "Replica — a copy of a shard.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Ledger", "concept:Replica", "concept:Shard"]
    ledger = entity(doc, "concept:Ledger")["evidence"][0]
    assert (ledger["lineStart"], ledger["lineEnd"]) == (6, 7)


def test_a_heading_over_definitions_groups_them_and_is_not_a_term(rk: RepoKit) -> None:
    rk.write(
        "docs/glossary.md",
        "# Glossary\n\n## Storage\n\n**Ledger** — the list of changes.\n\n**Shard** — a slice.\n\n"
        "## Snapshot\n\nA frozen copy of the ledger.\n\n**Note**: taken hourly.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Ledger", "concept:Shard", "concept:Snapshot"]  # "Note" is a label


def test_a_heading_whose_section_opens_with_one_label_is_still_a_term(rk: RepoKit) -> None:
    rk.write(
        "docs/glossary.md",
        "# Glossary\n\n## Validity interval\n\n**Note**: the span a fact holds in the world.\n\n"
        "## Time\n\n**Tick** — one step of the clock.\n\n"
        "## Order\n\nHow records sort.\n\n**Example**: by date.\n",
    )
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Order", "concept:Tick", "concept:Validity interval"]
    interval = region(entity(doc, "concept:Validity interval"))
    assert (interval["lineStart"], interval["lineEnd"]) == (3, 5)


def test_two_code_spans_name_one_term_as_a_reader_sees_it(rk: RepoKit) -> None:
    text = "# Glossary\n\n`git` `log` — lists commits.\n\n## `HEAD`\n\nThe current commit.\n"
    rk.write("GLOSSARY.md", text)
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:HEAD", "concept:git log"]


TABLES = """# Lantern

| Term | Meaning |
|------|---------|
| Wick | outside any glossary: not a term |

## Glossary

Terms in a table, and tables that are not about terms.

| **Term** | Meaning | Since |
| :--- | --- | ---: |
| **Vault** | a folder of records | 1.0 |
| `snake_case` | a name with underscores | 1.1 |
|  | a row with no term |  |
| Pipe \\| bar | an escaped pipe stays in the cell | 1.2 |

| Version | Change |
|---|---|
| 1.0 | first — release |

Acronym | Expansion
--- | ---
[FTS](https://example.org/fts) | full-text search

```
| Term | Meaning |
|---|---|
| Fenced | not a term |
```

| Term |
|---|
| Lonely | a one-column table is no glossary table |
"""


def test_a_glossary_table_names_one_term_per_row(rk: RepoKit) -> None:
    rk.write("README.md", TABLES)
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:FTS", "concept:Pipe | bar", "concept:Vault", "concept:snake_case"]
    lines = {e["name"]: (region(e)["lineStart"], region(e)["lineEnd"]) for e in doc["entities"]}
    assert lines == {"Vault": (13, 13), "snake_case": (14, 14), "Pipe | bar": (16, 16), "FTS": (24, 24)}


def test_a_table_under_a_grouping_heading_makes_the_heading_no_term(rk: RepoKit) -> None:
    rk.write(
        "GLOSSARY.md", "# Glossary\n\n## Storage\n\n| Name | Meaning |\n|---|---|\n| Vault | a folder |\n"
    )
    assert ids_of(rk.extract(history=False)) == ["concept:Vault"]
