"""The `knowledge` command on the hostile vault of `tests/hostile_cases.py`: no traceback,
exit 0, every case's diagnostic in the JSON (code, exact path, line), the good records
still listed, and one unambiguous terminal line per finding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from tests import hostile_cases as hc


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("hostile-cli")
    hc.build(base / "vault", base / "outside")
    return base / "vault"


@pytest.fixture
def locked(vault: Path) -> Iterator[None]:
    with hc.locked(vault):
        yield


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("locked")
def test_scan_counts_the_hostile_vault_without_a_traceback(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """CLI scan: exit 0, nothing on stderr, the unreadable files counted as unrecognized."""
    code, out, err = run(capsys, "scan", str(vault), "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["records"] > 50
    assert data["unrecognized"] >= 20
    assert data["diagnostics"]["error"] >= len([c for c in hc.CASES if c.code]) - 10


@pytest.mark.usefixtures("locked")
def test_diagnostics_json_names_every_case_by_exact_path_and_line(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """CLI diagnostics --json: each hostile case's code, path (newlines and all) and line."""
    code, out, err = run(capsys, "diagnostics", str(vault), "--json")
    assert (code, err) == (0, "")
    found = {(d["path"], d["code"]): d for d in json.loads(out)["items"]}
    wrong = []
    for case in hc.CASES:
        if case.code is None:
            continue
        item = found.get((case.path, case.code))
        if item is None or item["line"] != case.line or case.words not in item["message"]:
            wrong.append((case.name, item))
    assert wrong == []


@pytest.mark.usefixtures("locked")
def test_records_json_still_lists_the_good_and_the_oddly_named(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """CLI records: well-formed records, including ones with odd names, are listed as they are."""
    code, out, _ = run(capsys, "records", str(vault), "--json", "--limit", "1000")
    assert code == 0
    listed = {item["path"] for item in json.loads(out)["items"]}
    accepted = {c.path for c in hc.CASES if c.code is None and "chain" not in c.name}
    assert set(hc.VALID) | accepted <= listed


@pytest.mark.usefixtures("locked")
def test_the_terminal_listing_prints_one_unambiguous_line_per_finding(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """CLI diagnostics: a newline or a right-to-left mark in a file name is printed as an
    escape, so every finding is one line and no name reorders the text after it."""
    _, out, _ = run(capsys, "diagnostics", str(vault), "--json")
    total = len(json.loads(out)["items"])
    code, out, _ = run(capsys, "diagnostics", str(vault))
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == total + 1  # and the summary
    assert any("private/notes/names/new\\nline.md:13" in line for line in lines)
    assert any("private/notes/names/\\u202egnp.md:13" in line for line in lines)
    assert "\u202e" not in out


@pytest.mark.usefixtures("locked")
def test_a_file_shown_by_its_escaped_name(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI show: a name that is not UTF-8 is asked for as the diagnostics print it."""
    code, out, err = run(capsys, "show", str(vault), "private/notes/names/caf\\xe9.md", "--json")
    assert (code, err) == (0, "")
    shown = json.loads(out)
    assert [d["code"] for d in shown["diagnostics"]] == ["file-name-not-utf8"]
    code, out, _ = run(capsys, "show", str(vault), "private/notes/big/fifty-mb.md", "--json")
    assert code == 0
    assert json.loads(out)["body"] is None  # over the limit: not read for showing either


@pytest.mark.parametrize("fmt", ["--json", "human"])
def test_a_real_process_in_the_c_locale_exits_cleanly(vault: Path, fmt: str) -> None:
    """CLI: as its own process, with a C locale, odd names print without an encoding crash."""
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONPATH": str(Path(__file__).parent.parent)}
    argv = [sys.executable, "-m", "knowledge_desktop.cli", "diagnostics", str(vault)]
    done = subprocess.run(
        argv + ([fmt] if fmt != "human" else []), capture_output=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    if fmt == "--json":
        paths = {d["path"] for d in json.loads(done.stdout.decode("utf-8"))["items"]}
        assert "private/notes/names/new\nline.md" in paths


def test_a_vault_folder_that_cannot_be_listed_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CLI: when the vault folder itself cannot be listed mid-scan, the command says so in
    one line and exits 2, rather than taking every file for deleted."""
    root = tmp_path / "vault"
    (root / "private").mkdir(parents=True)
    (root / "private/good.md").write_text(hc.page("pg_good", "Good"), encoding="utf-8")
    assert run(capsys, "scan", str(root))[0] == 0
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if os.fspath(path) == str(root):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", str(root))
        return real(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run(capsys, "records", str(root), "--json")
    monkeypatch.undo()
    assert code == 2
    assert out == ""
    assert err == f"knowledge: Permission denied ({root})\n"
    code, out, _ = run(capsys, "records", str(root), "--json")
    assert [item["id"] for item in json.loads(out)["items"]] == ["pg_good"]
