"""`memoryRelations` (spec: knowledge-entities-extraction.md, "Memory relations"): exact
id / alias / region path in an explicit reference, a backtick span, a Markdown link
destination or a complete bare token; a multiword alias by whole-text equality; no case
folding or path normalization; several owners omit the match; deduplicated, sorted,
capped at 10,000 with an overflow that fails."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from knowledge_desktop.engine.extraction import (
    MemoryCandidate,
    RelationOverflow,
    link_memory,
    relations,
    validate,
)

ENTITIES: list[dict[str, Any]] = [
    {
        "id": "decision:adr/0001.md",
        "aliases": ["ADR-1"],
        "evidence": [{"kind": "document-region", "path": "adr/0001.md"}],
    },
    {
        "id": "concept:Vault",
        "aliases": ["vault folder", "Tresor"],
        "evidence": [{"kind": "document-region", "path": "GLOSSARY.md"}],
    },
    {
        "id": "concept:Claim",
        "aliases": ["Tresor"],
        "evidence": [{"kind": "document-region", "path": "GLOSSARY.md"}],
    },
]


def rel(candidate: str, fact: str, **extra: Any) -> list[tuple[str, str, str, str]]:
    found = link_memory([MemoryCandidate(candidate, fact, **extra)], ENTITIES)
    return [(r["candidateId"], r["target"], r["evidence"]["kind"], r["evidence"]["value"]) for r in found]


def test_each_place_a_token_may_stand() -> None:
    assert rel("c1", "We chose decision:adr/0001.md today.") == [
        ("c1", "decision:adr/0001.md", "id", "decision:adr/0001.md")
    ]
    assert rel("c2", "See `ADR-1` for why.") == [("c2", "decision:adr/0001.md", "alias", "ADR-1")]
    assert rel("c3", "Per [the ADR](adr/0001.md#status).") == []  # a fragment is not stripped
    assert rel("c4", "Per [the ADR](adr/0001.md).") == [("c4", "decision:adr/0001.md", "path", "adr/0001.md")]
    assert rel("c5", "Unrelated text.", references=("ADR-1",)) == [
        ("c5", "decision:adr/0001.md", "alias", "ADR-1")
    ]
    assert rel("c6", "(ADR-1), ADR-1.") == [("c6", "decision:adr/0001.md", "alias", "ADR-1")]


def test_a_multiword_alias_matches_only_the_whole_text() -> None:
    assert rel("c1", "vault folder\n") == [("c1", "concept:Vault", "alias", "vault folder")]
    assert rel("c2", "The vault folder is big.") == []
    assert rel("c3", "The `vault folder` is big.") == [("c3", "concept:Vault", "alias", "vault folder")]


def test_no_case_folding_no_partial_tokens_no_normalization() -> None:
    assert rel("c1", "adr-1 and Adr-1") == []
    assert rel("c2", "ADR-10 and xADR-1") == []
    assert rel("c3", "See ./adr/0001.md and adr//0001.md") == []
    assert rel("c4", "concept:vault") == []


def test_several_owners_omit_the_match() -> None:
    assert rel("c1", "`Tresor`") == []
    assert rel("c2", "GLOSSARY.md") == []  # the region path of two concepts


def test_entries_deduplicate_sort_and_carry_the_fact_hash() -> None:
    fact = "ADR-1 `ADR-1` decision:adr/0001.md Tresor concept:Claim ünïcode"
    found = link_memory(
        [MemoryCandidate("b", fact, raw_path="claims/b.md"), MemoryCandidate("a", "concept:Vault")], ENTITIES
    )
    keys = [(r["candidateId"], r["target"], r["evidence"]["value"]) for r in found]
    assert keys == [
        ("a", "concept:Vault", "concept:Vault"),
        ("b", "concept:Claim", "concept:Claim"),
        ("b", "decision:adr/0001.md", "ADR-1"),
        ("b", "decision:adr/0001.md", "decision:adr/0001.md"),
    ]
    assert found[1]["evidence"] == {
        "kind": "id",
        "value": "concept:Claim",
        "rawPath": "claims/b.md",
        "factHash": hashlib.sha256(fact.encode("utf-8")).hexdigest(),
    }
    assert "rawPath" not in found[0]["evidence"]


def test_an_overflow_fails_instead_of_truncating(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relations, "MAX_MEMORY_RELATIONS", 2)
    candidates = [MemoryCandidate(f"c{n}", "ADR-1") for n in range(3)]
    assert len(link_memory(candidates[:2], ENTITIES)) == 2
    with pytest.raises(RelationOverflow, match="more than 2 memory relations"):
        link_memory(candidates, ENTITIES)


def test_the_section_is_omitted_when_empty_and_validates_when_present(tmp_path: Any) -> None:
    from knowledge_desktop.engine.extraction import extract

    (tmp_path / "adr").mkdir()
    (tmp_path / "adr/0001.md").write_text("---\naliases: [ADR-1]\n---\n# One\n", encoding="utf-8")
    none = extract(tmp_path, memory=[MemoryCandidate("c", "nothing here")])
    assert "memoryRelations" not in none
    assert none["coverage"]["memory"] == {"status": "complete", "candidates": 1, "reasons": []}
    some = extract(tmp_path, memory=[MemoryCandidate("c", "see ADR-1")])
    validate(some)
    assert some["memoryRelations"][0]["target"] == "decision:adr/0001.md"
