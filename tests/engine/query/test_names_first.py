"""The window's search puts the record a query names exactly first (issue 29 §8).

`Vault.search_text` asks grep for `names_first`: records whose full title or an
alias is the query come before the hits BM25 ranks higher (relationships whose
short titles repeat the name), on every page, with the same total; `grep` itself
(the CLI, MCP and extensions) keeps BM25 order (spec: retrieval-and-dates, Query
contract and BM25 weights).
"""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.query.grep_query import GrepQuery
from tests.vaultkit import VaultKit, envelope, record_text

BODY = "Ada Lovelace wrote the first published program, notes on the Analytical Engine. " * 6


def titles(result: dict[str, Any]) -> list[str]:
    return [hit["title"] for hit in result["hits"]]


@pytest.fixture
def ada(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", BODY, type="person", aliases=["Countess"])
    kit.page(
        "private/people/bab.md", "pg_bab", "Charles Babbage", "Worked with Ada Lovelace.\n", type="person"
    )
    for n, label in enumerate(("relates_to", "advises", "partner_of", "mentions")):
        fields = {"from": "pg_ada", "to": "pg_bab", "label": label, "attribution": "Ada's letters"}
        title = f"Ada Lovelace {label.replace('_', ' ')} Babbage"
        record = envelope(
            f"rl_{n}", "relationship", title, evidence=[{"url": "https://example.org"}], **fields
        )
        kit.write(f"private/relationships/r{n}.md", record_text(record))
    return kit


def test_an_exact_title_or_alias_comes_first_on_every_page(ada: VaultKit) -> None:
    vault = ada.scan()
    plain = vault.grep(GrepQuery("Ada Lovelace", limit=2))
    assert "Ada Lovelace" not in titles(plain)  # BM25 alone: the short relationship titles win
    first = vault.search_text(GrepQuery("ada  LOVELACE", limit=2))
    assert titles(first)[0] == "Ada Lovelace"
    assert first["total"] == plain["total"] == 6
    seen = titles(first)
    offset = first["nextOffset"]
    while offset is not None:
        page = vault.search_text(GrepQuery("ada  LOVELACE", limit=2, offset=offset))
        seen += titles(page)
        offset = page["nextOffset"]
    assert len(seen) == 6
    assert len(set(seen)) == 6  # each hit once: the page moved first is not shown again later
    assert titles(vault.search_text(GrepQuery("countess")))[0] == "Ada Lovelace"


def test_the_name_first_order_keeps_the_filters(ada: VaultKit) -> None:
    vault = ada.scan()
    only_relationships = vault.search_text(GrepQuery("Ada Lovelace", kind="relationship"))
    assert "Ada Lovelace" not in titles(only_relationships)
    assert only_relationships["total"] == 4
