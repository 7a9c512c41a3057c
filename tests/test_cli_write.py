"""The `knowledge` write commands: the CLI contract agents and scripts depend on (issue 14,
CLI contract; spec: corrections-and-merges, Recovery and safeguards). Exit codes: 0
published (or the same receipt again), 4 rejected with an error object on stdout, 2 usage."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.write import publish
from tests.vaultkit import RECEIPT_KEYS, VaultKit

NEW_PAGE = "---\nkind: page\ntitle: Ada Lovelace\ntype: person\n---\nAda wrote the first program.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object] | None, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person", body="Grace.\n")
    return kit.root


def fence(capsys: pytest.CaptureFixture[str], vault: Path, record_id: str) -> str:
    code, shown, _ = run(capsys, "show", str(vault), record_id, "--json")
    assert code == 0
    assert shown is not None
    return f"{shown['id']}:{shown['revision']}:{shown['hash']}"


def test_show_gives_the_revision_and_the_hash_of_the_files_bytes(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """`show --json` has "revision" and "hash", the hex SHA-256 of the file's bytes."""
    _, shown, _ = run(capsys, "show", str(vault), "pg_grace", "--json")
    assert shown is not None
    digest = hashlib.sha256((vault / "private/people/grace.md").read_bytes()).hexdigest()
    assert (shown["revision"], shown["hash"]) == (1, digest)


def test_new_from_a_file_prints_the_receipt_and_a_retry_prints_it_again(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    """`new --from FILE --request-id R`: exit 0 and the receipt; the same request again gives
    the same receipt and writes nothing; another payload under R is exit 4."""
    source = tmp_path / "ada.md"
    source.write_text(NEW_PAGE)
    args = ("new", str(vault), "--from", str(source), "--request-id", "rq_1", "--actor", "ada", "--json")
    code, receipt, _ = run(capsys, *args)
    assert code == 0
    assert receipt is not None
    assert set(receipt) == RECEIPT_KEYS
    assert receipt["requestId"] == "rq_1"
    assert receipt["items"][0]["path"] == "private/people/ada-lovelace.md"  # type: ignore[index]
    again = run(capsys, *args)
    assert again[:2] == (0, receipt)
    assert len(list((vault / "private/people").glob("ada-lovelace*"))) == 1
    source.write_text(NEW_PAGE.replace("Ada wrote", "Ada did not write"))
    code, error, _ = run(capsys, *args)
    assert code == 4
    assert error is not None
    assert error["error"]["code"] == "request-reused"  # type: ignore[index]


def test_new_without_a_request_id_makes_one(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --request-id the command makes one and prints it; `--from -` reads stdin as
    bytes (no newline translation)."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(NEW_PAGE.replace("\n", "\r\n").encode())))
    code, receipt, _ = run(capsys, "new", str(vault), "--from", "-", "--json")
    assert code == 0
    assert receipt is not None
    assert str(receipt["requestId"]).startswith("rq_")
    assert b"\r\n" in (vault / "private/people/ada-lovelace.md").read_bytes()


def test_save_and_edit_body_are_fenced(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    """`save FENCE --from` and `edit-body FENCE --from`: exit 0 with a fresh fence; the old
    fence is exit 4 with the error object naming the fence and the current values."""
    first = fence(capsys, vault, "pg_grace")
    body = tmp_path / "body.md"
    body.write_text("Grace wrote the first compiler.\n")
    code, receipt, _ = run(capsys, "edit-body", str(vault), first, "--from", str(body), "--json")
    assert code == 0
    assert receipt is not None
    assert receipt["items"][0]["revision"] == 2  # type: ignore[index]
    page = tmp_path / "page.md"
    page.write_text(
        (vault / "private/people/grace.md").read_text().replace("title: Grace Hopper", "title: Grace")
    )
    code, error, _ = run(capsys, "save", str(vault), first, "--from", str(page), "--json")
    assert code == 4
    assert error is not None
    assert set(error["error"]) == {"code", "message", "current"}  # type: ignore[arg-type]
    assert error["error"]["code"] == "fence-revision"  # type: ignore[index]
    assert error["error"]["current"]["revision"] == 2  # type: ignore[index]
    code, receipt, _ = run(
        capsys, "save", str(vault), fence(capsys, vault, "pg_grace"), "--from", str(page), "--json"
    )
    assert code == 0
    assert "title: Grace\n" in (vault / "private/people/grace.md").read_text()


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path) -> None:
    """A malformed fence, a missing --from file or one that is not UTF-8 is a usage error."""

    def exit_code(*argv: str) -> int:
        try:
            return main(list(argv))
        except SystemExit as exc:  # the argument parser's own refusals
            return int(exc.code or 0)

    assert exit_code("save", str(vault), "pg_grace:1:abc", "--from", "-") == 2
    assert exit_code("new", str(vault), "--from", str(tmp_path / "missing.md")) == 2
    (tmp_path / "latin1.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    assert exit_code("new", str(vault), "--from", str(tmp_path / "latin1.md")) == 2
    assert exit_code("new", str(vault)) == 2
    assert exit_code("journal", str(vault), "--limit", "0") == 2
    assert "FENCE" in capsys.readouterr().err


def test_resume_and_journal(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`resume` finishes a request a crash interrupted and prints its receipt; `journal` lists
    entries newest first with their receipts; an unknown request is exit 4."""
    source = tmp_path / "ada.md"
    source.write_text(NEW_PAGE)

    class Crash(BaseException):
        pass

    def die(name: str) -> None:
        if name == "journaled":
            raise Crash

    monkeypatch.setattr(publish, "STEP", die)
    with pytest.raises(Crash):
        main(["new", str(vault), "--from", str(source), "--request-id", "rq_k", "--json"])
    monkeypatch.setattr(publish, "STEP", None)
    capsys.readouterr()
    # opening the vault finishes it; resume then answers with its receipt
    code, receipt, _ = run(capsys, "resume", str(vault), "rq_k", "--json")
    assert code == 0
    assert receipt is not None
    assert receipt["requestId"] == "rq_k"
    assert (vault / "private/people/ada-lovelace.md").is_file()
    code, listing, _ = run(capsys, "journal", str(vault), "--limit", "5", "--json")
    assert code == 0
    assert listing is not None
    assert [(i["requestId"], i["state"]) for i in listing["items"]] == [("rq_k", "published")]  # type: ignore[union-attr]
    assert listing["items"][0]["receipt"] == receipt  # type: ignore[index]
    code, error, _ = run(capsys, "resume", str(vault), "rq_nothing", "--json")
    assert code == 4
    assert error is not None
    assert error["error"]["code"] == "unknown-request"  # type: ignore[index]
