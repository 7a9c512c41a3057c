"""`knowledge grep --kind note`, `lookup` and `timeline` over notes, in a fresh process (issue 25 §3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.vaultkit import VaultKit


def knowledge(*argv: str) -> Any:
    """Run the installed CLI as a user does; its JSON answer (exit 0 asserted)."""
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", *argv, "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page(
        "private/notes/harbour.md",
        "pg_harbour",
        "Harbour lights",
        type="note",
        body="The harbour lights were repaired in spring.\n",
    )
    kit.write("Harbour walk.md", "---\naliases: [Sea wall]\n---\nEvening walk along the harbour.\n")
    kit.write("journal/2026-03-14.md", "Pi day: baked a pie.\n")
    return kit.root


def test_grep_kind_note_answers_notes_with_their_keys(vault: Path) -> None:
    result = knowledge("grep", str(vault), "harbour", "--kind", "note")
    assert [(h["kind"], h["path"], h["title"]) for h in result["hits"]] == [
        ("note", "Harbour walk.md", "Harbour walk")
    ]
    assert {"text", "lineStart", "matchLocated"} <= set(result["hits"][0]["snippet"])
    assert result["hits"][0]["snippet"]["lineStart"] == 4
    # without --kind grep stays records only: the record, ranked alone
    records = knowledge("grep", str(vault), "harbour")
    assert [h["path"] for h in records["hits"]] == ["private/notes/harbour.md"]


def test_lookup_finds_a_note_by_alias_and_prefers_a_record_of_the_same_name(
    kit: VaultKit, vault: Path
) -> None:
    found = knowledge("lookup", str(vault), "sea wall")
    assert found["status"] == "found"
    assert found["kind"] == "note"
    assert found["record"]["path"] == "Harbour walk.md"
    kit.page("private/concepts/wall.md", "pg_wall", "Sea wall", type="concept")
    again = knowledge("lookup", str(vault), "sea wall")
    assert again["record"]["id"] == "pg_wall"
    assert "kind" not in again


def test_a_daily_note_is_on_the_timeline(vault: Path) -> None:
    items = knowledge("timeline", str(vault))["items"]
    assert [(i["kind"], i["path"], i["value"], i["id"]) for i in items] == [
        ("note", "journal/2026-03-14.md", "2026-03-14", None)
    ]
