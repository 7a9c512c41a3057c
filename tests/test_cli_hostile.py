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
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
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
    report = json.loads(out)
    found = {(d["path"], d["code"]): d for d in report["items"]}
    grouped = {(path, g["code"]) for g in report.get("groups", []) for path in g["paths"]}
    wrong = []
    for case in hc.CASES:
        if case.code is None:
            continue
        if (case.path, case.code) in grouped:  # a plain note: listed in its group by exact path
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
    report = json.loads(out)
    total = len(report["items"]) + len(report.get("groups", []))  # a group is one line
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


# -- control bytes (issue 24 item 6): vault text never drives the terminal ----------------


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("control-cli") / "vault"
    hc.control_bytes(root)
    return root


def raw(text: str) -> list[str]:
    """The terminal-driving characters of `hc.CONTROL` found in `text`."""
    return [c for c in hc.RAW if c in text]


READS = [
    ["scan", "{v}"],
    ["records", "{v}", "--include-ineligible"],
    ["show", "{v}", "pg_alert"],
    ["show", "{v}", "private/notes/typed.md"],
    ["show", "{v}", hc.CONTROL_NAME],
    ["grep", "{v}", "alert"],
    ["lookup", "{v}", f"alias {hc.CONTROL}"],
    ["lookup", "{v}", "pg_named"],
    ["timeline", "{v}"],
    ["chronicle", "day", "{v}", "2026-10-05"],
    ["diagnostics", "{v}"],
    ["diagnostics", "{v}", "--format", "csv"],
    ["diagnostics", "{v}", "--format", "md"],
    ["diagnostics", "{v}", "--format", "html"],
    ["ontology", "{v}"],
    ["show", "{v}", f"missing {hc.CONTROL}"],
]
"""Every read command on `hc.control_bytes`' vault, each echoing some of its control text;
`scan` only counts (its lines hold no vault text here)."""


@pytest.mark.parametrize("argv", READS, ids=lambda argv: " ".join(argv[:1] + argv[2:3] + argv[3:4])[:40])
def test_no_control_byte_of_a_record_reaches_the_terminal(
    capsys: pytest.CaptureFixture[str], control: Path, argv: list[str]
) -> None:
    """CLI, human output and reports: ESC, BEL, CR, the C1 CSI and a bidi override in an id,
    a type, a title, an alias, a body, a link or a file name are printed as escapes."""
    code, out, err = run(capsys, *[a.replace("{v}", str(control)) for a in argv])
    assert code == (2 if "missing" in argv[-1] else 0), err
    assert (raw(out), raw(err)) == ([], [])
    assert argv[0] == "scan" or "\\x1b" in out + err


def test_each_record_and_finding_stays_one_line(capsys: pytest.CaptureFixture[str], control: Path) -> None:
    """CLI: the newline in a type or a title is escaped, so records, grep and diagnostics
    print one line per record, hit (and its snippet) and finding; a CSV report one row each."""
    _, out, _ = run(capsys, "records", str(control), "--include-ineligible")
    lines = out.splitlines()
    assert len(lines) == 3 + 1
    assert [line.split()[0] for line in lines[:3]] == ["pg_alert", "pg_named", "pg_typed\\x1b[0m"]
    assert "red \\x1b[31mALERT\\x1b[0m\\nsecond\\x07\\r\\x9b2J\\u202e [invalid] Typed alert" in lines[2]
    _, out, _ = run(capsys, "grep", str(control), "alert")
    assert len(out.splitlines()) == 2 * 2 + 1  # two current records, two lines each
    _, found, _ = run(capsys, "diagnostics", str(control), "--json")
    total = len(json.loads(found)["items"])
    _, out, _ = run(capsys, "diagnostics", str(control))
    assert len(out.splitlines()) == total + 1
    assert f"{hc.CONTROL_NAME.encode('unicode_escape').decode()}:13" in out
    _, out, _ = run(capsys, "diagnostics", str(control), "--format", "csv")
    assert len(out.splitlines()) == total + 1


def test_show_keeps_the_lines_of_a_body(capsys: pytest.CaptureFixture[str], control: Path) -> None:
    """CLI show: a body keeps its line ends (a CRLF one too) and tabs; a lone CR, ESC, BEL
    and C1 inside a line are escaped."""
    _, out, _ = run(capsys, "show", str(control), "pg_alert")
    assert "\nBody red \\x1b[31mALERT\\x1b[0m\nsecond\\x07\\r\\x9b2J\\u202e alert\nline two\tend\\x9b " in out


def test_json_keeps_the_exact_strings(capsys: pytest.CaptureFixture[str], control: Path) -> None:
    """CLI --json: the same text, exact (json.dumps escapes controls itself), so a script
    gets back what the file holds."""
    for argv in (["records", "--include-ineligible"], ["show", "pg_alert"], ["grep", "alert"]):
        code, out, _ = run(capsys, argv[0], str(control), *argv[1:], "--json")
        assert code == 0
        assert raw(out) == []  # json.dumps writes \u001b, never the byte itself
    _, out, _ = run(capsys, "records", str(control), "--include-ineligible", "--json")
    items = {i["id"]: i for i in json.loads(out)["items"]}
    assert items["pg_alert"]["title"] == f"Alert {hc.CONTROL}"
    assert items["pg_typed\x1b[0m"]["type"] == hc.CONTROL
    assert items["pg_named"]["path"] == hc.CONTROL_NAME
    _, out, _ = run(capsys, "show", str(control), "pg_alert", "--json")
    shown = json.loads(out)
    assert shown["frontmatter"]["aliases"] == [f"alias {hc.CONTROL}"]
    assert f"Body {hc.CONTROL} alert\r\nline two\tend\x9b" in shown["body"]
    _, out, _ = run(capsys, "diagnostics", str(control), "--format", "json")
    assert hc.CONTROL_NAME in {d["path"] for d in json.loads(out)["items"]}


def test_writes_history_and_diffs_escape_what_they_echo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """CLI writes: a body, reason, actor and request id with control bytes are escaped in
    the receipt, the journal, a rejection, `diff` and `show --at`; JSON keeps them."""
    root = tmp_path / "vault"
    hc.control_bytes(root)
    _, out, _ = run(capsys, "show", str(root), "pg_named", "--json")
    shown = json.loads(out)
    fence = f"{shown['id']}:{shown['revision']}:{shown['hash']}"
    body = tmp_path / "body.md"
    body.write_text(f"New {hc.CONTROL}\n", encoding="utf-8")
    who = ["--actor", f"ada {hc.CONTROL}", "--request-id", f"req {hc.CONTROL}"]
    code, out, err = run(capsys, "edit-body", str(root), fence, "--from", str(body), *who)
    assert (code, raw(out), raw(err)) == (0, [], [])
    assert "request req red \\x1b[31mALERT" in out
    code, out, err = run(capsys, "edit-body", str(root), fence, "--from", str(body), "--request-id", "r2")
    assert (code, raw(out), raw(err)) == (4, [], [])
    for argv in (["journal"], ["diff", "pg_named"], ["history", "pg_named"], ["checkpoints"]):
        code, out, err = run(capsys, argv[0], str(root), *argv[1:])
        assert (code, raw(out), raw(err)) == (0, [], []), argv
    _, out, _ = run(capsys, "diff", str(root), "pg_named")
    assert "\n+New red \\x1b[31mALERT\\x1b[0m\n+second\\x07" in out  # (a lone CR ends a diff line)
    _, out, _ = run(capsys, "journal", str(root), "--json")
    assert json.loads(out)["items"][0]["actor"] == f"ada {hc.CONTROL}"
    # Git refuses such a name in a signature: the checkpoint is still committed (not left
    # pending for good), its author shown escaped
    _, out, _ = run(capsys, "checkpoints", str(root), "--pending", "--json")
    assert json.loads(out)["outbox"] == []
    _, out, _ = run(capsys, "history", str(root), "pg_named", "--json")
    assert json.loads(out)[0]["operation"] == "edit-body"
    assert json.loads(out)[0]["author"].startswith("ada red \\x1b[31mALERT")
    _, out, _ = run(capsys, "history", str(root), "pg_named", "--json")
    baseline = json.loads(out)[-1]["commit"]
    _, out, _ = run(capsys, "edit-body", str(root), fence, "--from", str(body), "--request-id", "r2")
    code, out, err = run(capsys, "show", str(root), "pg_named", "--at", baseline)
    assert (code, raw(out), raw(err)) == (0, [], [])
    assert "alert [[Gone\\x1b]]" in out


def test_extensions_changes_and_adopt_escape_what_they_echo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """CLI extensions, changes, revert and adopt --dry-run: an extension's description, a
    change's summary (a fact's value; a document's title is refused them), a note's heading and file name
    with control bytes are escaped; `changes --json` keeps them exact."""
    root = tmp_path / "vault"
    hc.control_bytes(root)
    (root / "private/people").mkdir(parents=True)
    (root / "private/people/me.md").write_text(
        hc.page("pg_me", "Grace", type="person", aliases=["knowledge:self"])
    )
    (root / "private/inbox").mkdir()
    heading = hc.CONTROL.replace("\r", "")  # a lone CR would keep the note from being adopted
    (root / "private/inbox/raw\x1b[31m.md").write_text(f"# Heading {heading}\n\ntext\n", encoding="utf-8")
    permissions = ["facts.read:self:location.home.*", "facts.write:self:location.home.*"]
    permissions += ["collections.read:keep", "collections.write:keep"]
    manifest = {
        "name": "helper",
        "description": f"Desc {hc.CONTROL}",
        "knowledge": {"permissions": permissions},
    }
    with Vault.open(root) as vault:
        vault.reconcile()
        extensions = Extensions(vault.store, vault.root)
        extensions.install(validate_manifest(manifest), "private")
        for permission in permissions:
            extensions.grant("helper", permission)
        session = open_session(vault, "helper", run_id="run_a")
        facts.put(session, predicate_hint="location.home.city", value=f"City {hc.CONTROL}")
        with pytest.raises(ApiError, match="one line of text"):  # a title is refused them
            docs.upsert(session, "keep", title=f"Note {hc.CONTROL}", body="Text.\n")
        docs.upsert(session, "keep", title="Note", body=f"Text {hc.CONTROL}.\n")
    for argv in (
        ["extensions", str(root), "list"],
        ["changes", str(root)],
        ["adopt", str(root), "--partition", "private", "--dry-run"],
        ["revert", str(root), "--run", "run_a"],
    ):
        code, out, err = run(capsys, *argv)
        assert (code, raw(out), raw(err)) == (0, [], []), argv
        assert argv[0] == "revert" or "\\x1b[31m" in out, argv  # revert's notes quote nothing
    _, out, _ = run(capsys, "changes", str(root), "--json")
    summaries = [c["summary"] for c in json.loads(out)]
    # the summary folds a value's line breaks into spaces, and keeps every other byte exact
    assert any(s.startswith("fact-put:") and "City red \x1b[31mALERT" in s and "\x9b" in s for s in summaries)
