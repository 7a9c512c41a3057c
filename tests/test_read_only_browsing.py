"""Browsing writes nothing: every read-only `knowledge` command leaves each vault file's
bytes and mtime as they were, and adds no file outside `.knowledge/` (issue 13 §3).

Markdown is authoritative (ARCHITECTURE.md, Vault layout on disk): the only files the
app may create while reading are its own state under `.knowledge/`. Checked on a copy of
the bundled demo vault and on the hostile vault of `tests/vaultkit.py`; the window's
counterpart is `tests/ui/test_read_only_window.py`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.resources import demo_vault_path
from tests.vaultkit import HOSTILE_NOTE, VaultKit, file_state, hostile_vault

DEMO_ENTITY = "pg_01KT13TQ40VBJ1VN"  # Mira Castellanos


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in (0, 3), (argv, err)  # 3: --fail-on found something
    return out


def browse(capsys: pytest.CaptureFixture[str], vault: Path, reports: Path, entity: str) -> int:
    """Every read-only command on `vault`, reports written to `reports`; how many ran."""
    v = str(vault)
    listed = json.loads(cli(capsys, "records", v, "--include-ineligible", "--limit", "1000", "--json"))
    diagnosed = json.loads(cli(capsys, "diagnostics", v, "--json"))["items"]
    paths = {i["path"] for i in listed["items"]} | {d["path"] for d in diagnosed}
    commands: list[list[str]] = [
        ["scan", v],
        ["scan", v, "--index-text", "--json"],
        ["records", v],
        ["records", v, "--kind", "claim", "--lifecycle", "all", "--json"],
        ["grep", v, "the", "--json"],
        ["grep", v, "field trial sync", "--mode", "any", "--json"],
        ["grep", v, "script", "--mode", "phrase"],
        ["lookup", v, "Ada Lovelace", "--json"],
        ["lookup", v, "Mira Castellanos"],
        ["timeline", v, "--json"],
        ["timeline", v, "--entity", entity, "--include-sources", "--json"],
        ["timeline", v, "--entity", entity, "--group", "source"],
        ["chronicle", "day", v, "2026-10-05", "--week", "--json"],
        ["chronicle", "since", v, "2026-01-01"],
        ["chronicle", "last-seen", v, entity, "--json"],
        ["diagnostics", v],
        ["diagnostics", v, "--fail-on", "warning"],
        ["ontology", v],
        ["ontology", v, "--view", "sources", "--json"],
        ["ontology", v, "--view", "diagnostics"],
    ]
    commands += [
        ["diagnostics", v, "--format", f, "-o", str(reports / f"r.{f}")]
        for f in ("html", "json", "csv", "md")
    ]
    commands += [["show", v, path, "--json"] for path in sorted(paths) if path.endswith(".md")]
    for argv in commands:
        cli(capsys, *argv)
    return len(commands)


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    target = tmp_path / "demo-vault"
    shutil.copytree(demo_vault_path(), target, ignore=shutil.ignore_patterns(".knowledge"))
    return target


def test_browsing_the_demo_vault_from_the_cli_writes_nothing(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Browsing: scan, records, show (each file), grep, lookup, timeline, chronicle,
    diagnostics (and every export, to a folder outside) and ontology change no byte and
    no mtime of the demo vault's files and folders, and create nothing but `.knowledge/`."""
    before = file_state(demo_copy)
    ran = browse(capsys, demo_copy, tmp_path, DEMO_ENTITY)
    assert ran > 60  # every file was shown
    assert file_state(demo_copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "demo-vault",
        *(f"r.{f}" for f in ("csv", "html", "json", "md")),
    ]


def test_browsing_a_hostile_vault_from_the_cli_writes_nothing(
    kit: VaultKit, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Browsing: the same commands on a vault of links, evidence and manifests that point
    outside it, markup in names and YAML tags leave the vault, and the folder outside it,
    exactly as they were."""
    hostile = hostile_vault(kit, tmp_path / "outside")
    reports = tmp_path / "reports"
    reports.mkdir()
    before, outside = file_state(kit.root), file_state(hostile.outside)
    browse(capsys, kit.root, reports, "pg_ada")
    assert file_state(kit.root) == before
    assert file_state(hostile.outside) == outside
    assert HOSTILE_NOTE in before
