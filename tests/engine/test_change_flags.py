"""A ChangeSet names the projections whose rows moved (issue 12 §3), so a pane showing
one projection refetches only when that one changed."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.changes import ChangeSet
from tests.vaultkit import VaultKit

MEETING = "private/meetings/retro.md"
NOTE = "private/notes/plan.md"


@pytest.fixture
def small(kit: VaultKit) -> VaultKit:
    kit.page(
        MEETING,
        "pg_retro",
        "Field trial retro",
        type="meeting",
        fields={"occurred_at": "2026-10-20"},
        body="We met.\n",
    )
    kit.page(NOTE, "pg_plan", "Plan", type="note", body="See [[Field trial retro]].\n\nMore text.\n")
    kit.scan()
    return kit


def edit(kit: VaultKit, rel: str) -> ChangeSet:
    """Reconcile one path as the watcher would (kit.scan() would reconcile everything first)."""
    assert kit._vault is not None
    return kit._vault.reconcile([rel], "watcher")


def test_a_body_edit_touches_only_the_text(small: VaultKit) -> None:
    small.page(NOTE, "pg_plan", "Plan", type="note", body="See [[Field trial retro]].\n\nOther text.\n")
    assert edit(small, NOTE).touched == {"text"}


def test_a_new_link_touches_links(small: VaultKit) -> None:
    small.page(NOTE, "pg_plan", "Plan", type="note", body="See [[Field trial retro]] and [[Nowhere]].\n")
    touched = edit(small, NOTE).touched
    assert {"links", "text", "diagnostics"} <= touched  # the broken link is a finding too
    assert "dates" not in touched


def test_a_new_date_touches_dates_not_links(small: VaultKit) -> None:
    small.page(
        MEETING,
        "pg_retro",
        "Field trial retro",
        type="meeting",
        fields={"occurred_at": "2026-10-21"},
        body="We met.\n",
    )
    touched = edit(small, MEETING).touched
    assert "dates" in touched
    assert "links" not in touched
    assert "diagnostics" not in touched


def test_a_new_title_touches_the_catalog(small: VaultKit) -> None:
    small.page(NOTE, "pg_plan", "Plan B", type="note", body="See [[Field trial retro]].\n\nMore text.\n")
    touched = edit(small, NOTE).touched
    assert {"catalog", "text"} <= touched
    assert "dates" not in touched


def test_an_untouched_file_changes_nothing(small: VaultKit) -> None:
    change = edit(small, NOTE)
    assert change.touched == set()
    assert change.empty


def test_a_scan_touches_every_projection(kit: VaultKit) -> None:
    kit.page(MEETING, "pg_retro", "Retro", type="meeting", fields={"occurred_at": "2026-10-20"})
    kit.page(NOTE, "pg_plan", "Plan", type="note", body="See [[Retro]] and [[Nowhere]].\n")
    assert kit.open().reconcile().touched == {"catalog", "links", "dates", "diagnostics", "text"}


def test_an_ontology_change_touches_diagnostics(small: VaultKit) -> None:
    small.write("private/ontology.yaml", "not: [a manifest\n")
    assert "diagnostics" in edit(small, "private/ontology.yaml").touched


def test_the_flags_are_in_the_event_json(small: VaultKit) -> None:
    small.page(NOTE, "pg_plan", "Plan", type="note", body="No links now.\n")
    assert edit(small, NOTE).as_json()["touched"] == ["links", "text"]
