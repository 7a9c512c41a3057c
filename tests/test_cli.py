"""The `knowledge` command: JSON shapes, report formats and exit codes."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from tests.vaultkit import VaultKit


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page(
        "private/people/ada.md",
        "pg_ada",
        "Ada Lovelace",
        type="person",
        tags=["team"],
        body="Works with [[Bob]].\n",
    )
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    kit.claim("private/claims/c.md", "cl_1", "Ada likes <b>tea</b>", entities=["pg_ada"])
    kit.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_acme", "works_at")
    kit.write("private/notes/bad.md", "---\ntitle: [oops\nformat: knowledge-record-v1\n---\n")  # a broken record
    return kit.root


def test_scan_reports_counts(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI scan: records, validity, unrecognized files, diagnostics by severity, scopes, time."""
    code, out, _ = run(capsys, "scan", str(vault), "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["records"], data["valid"], data["invalid"], data["unrecognized"]) == (4, 4, 0, 1)
    assert data["diagnostics"] == {"error": 1, "warning": 1, "info": 0}
    assert data["scopes"] == ["private"]
    assert data["elapsedMs"] >= 0


def test_records_lists_and_filters(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI records: the documented item fields, kind/type/tag filters, type aliases, paging."""
    _, out, _ = run(capsys, "records", str(vault), "--json")
    data = json.loads(out)
    assert data["total"] == 4
    assert set(data["items"][0]) == {
        "id",
        "kind",
        "type",
        "title",
        "path",
        "revision",
        "lifecycle",
        "scope",
        "valid",
        "duplicate",
    }
    _, out, _ = run(capsys, "records", str(vault), "--json", "--type", "organization")
    assert [i["id"] for i in json.loads(out)["items"]] == ["pg_acme"]
    _, out, _ = run(capsys, "records", str(vault), "--json", "--tag", "team")
    assert [i["id"] for i in json.loads(out)["items"]] == ["pg_ada"]
    _, out, _ = run(capsys, "records", str(vault), "--json", "--tag", "Team")
    assert json.loads(out)["items"] == []
    _, out, _ = run(capsys, "records", str(vault), "--json", "--limit", "3")
    page = json.loads(out)
    assert (len(page["items"]), page["nextOffset"]) == (3, 3)
    _, out, _ = run(capsys, "records", str(vault), "--json", "--limit", "3", "--offset", "3")
    assert json.loads(out)["nextOffset"] is None


def test_show_has_references_backlinks_and_diagnostics(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """CLI show: the record with references, backlinks (id, path, title, line), diagnostics."""
    _, out, _ = run(capsys, "show", str(vault), "pg_ada", "--json")
    data = json.loads(out)
    assert data["frontmatter"]["title"] == "Ada Lovelace"
    assert data["body"] == "Works with [[Bob]].\n"
    assert [r["status"] for r in data["references"]] == ["missing"]
    assert {b["id"] for b in data["backlinks"]} == {"cl_1", "rl_1"}
    assert all({"id", "path", "title", "line"} <= set(b) for b in data["backlinks"])
    assert [d["code"] for d in data["diagnostics"]] == ["link-missing"]
    _, out, _ = run(capsys, "show", str(vault), "private/people/ada.md", "--json")
    assert json.loads(out)["id"] == "pg_ada"


def test_diagnostics_json_shape_and_codes(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI diagnostics: items with code, severity, path, line, recordId, message; counts."""
    _, out, _ = run(capsys, "diagnostics", str(vault), "--json")
    data = json.loads(out)
    assert [(i["code"], i["path"], i["line"]) for i in data["items"]] == [
        ("yaml-syntax", "private/notes/bad.md", 3),
        ("link-missing", "private/people/ada.md", 15),
    ]
    assert set(data["items"][0]) == {"code", "severity", "path", "line", "recordId", "message"}
    assert data["counts"]["bySeverity"] == {"error": 1, "warning": 1, "info": 0}


def test_every_report_format_has_the_same_content(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    """Reports: JSON, CSV, Markdown and HTML carry every diagnostic."""
    for fmt in ("json", "csv", "md", "html"):
        target = tmp_path / f"report.{fmt}"
        code, _, _ = run(capsys, "diagnostics", str(vault), "--format", fmt, "-o", str(target))
        assert code == 0
        text = target.read_text()
        assert "yaml-syntax" in text
        assert "private/people/ada.md" in text
    rows = list(csv.DictReader(io.StringIO((tmp_path / "report.csv").read_text())))
    assert [r["code"] for r in rows] == ["yaml-syntax", "link-missing"]


def test_the_html_report_escapes_vault_content(
    kit: VaultKit, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Reports: HTML is self-contained and hostile names or messages cannot inject markup."""
    kit.page(
        "private/notes/<script>alert(1)</script>.md",
        "pg_x",
        "X",
        type="note",
        body="[[<img src=x onerror=alert(1)>]]\n",
    )
    target = tmp_path / "r.html"
    run(capsys, "diagnostics", str(kit.root), "--format", "html", "-o", str(target))
    text = target.read_text()
    assert "<script>" not in text
    assert "<img" not in text
    assert "&lt;script&gt;" in text
    assert "http" not in text.replace("http-equiv", "")  # nothing remote


def test_fail_on_sets_exit_code_three(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """Exit codes: --fail-on error|warning returns 3 when such findings exist."""
    assert run(capsys, "diagnostics", str(vault), "--fail-on", "error")[0] == 3
    assert run(capsys, "diagnostics", str(vault), "--fail-on", "warning")[0] == 3


def test_fail_on_passes_a_clean_vault(kit: VaultKit, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit codes: a vault without findings passes --fail-on warning with 0."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    assert run(capsys, "diagnostics", str(kit.root), "--fail-on", "warning")[0] == 0


def test_ontology_views(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    """CLI ontology: name, version, fingerprint, chain, definitions and issues."""
    _, out, _ = run(capsys, "ontology", str(vault), "--json")
    (view,) = json.loads(out)
    assert (view["name"], view["version"]) == ("knowledge-default", "1.0.0")
    assert len(view["fingerprint"]) == 64
    assert len(view["definitions"]) == 38
    _, out, _ = run(capsys, "ontology", str(vault), "--json", "--view", "diagnostics")
    assert json.loads(out) == [{"scope": "private", "active": True, "issues": []}]


@pytest.mark.parametrize(
    "argv",
    [
        ["scan", "/definitely/not/here"],
        ["records", "{tmp}", "--limit", "0"],
        ["show", "{vault}", "pg_nope"],
        ["scan"],
        ["frobnicate", "{vault}"],
        ["scan", "{tmp}"],
    ],
)
def test_usage_errors_exit_two_with_one_line(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path, argv: list[str]
) -> None:
    """Exit codes: bad usage or a path that is no vault gives 2 and one line, no traceback."""
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = [a.format(vault=vault, tmp=empty) for a in argv]
    if argv[:2] == ["records", str(empty)]:
        argv[1] = str(vault)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_the_console_script_runs_in_a_fresh_process(vault: Path) -> None:
    """The installed entry point works end to end (as a user or CI runs it)."""
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", "scan", str(vault), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == 4


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from knowledge_desktop.resources import demo_vault_path

    target = tmp_path_factory.mktemp("demo") / "vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


@pytest.mark.parametrize(
    "argv",
    [
        ["grep", "{v}", "last writer wins"],
        ["grep", "{v}", "field trial", "--mode", "phrase", "--kind", "claim"],
        [
            "grep",
            "{v}",
            "crdt",
            "--time-field",
            "occurred_at",
            "--since",
            "2026-10-01",
            "--until",
            "2026-10-31",
        ],
        ["lookup", "{v}", "Mira Castellanos", "--scope", "private"],
        ["timeline", "{v}", "--since", "2026-09-01", "--until", "2026-09-30"],
        ["timeline", "{v}", "--kind", "decision", "--order", "desc"],
        ["chronicle", "day", "{v}", "2026-10-05", "--week", "--tz", "Europe/Lisbon"],
        ["chronicle", "since", "{v}", "2026-10-01"],
    ],
)
def test_retrieval_commands_answer_on_the_demo_vault(
    capsys: pytest.CaptureFixture[str], demo: Path, argv: list[str]
) -> None:
    """CLI: grep, lookup, timeline and chronicle answer with JSON on the demo vault."""
    code, out, err = run(capsys, *[a.format(v=demo) for a in argv], "--json")
    assert code == 0, err
    data = json.loads(out)
    found = data.get("hits") or data.get("items") or data.get("record")
    assert found, data


def test_entity_views_on_the_demo_vault(capsys: pytest.CaptureFixture[str], demo: Path) -> None:
    """CLI: an entity's timeline, grouped by source, and its last-seen context."""
    _, out, _ = run(capsys, "lookup", str(demo), "Mira Castellanos", "--scope", "private", "--json")
    mira = json.loads(out)["record"]["id"]
    code, out, _ = run(capsys, "timeline", str(demo), "--entity", mira, "--json")
    assert code == 0
    assert json.loads(out)["items"]
    code, out, _ = run(capsys, "timeline", str(demo), "--entity", mira, "--group", "source", "--json")
    assert code == 0
    code, out, _ = run(capsys, "chronicle", "last-seen", str(demo), mira, "--json")
    assert code == 0
    assert len(json.loads(out)["items"]) == 1
