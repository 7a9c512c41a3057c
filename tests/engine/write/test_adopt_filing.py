"""Adopt's choices (issue 29, §5): a type per note, a note filed in its type's folder (a move,
journaled, links kept, undone with the run), or kept in place without a `misfiled` warning."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.write import adoption
from tests.vaultkit import VaultKit, frontmatter_of, write_context


def checksums(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.md"))
        if ".knowledge" not in p.parts
    }


def notes_vault(tmp_path: Path) -> VaultKit:
    kit = VaultKit(tmp_path / "v")
    kit.write("private/Ada.md", "# Ada Lovelace\n\nWrote the first program.\n")
    kit.write("private/Index.md", "# Index\n\nSee [[Ada]] and [[Ada|her]].\n")
    kit.write("private/journal/Monday.md", "# Monday\n\nMet [[ada]].\n")
    return kit


def test_a_note_takes_the_type_given_for_its_own_file(tmp_path: Path) -> None:
    kit = notes_vault(tmp_path)
    vault = kit.scan()
    dry = adoption.dry_run(write_context(vault, "adopt"), type_map={"Ada.md": "person", "journal": "event"})
    types = {f["path"]: f["type"] for f in dry["files"]}
    assert types == {
        "private/Ada.md": "person",
        "private/Index.md": "note",
        "private/journal/Monday.md": "event",
    }


def test_a_note_kept_in_place_is_not_flagged_misfiled(tmp_path: Path) -> None:
    kit = notes_vault(tmp_path)
    vault = kit.scan()
    receipt = adoption.adopt(vault.write, type_map={"Ada.md": "person"})
    assert receipt["operation"] == "adopt"
    assert frontmatter_of((kit.root / "private/Ada.md").read_bytes())["filing"] == "in-place"
    assert "misfiled" not in kit.codes()
    # the mark is what keeps the warning away: the same record without it is misfiled
    text = (kit.root / "private/Ada.md").read_text().replace("filing: in-place\n", "")
    kit.write("private/Ada.md", text)
    assert "misfiled" in kit.codes("private/Ada.md")


def test_a_note_filed_in_its_type_folder_moves_keeps_its_links_and_undo_moves_it_back(
    tmp_path: Path,
) -> None:
    kit = notes_vault(tmp_path)
    before = checksums(kit.root)
    vault = kit.scan()
    dry = adoption.dry_run(
        write_context(vault, "adopt"), type_map={"Ada.md": "person"}, move={"private/Ada.md"}
    )
    ada = next(f for f in dry["files"] if f["path"] == "private/Ada.md")
    assert ada["movedTo"] == "private/people/Ada.md"
    assert ada["moveBlocked"] is None
    assert checksums(kit.root) == before  # the dry run moved nothing
    receipt = adoption.adopt(
        vault.write,
        type_map={"Ada.md": "person"},
        move={"private/Ada.md"},
        expect=adoption.expected_from(dry),
    )
    assert not (kit.root / "private/Ada.md").exists()
    moved = frontmatter_of((kit.root / "private/people/Ada.md").read_bytes())
    assert (moved["id"], moved["type"]) == (ada["id"], "person")
    assert "filing" not in moved
    assert "Ada" in moved["aliases"]  # [[Ada]] reached it by its old path; now by alias
    codes = kit.codes()
    assert not codes & {"link-missing", "misfiled", "duplicate-id"}
    linked = {row["path"] for row in vault.backlinks("private/people/Ada.md")["linked"]}
    assert linked == {"private/Index.md", "private/journal/Monday.md"}
    adoption.undo(vault.write, receipt["journalId"])
    assert checksums(kit.root) == before
    assert not (kit.root / "private/people").exists() or not any((kit.root / "private/people").iterdir())


def test_a_note_linked_by_its_path_stays_in_place_and_says_why(tmp_path: Path) -> None:
    kit = notes_vault(tmp_path)
    kit.write("private/journal/Tuesday.md", "Back to [[journal/Monday]].\n")
    vault = kit.scan()
    dry = adoption.dry_run(
        write_context(vault, "adopt"),
        type_map={"journal": "event"},
        move={"private/journal/Monday.md", "private/journal/Tuesday.md"},
    )
    by_path = {f["path"]: f for f in dry["files"]}
    assert by_path["private/journal/Monday.md"]["movedTo"] is None
    assert "journal/Monday" in by_path["private/journal/Monday.md"]["moveBlocked"]
    assert by_path["private/journal/Monday.md"]["filing"] == "in-place"
    assert by_path["private/journal/Tuesday.md"]["movedTo"] == "private/events/Tuesday.md"


def test_the_cli_files_a_note_given_with_move_and_types_a_note_by_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit = notes_vault(tmp_path)
    kit.scan()
    kit.close()
    argv = [str(kit.root), "--type", "Ada.md=person", "--move", "private/Ada.md", "--json"]
    assert main(["adopt", *argv, "--dry-run"]) == 0
    dry = json.loads(capsys.readouterr().out)
    assert {f["path"]: f["movedTo"] for f in dry["files"]}["private/Ada.md"] == "private/people/Ada.md"
    assert main(["adopt", *argv]) == 0
    capsys.readouterr()
    assert frontmatter_of((kit.root / "private/people/Ada.md").read_bytes())["type"] == "person"
