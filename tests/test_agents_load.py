"""The load test, scaled down (issue 28 §4): two MCP clients, each with its own `knowledge mcp`
server, make 50 mixed calls (reads, facts.put, documents.upsert, changes.list) on one vault
while an editor rewrites ten files a second and renames some. Every call is answered, none
says `database is locked`, and every acknowledged write is in the vault exactly once — as
it is and after a rebuild from the Markdown — with one published journal entry each.
`bench/agents.py` is the full run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import agents  # noqa: E402
import generate_vault  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


def test_two_agents_and_an_editor_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    generate_vault.generate(root, 200, 1)
    report = agents.run(root, clients=2, calls=50, edits_per_second=10, renames_every=1.0)
    assert report["clientFailures"] == []
    assert report["errors"] == {}, report["errorSamples"]
    assert report["databaseLocked"] == 0
    assert report["editor"]["edits"] > 0
    assert report["editor"]["renames"] > 0
    assert sum(t["calls"] for t in report["perTool"].values()) == 100
    assert report["freshness"] == {"live": 100}
    writes = report["writeStatuses"]
    assert writes.get("applied", 0) > 0
    assert writes.get("created", 0) > 0
    clean = {"factsLost": 0, "factsDuplicated": 0, "documentsLost": 0, "documentsDuplicated": 0}
    assert report["verify"]["asIs"] == clean
    assert report["verify"]["afterRebuild"] == clean
    journal = report["verify"]["journal"]
    assert set(journal["states"]) <= {"published"}
    assert journal["publishedByAgent"] == journal["acknowledgedWrites"]
