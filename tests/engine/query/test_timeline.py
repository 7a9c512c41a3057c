"""Dates and Chronicle (spec: retrieval-and-dates, Dates and Chronicle)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.errors import QueryError
from tests.vaultkit import VaultKit

CHANGE = {"reason": "r", "at": "2026-10-01T09:00:00.000Z"}


def titles(result: dict[str, Any]) -> list[str]:
    return [item["title"] for item in result["items"]]


@pytest.fixture
def dated(kit: VaultKit) -> VaultKit:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page(
        "private/sources/standup.md",
        "pg_src",
        "Stand-up notes",
        type="source",
        fields={"occurred_at": "2026-09-28T09:00:00Z"},
    )
    kit.page(
        "private/meetings/standup.md",
        "pg_meet",
        "Stand-up",
        type="meeting",
        fields={"occurred_at": "2026-09-28T09:00:00+01:00"},
    )
    kit.claim(
        "private/claims/decided.md",
        "cl_dec",
        "Ship on Friday",
        claim_kind="decision",
        occurred_at="2026-09-28",
        entities=["pg_ada"],
        evidence=[{"source": "pg_src"}],
    )
    kit.claim(
        "private/claims/promise.md",
        "cl_due",
        "Ada writes the memo",
        claim_kind="commitment",
        owner="pg_ada",
        occurred_at="2026-09-29",
        due_at="2026-10-03",
    )
    kit.claim("private/claims/undated.md", "cl_none", "Ada likes tea", entities=["pg_ada"])
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Old plan",
        occurred_at="2026-09-01",
        lifecycle="superseded",
        superseded_by="cl_dec",
        lifecycle_change=CHANGE,
    )
    kit.claim(
        "private/claims/gone.md",
        "cl_gone",
        "Withdrawn plan",
        occurred_at="2026-09-02",
        lifecycle="withdrawn",
        lifecycle_change=CHANGE,
    )
    kit.claim(
        "private/claims/expired.md",
        "cl_exp",
        "Expired note",
        occurred_at="2026-09-03",
        expires_at="2026-09-04T00:00:00Z",
    )
    return kit


def test_occurrence_timeline_lists_dated_current_records(dated: VaultKit) -> None:
    """Dates: unknown dates stay absent; recording time never stands in for occurrence."""
    result = dated.scan().timeline(since="2026-09-01", until="2026-09-30")
    # a date-only record sorts at the start of its UTC day
    assert titles(result) == ["Ship on Friday", "Stand-up", "Stand-up notes", "Ada writes the memo"]


def test_bounds_are_inclusive_and_date_only_upper_bounds_cover_the_day(dated: VaultKit) -> None:
    """Dates: an upper date bound includes its whole UTC day; date-only records overlap."""
    vault = dated.scan()
    assert titles(vault.timeline(since="2026-09-29", until="2026-09-29")) == ["Ada writes the memo"]
    assert titles(vault.timeline(since="2026-09-28T12:00:00Z", until="2026-09-28T13:00:00Z")) == [
        "Ship on Friday"
    ]


def test_kind_is_the_exact_record_type(dated: VaultKit) -> None:
    """Timeline: kind matches record.type (decision, meeting), not the record kind."""
    vault = dated.scan()
    assert titles(vault.timeline(kind="decision")) == ["Ship on Friday"]
    assert titles(vault.timeline(kind="claim")) == []
    assert titles(vault.timeline(kind="meeting")) == ["Stand-up"]


def test_due_and_recorded_time_fields(dated: VaultKit) -> None:
    """Dates: due_at is its own field; recorded_at finds recently recorded records."""
    vault = dated.scan()
    assert titles(vault.timeline(time_field="due_at")) == ["Ada writes the memo"]
    assert len(vault.timeline(time_field="recorded_at")["items"]) == 6  # the current ones


def test_entity_filter_uses_explicit_associations(dated: VaultKit) -> None:
    """Timeline: entities, owner, endpoints and sources associate; mentions do not."""
    dated.page(
        "private/notes/mention.md",
        "pg_note",
        "Mentions Ada",
        type="note",
        body="[[Ada]] was there.",
        fields={"occurred_at": "2026-09-30"},
    )
    vault = dated.scan()
    assert titles(vault.timeline(entity="pg_ada")) == ["Ship on Friday", "Ada writes the memo"]


def test_include_inactive_adds_superseded_and_expired_never_withdrawn(dated: VaultKit) -> None:
    """Timeline: include_inactive adds superseded and expired assertions, not withdrawn ones."""
    vault = dated.scan()
    found = titles(vault.timeline(eligibility="include_inactive", until="2026-09-10"))
    assert found == ["Old plan", "Expired note"]


def test_order_and_paging(dated: VaultKit) -> None:
    """Timeline: newest first on request, with nextOffset for the following page."""
    vault = dated.scan()
    page = vault.timeline(order="desc", limit=2)
    assert titles(page) == ["Ada writes the memo", "Stand-up notes"]
    assert page["nextOffset"] == 2
    assert titles(vault.timeline(order="desc", limit=2, offset=2)) == ["Stand-up", "Ship on Friday"]


def test_a_source_event_claim_replaces_its_meeting_row(dated: VaultKit) -> None:
    """Timeline: a shared source_event claim stands for its meeting on occurrence timelines;
    asking for meetings still returns the page."""
    dated.claim(
        "private/claims/event.md",
        "cl_evt",
        "Stand-up held",
        claim_kind="event",
        occurred_at="2026-09-28",
        source_event=True,
        evidence=[{"source": "pg_meet"}],
    )
    vault = dated.scan()
    found = titles(vault.timeline(since="2026-09-28", until="2026-09-28"))
    assert "Stand-up" not in found
    assert "Stand-up held" in found
    assert titles(vault.timeline(kind="meeting")) == ["Stand-up"]


def test_group_by_source_builds_the_entity_timeline(dated: VaultKit) -> None:
    """Timeline group source: one row per dated source of the entity, dated by the source,
    counting the entity's claims from it; undated-source claims keep their own rows."""
    dated.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_src", "mentions")
    result = dated.scan().timeline(entity="pg_ada", group="source")
    source_rows = [i for i in result["items"] if "source" in i]
    assert [r["source"]["id"] for r in source_rows] == ["pg_src"]
    assert source_rows[0]["claims"] == 1
    assert source_rows[0]["noteRecord"] == "rl_1"
    own = [i["id"] for i in result["items"] if "source" not in i]
    assert own == ["cl_due"]
    with pytest.raises(QueryError):
        dated.scan().timeline(group="source")


def test_include_sources_adds_deduplicated_source_summaries(dated: VaultKit) -> None:
    """Timeline: includeSources adds each source once within the response budget."""
    result = dated.scan().timeline(include_sources=True)
    assert [s["id"] for s in result["sources"]] == ["pg_src"]


def test_chronicle_day_and_week_in_a_time_zone(dated: VaultKit) -> None:
    """Chronicle: a day, or its Monday–Sunday week, in an IANA zone (UTC by default)."""
    vault = dated.scan()
    lisbon = vault.chronicle_day("2026-09-28", tz="Europe/Lisbon")
    assert "Stand-up" in titles(lisbon)
    meeting = next(i for i in lisbon["items"] if i["title"] == "Stand-up")
    assert meeting["local"] == "2026-09-28T09:00:00+01:00"
    week = vault.chronicle_day("2026-10-01", week=True)
    assert week["range"]["start"].startswith("2026-09-28T00:00:00")
    assert "Ada writes the memo" in titles(week)
    with pytest.raises(QueryError):
        vault.chronicle_day("2026-09-28", tz="Mars/Olympus")


@pytest.mark.parametrize("zone", ["UTC", "Europe/Amsterdam", "America/Los_Angeles", "Pacific/Kiritimati"])
def test_a_date_only_occurrence_is_on_its_own_date_in_every_zone(dated: VaultKit, zone: str) -> None:
    """A date-only value names a calendar date with no zone: a chronicle shows it on that
    date and on no neighbouring one, east or west of UTC; only timestamps move with the
    zone (spec: retrieval-and-dates, Dates and Chronicle — no midnight or zone inferred)."""
    vault = dated.scan()
    days = {d: titles(vault.chronicle_day(d, tz=zone)) for d in ("2026-09-27", "2026-09-28", "2026-09-29")}
    assert [d for d, found in days.items() if "Ship on Friday" in found] == ["2026-09-28"]
    assert [d for d, found in days.items() if "Ada writes the memo" in found] == ["2026-09-29"]
    week = titles(vault.chronicle_day("2026-09-28", tz=zone, week=True))
    assert "Ship on Friday" in week
    assert "Ada writes the memo" in week


def test_a_timestamp_still_moves_with_the_chronicles_zone(dated: VaultKit) -> None:
    """Chronicle: a timestamp belongs to the local day it falls on (09:00 UTC is 22:00
    the day before in Pago Pago, UTC-11), while a date-only value stays put."""
    vault = dated.scan()
    on_28 = titles(vault.chronicle_day("2026-09-28", tz="Pacific/Pago_Pago"))
    on_27 = titles(vault.chronicle_day("2026-09-27", tz="Pacific/Pago_Pago"))
    assert "Stand-up notes" in on_27
    assert "Stand-up notes" not in on_28
    assert "Ship on Friday" in on_28
    assert "Ship on Friday" not in on_27
    assert "Stand-up notes" in titles(vault.chronicle_day("2026-09-28", tz="UTC"))


def test_a_date_only_query_bound_keeps_its_utc_meaning(dated: VaultKit) -> None:
    """A date-only since/until bound is a UTC day, unchanged by the chronicle fix
    (spec: retrieval-and-dates, Dates and Chronicle)."""
    vault = dated.scan()
    found = titles(vault.timeline(since="2026-09-28", until="2026-09-28"))
    assert "Ship on Friday" in found
    assert "Stand-up notes" in found
    assert "Ada writes the memo" not in found


def test_chronicle_since_is_oldest_first(dated: VaultKit) -> None:
    """Chronicle since: an occurrence range up to now, oldest first."""
    found = titles(dated.scan().chronicle_since("2026-09-28"))
    assert found == ["Ship on Friday", "Stand-up", "Stand-up notes", "Ada writes the memo"]


def test_last_seen_is_the_latest_context_at_or_before(dated: VaultKit) -> None:
    """Chronicle last seen: the latest dated context for an entity at or before a moment."""
    vault = dated.scan()
    assert titles(vault.last_seen("pg_ada")) == ["Ada writes the memo"]
    assert titles(vault.last_seen("pg_ada", on_or_before="2026-09-28")) == ["Ship on Friday"]
    assert titles(vault.last_seen("pg_ada", on_or_before="2026-01-01")) == []


def test_an_entity_timeline_has_what_it_takes_part_in(dated: VaultKit) -> None:
    """Timeline: the record at the other end of the entity's relationship (the meeting Ada
    attended) is on her timeline; a withdrawn relationship connects nothing."""
    dated.relationship("private/relationships/att.md", "rl_att", "pg_ada", "pg_meet", "attended")
    vault = dated.scan()
    assert titles(vault.timeline(entity="pg_ada")) == ["Ship on Friday", "Stand-up", "Ada writes the memo"]
    meeting_day = vault.chronicle_day("2026-09-28", entity="pg_ada")
    assert titles(meeting_day) == ["Ship on Friday", "Stand-up"]
    assert titles(vault.chronicle_day("2026-09-28")) == ["Ship on Friday", "Stand-up", "Stand-up notes"]
    dated.relationship(
        "private/relationships/att.md",
        "rl_att",
        "pg_ada",
        "pg_meet",
        "attended",
        lifecycle="withdrawn",
        lifecycle_change=CHANGE,
    )
    assert titles(dated.scan().timeline(entity="pg_ada")) == ["Ship on Friday", "Ada writes the memo"]


def test_a_claim_naming_the_entity_twice_is_one_row_of_its_source_timeline(dated: VaultKit) -> None:
    """Timeline group source: a claim that has the entity as owner and in entities is one claim."""
    dated.claim(
        "private/claims/both.md",
        "cl_both",
        "Ada chairs the retro",
        owner="pg_ada",
        entities=["pg_ada"],
        occurred_at="2026-10-02",
    )
    own = [i["id"] for i in dated.scan().timeline(entity="pg_ada", group="source")["items"] if "id" in i]
    assert own == ["cl_due", "cl_both"]
