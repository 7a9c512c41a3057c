"""`knowledge search` (issue 27 §3): its flags, JSON shape, default mode and usage errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.resources import demo_vault_path
from tests.vaultkit import VaultKit

KEYS = {"id", "kind", "type", "title", "path", "score", "keywordRank", "semanticRank", "snippet"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search") / "demo"
    shutil.copytree(demo_vault_path(), root, ignore=shutil.ignore_patterns(".knowledge"))
    return root


def search(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["search", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_search_is_hybrid_by_default_with_the_issues_keys(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = search(capsys, str(demo), "offline maps for hikers", "--json")
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"mode", "results"}
    assert result["mode"] == "hybrid"
    assert result["results"]
    assert all(set(r) == KEYS for r in result["results"])
    assert len(result["results"]) <= 10
    assert any(r["keywordRank"] and r["semanticRank"] for r in result["results"])


@pytest.mark.parametrize("mode", ["semantic", "keyword"])
def test_mode_kind_type_and_limit(demo: Path, capsys: pytest.CaptureFixture[str], mode: str) -> None:
    argv = [str(demo), "studio website", "--mode", mode, "--kind", "page", "--type", "person", "--limit", "2"]
    code, out, _ = search(capsys, *argv, "--json")
    result = json.loads(out)
    assert code == 0
    assert result["mode"] == mode
    assert 0 < len(result["results"]) <= 2
    assert {(r["kind"], r["type"]) for r in result["results"]} == {("page", "person")}
    rank = "semanticRank" if mode == "semantic" else "keywordRank"
    other = "keywordRank" if mode == "semantic" else "semanticRank"
    assert all(r[rank] and r[other] is None for r in result["results"])


def test_human_output_names_the_mode(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = search(capsys, str(demo), "head programmer")
    assert code == 0
    assert out.rstrip().endswith("(hybrid)")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["q", "--mode", "fuzzy"], "invalid choice"),
        (["q", "--limit", "0"], "limit"),
        (["   "], "word tokens"),
        (["q", "--kind", "note", "--type", "person"], "notes have no type"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    demo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code, _, err = search(capsys, str(demo), *argv)
    except SystemExit as exc:
        code, err = int(exc.code or 0), capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_kind_note_and_the_default_answer_notes(kit: VaultKit, capsys: pytest.CaptureFixture[str]) -> None:
    """Notes (issue 25) come with `kind` "note", a null id and type, their path and title."""
    kit.page("private/people/ann.md", "pg_ann", "Ann", "Ann runs the harbour cafe.\n", type="person")
    kit.write("Baking.md", "Bake the sourdough loaf on Sunday morning.\n")
    code, out, _ = search(capsys, str(kit.root), "bread", "--kind", "note", "--json")
    assert code == 0
    notes = json.loads(out)["results"]
    assert [(r["kind"], r["id"], r["type"], r["path"], r["title"]) for r in notes] == [
        ("note", None, None, "Baking.md", "Baking")
    ]
    assert all(set(r) == KEYS for r in notes)
    code, out, _ = search(capsys, str(kit.root), "sourdough cafe", "--json")
    assert {(r["kind"], r["path"]) for r in json.loads(out)["results"]} == {
        ("page", "private/people/ann.md"),
        ("note", "Baking.md"),
    }
    code, out, _ = search(capsys, str(kit.root), "sourdough", "--kind", "note")
    assert "Baking  [note]  Baking.md" in out
