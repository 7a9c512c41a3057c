"""An Obsidian-style vault end to end (issue 25 §1, §2, §4, §6): `knowledge notes`, `show`
and `diagnostics` in fresh processes, and the Vault API, on tests/data/obsidian-vault."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine.vault import Vault

DATA = Path(__file__).parent / "data" / "obsidian-vault"
NOTES = 12
"""Markdown files of the test vault that are notes (all but the one record)."""


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("obsidian") / "vault"
    shutil.copytree(DATA, root)
    return root


def knowledge(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def as_json(*argv: str) -> Any:
    code, out, err = knowledge(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_notes_lists_every_note_with_its_metadata_and_counts(vault: Path) -> None:
    found = as_json("notes", str(vault))
    assert found["total"] == NOTES
    by_path = {item["path"]: item for item in found["items"]}
    assert "Work/projects/apollo.md" not in by_path  # a record is no note
    garden = by_path["Ideas/Garden.md"]
    assert garden["title"] == "Garden"
    assert garden["aliases"] == ["Yard", "Backyard"]
    assert garden["tags"] == ["garden", "outdoors/green"]
    assert garden["date"] == "2023-04-02"
    assert garden["backlinks"] == 3  # Welcome's lines 6, 7 and 8
    assert garden["links"] == 1
    welcome = by_path["Welcome.md"]
    assert welcome["tags"] == ["welcome", "status/active"]
    assert welcome["links"] == 15
    assert by_path["2024-01-15.md"]["date"] == "2024-01-15"
    assert by_path["journals/2024_01_16.md"]["date"] == "2024-01-16"
    assert by_path["pages/Logseq Page.md"]["aliases"] == ["LP", "Logseq Alias"]
    assert len(by_path["Work/Meeting Notes.md"]["hash"]) == 64
    assert set(garden) == {"path", "title", "aliases", "tags", "links", "backlinks", "date", "hash"}


def test_notes_filters_and_pages_and_prints_one_line_a_note(vault: Path) -> None:
    tagged = as_json("notes", str(vault), "--tag", "outdoors")
    assert [item["path"] for item in tagged["items"]] == ["Ideas/Garden.md"]
    work = as_json("notes", str(vault), "--folder", "Work", "--limit", "1", "--offset", "1")
    assert work["total"] == 3
    assert [item["path"] for item in work["items"]] == ["Work/Quarterly Report.md"]
    root = as_json("notes", str(vault), "--folder", "/")
    assert [item["path"] for item in root["items"]] == ["2024-01-15.md", "Broken Aliases.md", "Welcome.md"]
    code, out, _ = knowledge("notes", str(vault), "--folder", "Ideas")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Ideas/Garden.md  2023-04-02  #garden #outdoors/green  1 links, 3 backlinks"
    assert lines[-1] == "3 notes"
    code, _, err = knowledge("notes", str(vault), "--limit", "0")
    assert code == 2
    assert "limit" in err


def test_show_resolves_every_obsidian_link_form(vault: Path) -> None:
    shown = as_json("show", str(vault), "Welcome.md")
    assert (shown["kind"], shown["status"], shown["id"], shown["title"]) == ("note", "note", None, "Welcome")
    assert shown["frontmatter"] == {}
    assert shown["body"].startswith("# Welcome")
    refs = [(r["target"], r["status"], r["path"], r["line"], r["embed"]) for r in shown["references"]]
    assert refs == [
        ("Meeting Notes", "resolved", "Work/Meeting Notes.md", 5, False),
        ("Ideas/Garden", "resolved", "Ideas/Garden.md", 6, False),
        ("Garden", "resolved", "Ideas/Garden.md", 6, False),
        ("Garden#Planting", "resolved", "Ideas/Garden.md", 7, False),
        ("Garden#^seed-list", "resolved", "Ideas/Garden.md", 7, False),
        ("Recipe", "resolved", "Ideas/Recipe.md", 8, True),
        ("Garden#Planting", "resolved", "Ideas/Garden.md", 8, True),
        ("diagram.png", "resolved", "attachments/diagram.png", 9, True),
        ("attachments/chart one.png", "resolved", "attachments/chart one.png", 9, True),
        ("Work/Quarterly Report.md", "resolved", "Work/Quarterly Report.md", 10, False),
        ("attachments/paper.pdf", "resolved", "attachments/paper.pdf", 10, False),
        ("a.b.c", "resolved", "Archive/a.b.c.md", 11, False),
        ("Apollo Launch", "resolved", "Work/projects/apollo.md", 12, False),
        ("Todo", "ambiguous", "Work/Todo.md", 13, False),
        ("Nowhere", "missing", None, 14, False),
    ]
    assert shown["references"][12]["id"] == "pg_apollo"


def test_show_of_a_note_and_of_the_record_lists_backlinks_both_ways(vault: Path) -> None:
    garden = as_json("show", str(vault), "Ideas/Garden.md")
    assert garden["frontmatter"]["aliases"] == ["Yard", "Backyard"]
    assert garden["headings"] == ["Garden", "Planting"]
    assert garden["blockIds"] == ["seed-list"]
    assert [(b["path"], b["id"], b["line"], b["via"]) for b in garden["backlinks"]] == [
        ("Welcome.md", None, 6, "link"),
        ("Welcome.md", None, 7, "link"),
        ("Welcome.md", None, 8, "embed"),
    ]
    record = as_json("show", str(vault), "Work/projects/apollo.md")
    assert record["status"] == "record"
    assert [(r["target"], r["status"], r["path"]) for r in record["references"]] == [
        ("Meeting Notes", "resolved", "Work/Meeting Notes.md")
    ]
    assert {(b["path"], b["line"]) for b in record["backlinks"]} == {
        ("2024-01-15.md", 1),
        ("Welcome.md", 12),
        ("Work/Meeting Notes.md", 7),
    }
    meeting = as_json("show", str(vault), "Work/Meeting Notes.md")
    assert ("Work/projects/apollo.md", "pg_apollo", 14, "link") in {
        (b["path"], b["id"], b["line"], b["via"]) for b in meeting["backlinks"]
    }


def test_diagnostics_show_only_the_real_problems(vault: Path) -> None:
    found = as_json("diagnostics", str(vault))
    items = found["items"]
    serious = sorted(
        (d["severity"], d["code"], d["path"], d["line"]) for d in items if d["severity"] != "info"
    )
    assert serious == [
        ("error", "yaml-syntax", "Broken Aliases.md", 2),
        ("warning", "link-ambiguous", "Welcome.md", 13),
        ("warning", "link-missing", "Welcome.md", 14),
    ]
    assert not [d for d in items if d["severity"] == "info"]  # the notes are one group, not rows
    (group,) = found["groups"]
    assert (group["code"], group["severity"], group["count"]) == ("plain-note", "info", NOTES)
    assert len(set(group["paths"])) == NOTES


def test_the_api_follows_an_edit_a_rename_and_a_delete(tmp_path: Path) -> None:
    """Through the Vault facade: a new note of a missing name resolves the link, deleting
    one of two same-named notes ends the ambiguity, and backlinks follow."""
    root = tmp_path / "vault"
    shutil.copytree(DATA, root)
    vault = Vault.open(root)
    try:
        vault.reconcile()
        assert (vault.counts()["notes"], vault.counts()["records"]) == (NOTES, 1)
        assert vault.notes(tag="cooking")["items"][0]["path"] == "Ideas/Recipe.md"
        garden = vault.backlinks("Ideas/Garden.md")["linked"]
        assert [(e["path"], [(ln["line"], ln["linkKind"]) for ln in e["lines"]]) for e in garden] == [
            ("Welcome.md", [(6, "wiki"), (7, "wiki"), (8, "embed")])
        ]
        assert garden[0]["lines"][0]["context"] == "By folder path: Garden, shown text: my garden"
        apollo = vault.backlinks("pg_apollo")["linked"]
        assert {e["path"] for e in apollo} == {"2024-01-15.md", "Welcome.md", "Work/Meeting Notes.md"}
        (root / "Ideas" / "Nowhere.md").write_text("Found it.\n")
        (root / "Work" / "Todo.md").unlink()
        vault.reconcile()
        refs = {r["target"]: (r["status"], r["path"]) for r in vault.show("Welcome.md")["references"]}
        assert refs["Nowhere"] == ("resolved", "Ideas/Nowhere.md")
        assert refs["Todo"] == ("resolved", "Ideas/Todo.md")
        assert vault.notes(folder="Ideas")["items"][1]["backlinks"] == 1  # Nowhere.md
        codes = {d.code for d in vault.diagnostics() if d.path == "Welcome.md"}
        assert codes == {"plain-note"}
    finally:
        vault.close()
