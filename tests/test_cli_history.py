"""`knowledge checkpoints` and `knowledge history` (issue 15, §1–2): the checkpoint outbox and
commits, and a record's checkpointed versions newest first, readable by exact id after a
withdrawal (spec: corrections-and-merges, withdrawal keeps history readable)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import VaultKit

HISTORY_KEYS = {"commit", "at", "author", "operation", "source", "revision", "hash", "path"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out, _err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith(("{", "[")) else out)


def fence(capsys: pytest.CaptureFixture[str], vault: Path, record_id: str) -> str:
    code, shown = run(capsys, "show", str(vault), record_id, "--json")
    assert code == 0
    return f"{shown['id']}:{shown['revision']}:{shown['hash']}"


def test_history_and_checkpoints_after_two_writes(capsys: pytest.CaptureFixture[str], kit: VaultKit) -> None:
    """A corrected then withdrawn record: `history ID` lists both checkpointed versions newest
    first with their authors; `checkpoints` lists both commits and nothing pending."""
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red")
    kit.claim("private/claims/x.md", "cl_x", "Other")
    vault = kit.root
    code, first = run(
        capsys,
        "withdraw",
        str(vault),
        fence(capsys, vault, "cl_x"),
        "--reason",
        "a",
        "--json",
        "--actor",
        "ada",
    )
    assert code == 0
    assert first["git"]["state"] == "committed"
    code, second = run(
        capsys,
        "withdraw",
        str(vault),
        fence(capsys, vault, "cl_ci"),
        "--reason",
        "b",
        "--json",
        "--actor",
        "grace",
    )
    assert code == 0
    code, rows = run(capsys, "history", str(vault), "cl_ci", "--json")
    assert code == 0
    row, before = rows  # the withdrawal, then the version the baseline recorded
    assert set(row) == HISTORY_KEYS | {"reason"}
    assert row["reason"] == "b"
    assert (before["operation"], before["source"]) == ("baseline", "observed")
    assert (row["commit"], row["author"], row["revision"]) == (second["git"]["commit"], "grace", 2)
    assert row["hash"] == hashlib.sha256((vault / "private/claims/ci.md").read_bytes()).hexdigest()
    code, listing = run(capsys, "checkpoints", str(vault), "--json")
    assert code == 0
    assert [c["commit"] for c in listing["commits"]][:2] == [second["git"]["commit"], first["git"]["commit"]]
    assert [c["author"] for c in listing["commits"]] == ["grace", "ada", "unknown"]
    assert listing["commits"][2]["operation"] == "baseline"
    assert run(capsys, "checkpoints", str(vault), "--pending", "--json")[1]["outbox"] == []
    with pytest.raises(SystemExit) as refused:  # read as a usage error with the command line
        run(capsys, "history", str(vault), "cl_ci", "--limit", "0", "--json")
    assert refused.value.code == 2


def test_scan_commits_outside_edits_and_the_observed_setting_turns_it_off(
    capsys: pytest.CaptureFixture[str], kit: VaultKit
) -> None:
    """`knowledge scan` ends with an observed checkpoint of the edits it found; `checkpoints
    --observed off` turns that off for the vault (and says so), `on` back on."""
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red")
    vault = kit.root
    kit.scan().history.ensure_baseline()
    kit.close()
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI green")
    assert run(capsys, "scan", str(vault), "--json")[0] == 0
    code, rows = run(capsys, "history", str(vault), "cl_ci", "--json")
    assert [(r["source"], r["operation"]) for r in rows] == [
        ("observed", "observed"),
        ("observed", "baseline"),
    ]
    code, listing = run(capsys, "checkpoints", str(vault), "--observed", "off", "--json")
    assert code == 0
    assert listing["observed"]["enabled"] is False
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red again")
    run(capsys, "scan", str(vault), "--json")
    assert len(run(capsys, "history", str(vault), "cl_ci", "--json")[1]) == 2
    assert "observed checkpoints: off" in run(capsys, "checkpoints", str(vault))[1]
    assert run(capsys, "checkpoints", str(vault), "--observed", "on", "--json")[1]["observed"]["enabled"]


def test_the_first_scan_records_the_vaults_first_checkpoint(
    capsys: pytest.CaptureFixture[str], kit: VaultKit
) -> None:
    """A vault kept only with other editors and `knowledge scan` gets a history too: the
    first scan commits every file as found, later scans only what changed."""
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red")
    code, first = run(capsys, "scan", str(kit.root), "--json")
    assert code == 0
    assert len(first["checkpoint"]["baseline"]) == 40
    code, again = run(capsys, "scan", str(kit.root), "--json")
    assert again["checkpoint"] == {"baseline": None, "observed": {"state": "nothing"}}
    code, rows = run(capsys, "history", str(kit.root), "cl_ci", "--json")
    assert [(r["operation"], r["commit"]) for r in rows] == [("baseline", first["checkpoint"]["baseline"])]
