"""`knowledge adopt VAULT` without `--partition` adopts the whole vault in one run (issue 25, §5;
docs/writing.md, "Adopting notes: the whole vault"), through the console script in a fresh
process as a person runs it: the dry run lists every partition's notes and says what it leaves
(links into another partition), moves the notes at the vault root into a partition (docs/decisions.md,
"Notes at the vault root move into one partition"), the real run writes the rest in place under
their own paths, their links within a partition resolve, `--partition` and `--type` still
narrow and type the run, and one `knowledge undo` restores every byte."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.vaultkit import VaultKit, frontmatter_of

NOTES = {
    "Home.md": "# Home\n\nStart at [[Reading list]].\n",
    "private/Reading list.md": "Read [[Ada]], [[people/Ada|her notes]] and ![[Plan#Goals]].\n",
    "private/people/Ada.md": "---\naliases: [Countess]\ntags: person\n---\nAda. #maths\n",
    "private/projects/Plan.md": "# Plan\n\n## Goals\n\nAsk [[Countess]]; see [[Log]].\n",
    "work/Log.md": "The log. Back to [[Reading list]].\n",
    "work/meetings/2026-01-05.md": "Met about [[Log]] and [[meetings/2026-01-05]].\n",
}


def knowledge(*argv: str) -> tuple[int, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    out = done.stdout.strip()
    return done.returncode, (json.loads(out) if out.startswith(("{", "[")) else out)


def checksums(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.md"))
        if ".knowledge" not in p.parts
    }


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    for rel, text in NOTES.items():
        kit.write(rel, text)
    kit.page("private/notes/kept.md", "pg_kept", "Kept")  # a record: left as it is
    kit.write(".obsidian/templates/daily.md", "# {{date}}\n")  # Obsidian's own: never adopted
    return kit.root


def test_a_dry_run_proposes_every_partitions_notes_and_says_what_it_leaves(vault: Path) -> None:
    before = checksums(vault)
    code, dry = knowledge("adopt", str(vault), "--dry-run", "--json")
    assert code == 0, dry
    assert checksums(vault) == before
    assert dry["partition"] is None
    assert dry["partitions"] == ["private", "work"]
    assert {(f["path"], f["partition"]) for f in dry["files"]} == {
        ("Home.md", "private"),
        ("private/Reading list.md", "private"),
        ("private/people/Ada.md", "private"),
        ("private/projects/Plan.md", "private"),
        ("work/Log.md", "work"),
        ("work/meetings/2026-01-05.md", "work"),
    }
    assert dry["skipped"] == []
    assert dry["rootInto"] == "private"
    assert {f["path"]: f["movedTo"] for f in dry["files"]}["Home.md"] == "private/Home.md"
    assert sorted((c["path"], c["resolvesTo"]) for c in dry["crossPartitionLinks"]) == [
        ("private/projects/Plan.md", "work/Log.md"),
        ("work/Log.md", "private/Reading list.md"),
    ]
    code, human = knowledge("adopt", str(vault), "--dry-run")
    assert code == 0
    assert human.startswith(
        "would adopt 6 note(s) in the whole vault: (notes at the vault root move into private/)"
    )
    assert "-> private/Home.md" in human


def test_the_whole_vault_is_adopted_in_place_and_one_undo_restores_every_byte(vault: Path) -> None:
    before = checksums(vault)
    code, receipt = knowledge("adopt", str(vault), "--json")
    assert code == 0, receipt
    written = sorted(item["path"] for item in receipt["items"])
    assert written == sorted([*NOTES, "private/Home.md"])  # Home.md: deleted, and created there
    # every file where it was, nothing added, but the root's note, now in a partition
    assert set(checksums(vault)) == set(before) - {"Home.md"} | {"private/Home.md"}
    written.remove("Home.md")
    for rel in written:
        fm = frontmatter_of((vault / rel).read_bytes())
        assert fm["scope"] == rel.split("/", 1)[0]
        assert fm["kind"] == "page"
    assert frontmatter_of((vault / "private/people/Ada.md").read_bytes())["aliases"] == ["Countess"]
    code, diagnostics = knowledge("diagnostics", str(vault), "--json")
    assert code == 0
    unresolved = sorted(
        (d["path"], d["message"]) for d in diagnostics["items"] if d["code"].startswith("link-")
    )
    # Every link form still reaches its note, within a partition and into another one (the
    # two links the dry run named: docs/decisions.md, "Links beyond a record's partition").
    assert unresolved == []
    code, undone = knowledge("undo", str(vault), str(receipt["journalId"]), "--json")
    assert code == 0, undone
    assert checksums(vault) == before


def test_partition_and_type_narrow_the_run(vault: Path) -> None:
    code, dry = knowledge(
        "adopt",
        str(vault),
        "--partition",
        "private",
        "--type",
        "people=person",
        "--dry-run",
        "--json",
    )
    assert code == 0, dry
    assert dry["partitions"] == ["private"]
    assert {f["path"] for f in dry["files"]} == {p for p in NOTES if p.startswith("private/")}
    assert dry["skipped"] == []  # the root is the whole vault's, not this partition's
    code, dry = knowledge("adopt", str(vault), "--type", "work/meetings=meeting", "--dry-run", "--json")
    types = {f["path"]: f["type"] for f in dry["files"]}
    assert types["work/meetings/2026-01-05.md"] == "meeting"
    assert types["work/Log.md"] == "note"
    assert types["private/people/Ada.md"] == "person"  # the ontology's `people/`


def test_a_partition_run_leaves_the_root_and_refuses_root_into(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "private").mkdir(parents=True)
    (root / "private" / "ontology.yaml").write_text(
        "format: knowledge-ontology-v1\nname: x\nversion: 1.0.0\n"
    )
    (root / "Home.md").write_text("# Home\n")
    code, out = knowledge("adopt", str(root), "--partition", "private", "--json")
    assert code == 4
    assert out["error"]["code"] == "nothing-to-adopt"
    code, out = knowledge("adopt", str(root), "--partition", "private", "--root-into", "private", "--json")
    assert (code, out["error"]["code"]) == (4, "root-into-partition")
    code, out = knowledge("adopt", str(root), "--root-into", "../up", "--dry-run", "--json")
    assert (code, out["error"]["code"]) == (4, "root-into-invalid")
    code, out = knowledge("adopt", str(root), "--json")  # the whole vault: Home.md moves in
    assert code == 0, out
    assert (root / "private" / "Home.md").is_file()
    assert not (root / "Home.md").exists()
