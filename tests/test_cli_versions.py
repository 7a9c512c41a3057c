"""`knowledge show --at` and `knowledge diff` (issue 15, §2), and user-git rows in
`knowledge history`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest

from knowledge_desktop.cli import main
from tests.engine.history.gitkit import commit_files, epoch
from tests.vaultkit import VaultKit, envelope, record_text

ADA = "private/people/ada.md"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith(("{", "[")) else out), err


def edit(capsys: pytest.CaptureFixture[str], vault: Path, body: str, tmp_path: Path) -> str:
    code, shown, _ = run(capsys, "show", str(vault), "pg_ada", "--json")
    assert code == 0
    source = tmp_path / "body.md"
    source.write_text(body)
    fence = f"{shown['id']}:{shown['revision']}:{shown['hash']}"
    code, receipt, _ = run(capsys, "edit-body", str(vault), fence, "--from", str(source), "--json")
    assert code == 0, receipt
    return str(receipt["git"]["commit"])


def test_show_at_and_diff(capsys: pytest.CaptureFixture[str], kit: VaultKit, tmp_path: Path) -> None:
    kit.page(ADA, "pg_ada", "Ada", "First.\n", type="person")
    vault = str(kit.root)
    first = edit(capsys, kit.root, "Second.\n", tmp_path)
    second = edit(capsys, kit.root, "Third.\n", tmp_path)
    code, past, _ = run(capsys, "show", vault, "pg_ada", "--at", first[:10], "--json")
    assert code == 0
    assert (past["revision"], past["body"], past["commit"], past["source"], past["path"]) == (
        2,
        "Second.\n",
        first,
        "checkpoint",
        ADA,
    )
    code, human, _ = run(capsys, "show", vault, "pg_ada", "--at", first)
    assert code == 0
    assert "Second." in human
    assert f"checkpoint {first[:12]}" in human
    code, text, _ = run(capsys, "diff", vault, "pg_ada")
    assert code == 0
    assert text.startswith(f"--- a/{ADA} @ {first[:12]}")
    assert "+Third.\n" in text
    code, text, _ = run(capsys, "diff", vault, "pg_ada", "--from", first, "--to", second)
    assert code == 0
    assert "-Second.\n" in text
    code, _out, err = run(capsys, "show", vault, "pg_ada", "--at", "2001-01-01", "--json")
    assert code == 2
    assert "pg_ada did not exist at 2001-01-01" in err
    code, _out, err = run(capsys, "diff", vault, "pg_ada", "--from", "not a date")
    assert code == 2
    assert "neither a commit id" in err


def test_history_lists_the_users_commits(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A vault inside the user's repository: `history --json` lists their commit of the file."""
    top = tmp_path / "work"
    repo = pygit2.init_repository(str(top), initial_head="main")
    data = record_text(envelope("pg_ada", "page", "Ada", "private", type="person"), "Hi.\n").encode()
    commit = commit_files(
        repo, "refs/heads/main", {f"v/{ADA}": data}, "add Ada", epoch("2024-05-01T08:00:00")
    )
    (top / "v" / ADA).parent.mkdir(parents=True)
    (top / "v" / ADA).write_bytes(data)
    code, rows, _ = run(capsys, "history", str(top / "v"), "pg_ada", "--json")
    assert code == 0
    assert [(r["commit"], r["source"], r["path"], r["at"]) for r in rows] == [
        (commit, "user-git", ADA, "2024-05-01T08:00:00Z")
    ]
