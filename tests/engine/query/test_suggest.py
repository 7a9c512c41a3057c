"""Quick-switcher suggestions: names ranked exact, prefix, word start, substring; current records first."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from tests.vaultkit import VaultKit

CHANGE = {"reason": "corrected", "at": "2026-10-01T09:00:00.000Z"}


def titles(result: dict[str, Any]) -> list[str]:
    return [item["title"] for item in result["items"]]


@pytest.fixture
def names(kit: VaultKit) -> VaultKit:
    kit.page("private/notes/harbour.md", "pg_h", "Harbour", type="note")
    kit.page("private/notes/harbour-lights.md", "pg_hl", "Harbour lights", type="note")
    kit.page("private/notes/old-harbour.md", "pg_oh", "Old harbour walk", type="note")
    kit.page("private/notes/seaharbours.md", "pg_sh", "Seaharbours", type="note")
    kit.page("private/notes/unrelated.md", "pg_u", "Mountain huts", type="note")
    return kit


def test_ranks_exact_then_prefix_then_word_start_then_substring(names: VaultKit) -> None:
    result = names.scan().suggest("harbour")
    assert titles(result) == ["Harbour", "Harbour lights", "Old harbour walk", "Seaharbours"]
    assert [i["rank"] for i in result["items"]] == ["exact", "prefix", "word", "substring"]
    assert result["items"][0]["path"] == "private/notes/harbour.md"
    assert result["items"][0]["matched"] == "title"


def test_text_is_normalised_like_lookup(names: VaultKit) -> None:
    """NFKC, case and runs of whitespace do not matter; the same rule as exact lookup."""
    vault = names.scan()
    assert titles(vault.suggest("  HARBOUR   li"))[0] == "Harbour lights"
    assert titles(vault.suggest("ＨＡＲＢＯＵＲ"))[0] == "Harbour"


def test_aliases_match_and_say_which_alias(kit: VaultKit) -> None:
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["Countess of Lovelace"]
    )
    item = kit.scan().suggest("countess")["items"][0]
    assert item["id"] == "pg_ada"
    assert item["matched"] == "alias"
    assert item["alias"] == "Countess of Lovelace"


def test_a_record_appears_once_by_its_best_name(kit: VaultKit) -> None:
    kit.page("private/notes/a.md", "pg_a", "Beacon tower", type="note", aliases=["The beacon"])
    items = kit.scan().suggest("beacon")["items"]
    assert [(i["id"], i["rank"], i["matched"]) for i in items] == [("pg_a", "prefix", "title")]


def test_an_exact_id_comes_first(names: VaultKit) -> None:
    items = names.scan().suggest("pg_u")["items"]
    assert items[0]["id"] == "pg_u"
    assert items[0]["matched"] == "id"
    assert names.scan().suggest("PG_U")["items"] == []  # ids are case-sensitive


def test_current_records_come_before_superseded_ones(kit: VaultKit) -> None:
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Ferry",
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=CHANGE,
    )
    kit.claim("private/claims/new.md", "cl_new", "Ferry timetable from May")
    items = kit.scan().suggest("ferry")["items"]
    assert [(i["id"], i["eligible"]) for i in items] == [("cl_new", True), ("cl_old", False)]


def test_limit_blank_and_long_text(names: VaultKit) -> None:
    vault = names.scan()
    assert len(vault.suggest("harbour", limit=2)["items"]) == 2
    assert vault.suggest("   ")["items"] == []
    assert vault.suggest("zzz")["items"] == []
    with pytest.raises(QueryError):
        vault.suggest("x" * 201)
    with pytest.raises(QueryError):
        vault.suggest("harbour", limit=0)


def test_widens_its_window_when_many_names_match(kit: VaultKit) -> None:
    """More ineligible prefix matches than one window holds: a current word match still comes first."""
    for n in range(80):  # pairs sharing an id: duplicates, never eligible
        kit.page(f"private/notes/n{n:03}.md", f"pg_dup{n // 2}", f"Stone {n:03}", type="note")
    kit.page("private/notes/old.md", "pg_old", "Old stone", type="note")
    result = kit.scan().suggest("stone", limit=3)
    assert [(i["title"], i["eligible"]) for i in result["items"]] == [
        ("Old stone", True),
        ("Stone 000", False),
        ("Stone 001", False),
    ]
