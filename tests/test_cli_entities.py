"""`knowledge entities REPO [--max-commits N] [--since-tag TAG] [--vault VAULT] --json`
(issue 17): the KnowledgeEntitiesV1 document, a short human summary, the vault's current
claims as memory candidates, and exit 2 for usage errors and a relation overflow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.extraction import relations, validate
from tests.repokit import RepoKit
from tests.vaultkit import VaultKit


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.startswith("{") else out), err


@pytest.fixture
def repo(tmp_path: Path) -> RepoKit:
    rk = RepoKit(tmp_path / "repo")
    rk.write("docs/adr/0001-use-sqlite.md", "---\nstatus: accepted\naliases: [ADR-1]\n---\n# Use SQLite\n")
    rk.write("GLOSSARY.md", "# Glossary\n\n**Vault**: a folder.\n")
    for n in range(3):
        rk.write("f.txt", str(n))
        rk.commit(f"fix: change {n}")
    return rk


def test_json_is_the_documented_shape(capsys: pytest.CaptureFixture[str], repo: RepoKit) -> None:
    code, doc, _ = run(capsys, "entities", str(repo.root), "--max-commits", "2", "--json")
    assert code == 0
    validate(doc)
    assert [e["kind"] for e in doc["entities"]].count("change") == 2
    assert doc["coverage"]["history"]["status"] == "partial"
    assert "memoryRelations" not in doc


def test_the_human_summary(capsys: pytest.CaptureFixture[str], repo: RepoKit) -> None:
    code, out, _ = run(capsys, "entities", str(repo.root))
    assert code == 0
    assert out.splitlines()[0] == "1 decisions, 1 concepts, 3 changes, 0 memory relations"
    assert "  symbols    complete" in out.splitlines()


@pytest.mark.parametrize("value", ["0", "201"])
def test_max_commits_out_of_range_exits_2(
    capsys: pytest.CaptureFixture[str], repo: RepoKit, value: str
) -> None:
    code, out, err = run(capsys, "entities", str(repo.root), "--max-commits", value, "--json")
    assert (code, out) == (2, "")
    assert err.strip() == f"knowledge: max commits must be between 1 and 200, not {value}"


def test_a_malformed_option_exits_2(capsys: pytest.CaptureFixture[str], repo: RepoKit) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["entities", str(repo.root), "--max-commits", "x"])
    assert raised.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_a_missing_folder_and_an_unknown_tag(capsys: pytest.CaptureFixture[str], repo: RepoKit) -> None:
    code, _, err = run(capsys, "entities", str(repo.root / "nope"), "--json")
    assert (code, err.strip()) == (2, f"knowledge: {repo.root / 'nope'} is not a folder")
    code, doc, _ = run(capsys, "entities", str(repo.root), "--since-tag", "v9", "--json")
    assert code == 0
    assert doc["coverage"]["history"]["status"] == "not-analyzed"


def test_vault_claims_become_memory_relations(
    capsys: pytest.CaptureFixture[str], repo: RepoKit, kit: VaultKit
) -> None:
    kit.claim("private/claims/a.md", "cl_a", "A", body="We keep `ADR-1` as it is.\n")
    kit.claim("private/claims/b.md", "cl_b", "B", body="concept:Vault\n")
    kit.claim("private/claims/c.md", "cl_c", "C", body="Nothing to link.\n")
    kit.scan()
    kit.close()
    code, doc, _ = run(capsys, "entities", str(repo.root), "--vault", str(kit.root), "--json")
    assert code == 0
    validate(doc)
    assert [(r["candidateId"], r["target"], r["evidence"]["kind"]) for r in doc["memoryRelations"]] == [
        ("cl_a", "decision:docs/adr/0001-use-sqlite.md", "alias"),
        ("cl_b", "concept:Vault", "id"),
    ]
    assert doc["memoryRelations"][0]["evidence"]["rawPath"] == "private/claims/a.md"
    assert doc["coverage"]["memory"]["candidates"] == 3


def test_a_relation_overflow_fails_with_a_message(
    capsys: pytest.CaptureFixture[str], repo: RepoKit, kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relations, "MAX_MEMORY_RELATIONS", 1)
    kit.claim("private/claims/a.md", "cl_a", "A", body="ADR-1\n")
    kit.claim("private/claims/b.md", "cl_b", "B", body="ADR-1\n")
    kit.scan()
    kit.close()
    code, out, err = run(capsys, "entities", str(repo.root), "--vault", str(kit.root), "--json")
    assert code == 2
    assert out == ""
    assert "more than 1 memory relations" in err


def test_a_folder_the_app_does_not_keep_is_refused_and_left_as_it_was(
    capsys: pytest.CaptureFixture[str], repo: RepoKit, tmp_path: Path
) -> None:
    """`--vault` only reads: a folder without `.knowledge/` gets no state made in it."""
    folder = tmp_path / "notes"
    (folder / "private" / "notes").mkdir(parents=True)
    (folder / "private" / "notes" / "a.md").write_text("# A\n", encoding="utf-8")
    code, _out, err = run(capsys, "entities", str(repo.root), "--vault", str(folder), "--json")
    assert code == 2
    assert "not a vault the app keeps" in err
    assert not (folder / ".knowledge").exists()


def test_symbols_prints_the_discovery_snapshot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("class Engine: ...\n_hidden = 1\n")
    (tmp_path / "web.ts").write_text("export default function view() {}\n")
    code, snapshot, _ = run(capsys, "symbols", str(tmp_path), "--json")
    assert code == 0
    assert [(m["path"], [s["name"] for s in m["symbols"]]) for m in snapshot["facts"]] == [
        ("pkg/core.py", ["Engine"]),
        ("web.ts", ["view"]),
    ]
    assert snapshot["coverage"]["status"] == "complete"
    code, out, _ = run(capsys, "symbols", str(tmp_path))
    assert out.splitlines()[-1] == "2 modules, 2 symbols; coverage complete"


def test_entities_without_symbols_says_so(capsys: pytest.CaptureFixture[str], repo: RepoKit) -> None:
    code, doc, _ = run(capsys, "entities", str(repo.root), "--no-symbols", "--json")
    assert code == 0
    assert doc["coverage"]["symbols"]["status"] == "not-analyzed"


def test_symbols_of_a_missing_folder_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "symbols", str(tmp_path / "nope"))
    assert code == 2
    assert "is not a folder" in err
