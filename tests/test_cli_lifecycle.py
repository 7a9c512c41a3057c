"""The lifecycle commands of the `knowledge` CLI: correct, withdraw, supersede (--undo), merge,
unmerge and annotate (issue 14, CLI contract; spec: corrections-and-merges). Exit codes: 0
published or the same receipt again, 4 rejected with {"error": {code, message, current}} on
stdout, 2 usage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import RECEIPT_KEYS, VaultKit, frontmatter, frontmatter_of


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith(("{", "[")) else out), err


def fence(capsys: pytest.CaptureFixture[str], vault: Path, record_id: str) -> str:
    code, shown, _ = run(capsys, "show", str(vault), record_id, "--json")
    assert code == 0
    return f"{shown['id']}:{shown['revision']}:{shown['hash']}"


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page("private/projects/pr.md", "pg_pr", "PR 42", type="project")
    kit.page(
        "private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["email:ada@example.org"]
    )
    kit.page("private/people/al.md", "pg_al", "A. Lovelace", type="person", aliases=["email:ada@example.org"])
    kit.claim("private/claims/ci.md", "cl_ci", "PR 42 CI red", entities=["pg_pr"])
    kit.claim("private/claims/merged.md", "cl_merged", "PR 42 merged")
    kit.claim("private/claims/dep.md", "cl_dep", "Because CI is red", dependencies=["cl_ci"])
    return kit.root


def test_withdraw_prints_the_receipt_and_a_retry_prints_it_again(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """`withdraw VAULT FENCE --reason`: exit 0 with the receipt (impact listed); the same
    request id again is the same receipt; a new request on the withdrawn record is exit 4."""
    args = ("withdraw", str(vault), fence(capsys, vault, "cl_ci"), "--reason", "wrong", "--json")
    code, receipt, _ = run(capsys, *args, "--request-id", "rq-1", "--actor", "grace")
    assert code == 0
    assert set(receipt) == RECEIPT_KEYS
    assert (receipt["operation"], receipt["targetId"], receipt["reason"]) == ("withdraw", "cl_ci", "wrong")
    assert [i["id"] for i in receipt["impact"]["items"]] == ["cl_dep"]
    assert (
        frontmatter_of((vault / "private/claims/ci.md").read_bytes())["lifecycle_change"]["actor"] == "grace"
    )
    assert run(capsys, *args, "--request-id", "rq-1", "--actor", "grace")[:2] == (0, receipt)
    code, error, _ = run(
        capsys, "withdraw", str(vault), fence(capsys, vault, "cl_ci"), "--reason", "x", "--json"
    )
    assert code == 4
    assert error["error"]["code"] == "already-withdrawn"
    assert set(error["error"]) == {"code", "message", "current"}


def test_a_stale_fence_is_exit_4_and_writes_nothing(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """Fences: a mismatch writes nothing; the error names the fence and the current values."""
    stale = fence(capsys, vault, "cl_ci").replace(":1:", ":2:")
    before = (vault / "private/claims/ci.md").read_bytes()
    code, error, _ = run(capsys, "withdraw", str(vault), stale, "--reason", "x", "--json")
    assert code == 4
    assert error["error"]["code"] == "fence-revision"
    assert error["error"]["current"]["revision"] == 1
    assert (vault / "private/claims/ci.md").read_bytes() == before


def test_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI contract: a malformed fence or a missing --reason is a usage error."""
    for argv in (
        ["withdraw", str(vault), "cl_ci:1:abc", "--reason", "x"],
        ["withdraw", str(vault), fence(capsys, vault, "cl_ci")],
        ["supersede", str(vault), fence(capsys, vault, "cl_ci"), "--reason", "x"],
    ):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2


def test_correct_with_a_file(capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path) -> None:
    """`correct VAULT FENCE --with FILE.md --reason`: one receipt with replacementId and both items."""
    fields = {
        "kind": "claim",
        "title": "PR 42 CI green",
        "claim_kind": "fact",
        "assertion_origin": "source",
        "attribution": "CI",
        "entities": ["pg_pr"],
        "evidence": [{"url": "https://ci.example.org/42"}],
    }
    source = tmp_path / "fixed.md"
    source.write_text(f"---\n{frontmatter(fields)}---\nGreen after a rerun.\n")
    args = ("correct", str(vault), fence(capsys, vault, "cl_ci"), "--with", str(source), "--reason", "rerun")
    code, receipt, _ = run(capsys, *args, "--json")
    assert code == 0
    assert receipt["operation"] == "correct"
    new_id = receipt["replacementId"]
    assert [i["id"] for i in receipt["items"]] == ["cl_ci", new_id]
    assert frontmatter_of((vault / receipt["items"][1]["path"]).read_bytes())["supersedes"] == "cl_ci"


def test_annotate_then_supersede_then_undo(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """`annotate --entity`, `supersede --by FENCE FENCE...` and `--undo` (operation unsupersede)."""
    code, error, _ = run(
        capsys, "supersede", str(vault), "--by", fence(capsys, vault, "cl_merged"),
        fence(capsys, vault, "cl_ci"), "--reason", "merged", "--json",
    )  # fmt: skip
    assert (code, error["error"]["code"]) == (4, "no-shared-page")
    code, receipt, _ = run(
        capsys, "annotate", str(vault), fence(capsys, vault, "cl_merged"), "--entity", "pg_pr", "--json"
    )
    assert (code, receipt["operation"]) == (0, "annotate")
    by = fence(capsys, vault, "cl_merged")
    code, receipt, _ = run(
        capsys,
        "supersede",
        str(vault),
        "--by",
        by,
        fence(capsys, vault, "cl_ci"),
        "--reason",
        "merged",
        "--json",
    )
    assert (code, receipt["operation"], receipt["replacementId"]) == (0, "supersede", "cl_merged")
    code, receipt, _ = run(
        capsys, "supersede", str(vault), "--by", by, fence(capsys, vault, "cl_ci"),
        "--reason", "too early", "--undo", "--json",
    )  # fmt: skip
    assert (code, receipt["operation"]) == (0, "unsupersede")
    code, shown, _ = run(capsys, "show", str(vault), "cl_ci", "--json")
    assert (shown["lifecycle"], shown["eligible"]) == ("active", True)


def test_merge_and_unmerge(capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path) -> None:
    """`merge --survivor --absorbed --reason [--title] [--body FILE]`, then `unmerge FENCE`;
    a write naming the merged page is exit 4 with the survivor's id."""
    body = tmp_path / "body.md"
    body.write_text("One person.\n")
    code, receipt, _ = run(
        capsys, "merge", str(vault), "--survivor", fence(capsys, vault, "pg_ada"),
        "--absorbed", fence(capsys, vault, "pg_al"), "--reason", "same person",
        "--title", "Ada, Countess of Lovelace", "--body", str(body), "--json",
    )  # fmt: skip
    assert code == 0
    assert (receipt["operation"], receipt["targetId"], receipt["survivorId"]) == ("merge", "pg_al", "pg_ada")
    assert (vault / "private/people/ada.md").read_text().endswith("---\nOne person.\n")
    code, error, _ = run(
        capsys, "withdraw", str(vault), fence(capsys, vault, "pg_al"), "--reason", "x", "--json"
    )
    assert (code, error["error"]["code"], error["error"]["current"]["survivorId"]) == (
        4,
        "merged-target",
        "pg_ada",
    )
    code, receipt, _ = run(
        capsys, "unmerge", str(vault), fence(capsys, vault, "pg_al"), "--reason", "no", "--json"
    )
    assert (code, receipt["operation"]) == (0, "unmerge")
    assert frontmatter_of((vault / "private/people/al.md").read_bytes())["lifecycle"] == "active"


def test_diagnostics_list_merge_candidates(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """`knowledge diagnostics` reports mergeCandidates (human and JSON)."""
    code, report, _ = run(capsys, "diagnostics", str(vault), "--json")
    assert code == 0
    assert {"items", "counts", "mergeCandidates"} <= set(report)
    (group,) = report["mergeCandidates"]
    assert (group["strength"], [p["id"] for p in group["pages"]]) == ("strong", ["pg_ada", "pg_al"])
    code, text, _ = run(capsys, "diagnostics", str(vault))
    assert "Possible duplicates (1):" in text
    assert "email:ada@example.org" in text
