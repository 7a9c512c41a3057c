"""`knowledge adopt` and `knowledge undo` (issue 14, §4 and the CLI contract): a dry run lists
what would change and writes nothing, `--expect` refuses files changed since it, a real run is
one journaled write that `undo` takes back. Exit codes: 0 published, 4 rejected with
{"error": {code, message, current}} on stdout, 2 usage."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import VaultKit, frontmatter_of, obsidian_notes


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out, _err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith("{") else out)


def checksums(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.md"))
        if ".knowledge" not in p.parts
    }


@pytest.fixture
def notes(kit: VaultKit) -> Path:
    obsidian_notes(kit.root / "private", 40)
    kit.write("private/broken.md", "---\nx: [\n---\n")
    return kit.root


def test_dry_run_then_adopt_with_its_hashes_then_undo(
    notes: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = checksums(notes)
    code, dry = run(capsys, "adopt", str(notes), "--dry-run", "--json")
    assert code == 0
    assert dry["dryRun"] is True
    assert checksums(notes) == before
    assert len(dry["files"]) == 40
    assert dry["skipped"] == [
        {"path": "private/broken.md", "code": "invalid-yaml", "reason": dry["skipped"][0]["reason"]}
    ]
    saved = tmp_path / "dry.json"
    saved.write_text(json.dumps(dry))
    code, receipt = run(capsys, "adopt", str(notes), "--expect", str(saved), "--actor", "ada", "--json")
    assert code == 0, receipt
    assert receipt["operation"] == "adopt"
    assert [i["id"] for i in receipt["items"]] == [f["id"] for f in dry["files"]]
    first = notes / dry["files"][0]["path"]
    assert frontmatter_of(first.read_bytes())["id"] == dry["files"][0]["id"]
    code, journal = run(capsys, "journal", str(notes), "--json")
    assert journal["items"][0]["operation"] == "adopt"
    assert journal["items"][0]["actor"] == "ada"
    code, undone = run(capsys, "undo", str(notes), str(receipt["journalId"]), "--json")
    assert code == 0
    assert undone["operation"] == "undo"
    assert checksums(notes) == before
    code, again = run(capsys, "undo", str(notes), str(receipt["journalId"]), "--json")
    assert code == 4
    assert again["error"]["code"] == "already-undone"


def test_a_file_changed_since_the_dry_run_is_refused_with_exit_4(
    notes: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _code, dry = run(capsys, "adopt", str(notes), "--dry-run", "--json")
    saved = tmp_path / "dry.json"
    saved.write_text(json.dumps(dry))
    edited = notes / dry["files"][2]["path"]
    edited.write_text(edited.read_text() + "edited\n")
    sums = checksums(notes)
    code, out = run(capsys, "adopt", str(notes), "--expect", str(saved), "--json")
    assert code == 4
    assert out["error"]["code"] == "changed-since-dry-run"
    assert out["error"]["current"]["files"][0]["path"] == dry["files"][2]["path"]
    assert checksums(notes) == sums


def test_usage_errors_exit_2(notes: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert main(["adopt", str(notes), "--expect", str(bad), "--json"]) == 2
    with pytest.raises(SystemExit) as caught:
        main(["adopt", str(notes), "--type", "no-equals-sign"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit) as caught:
        main(["undo", str(notes), "not-a-number"])
    assert caught.value.code == 2


def test_undo_of_an_entry_that_is_not_an_adopt_is_refused(
    kit: VaultKit, capsys: pytest.CaptureFixture[str]
) -> None:
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    code, shown = run(capsys, "show", str(kit.root), "pg_a", "--json")
    fence = f"pg_a:{shown['revision']}:{shown['hash']}"
    code, receipt = run(capsys, "withdraw", str(kit.root), fence, "--reason", "wrong", "--json")
    assert code == 0
    code, out = run(capsys, "undo", str(kit.root), str(receipt["journalId"]), "--json")
    assert code == 4
    assert out["error"]["code"] == "not-undoable"
