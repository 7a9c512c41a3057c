"""Adopting plain notes (issue 14, §4, beyond the spec): an Obsidian-style folder becomes valid
page records in place, with its links reaching the same notes, in one undoable journaled write.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import adoption
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import NoteLink, VaultKit, frontmatter_of, obsidian_notes, write_context


def checksums(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.md"))
        if ".knowledge" not in p.parts
    }


def obsidian_reference(base: Path) -> Callable[[str, str], str | None]:
    """Obsidian's rule, written independently here: the target as a path from the folder's
    root; else a file name, ignoring case (the linking note's folder first, then the one
    nearest the root); else a frontmatter alias."""
    files = sorted(str(p.relative_to(base)) for p in base.rglob("*.md"))
    aliases: dict[str, str] = {}
    for f in files:
        data = (base / f).read_bytes()
        for alias in (frontmatter_of(data).get("aliases") or []) if data.startswith(b"---") else []:
            aliases.setdefault(str(alias).lower(), f)

    by_path = {f[:-3].lower(): f for f in files}
    by_name: dict[str, list[str]] = {}
    for f in files:
        by_name.setdefault(posixpath.basename(f)[:-3].lower(), []).append(f)

    def resolve(text: str, source: str) -> str | None:
        key = text.lower()
        if key in by_path:
            return by_path[key]
        named = by_name.get(key, [])
        if named:
            here = [f for f in named if posixpath.dirname(f) == posixpath.dirname(source)]
            return (here or sorted(named, key=lambda f: (f.count("/"), f)))[0]
        return aliases.get(key)

    return resolve


Adopted = tuple[VaultKit, list[NoteLink], dict[str, Any], dict[str, Any], dict[str, Any]]


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Adopted:
    kit = VaultKit(tmp_path_factory.mktemp("notes") / "vault")
    links = obsidian_notes(kit.root / "private", 1000)
    reference = obsidian_reference(kit.root / "private")
    references = {(link.source, link.target_text): reference(link.target_text, link.source) for link in links}
    before = checksums(kit.root)
    vault = kit.scan()
    dry = adoption.dry_run(write_context(vault, "adopt"))
    after_dry = checksums(kit.root)
    receipt = adoption.adopt(vault.write, expect=adoption.expected_from(dry), actor="ada")
    return (
        kit,
        links,
        {"before": before, "afterDry": after_dry},
        dry,
        {"receipt": receipt, "refs": references},
    )


def test_the_reference_resolver_agrees_with_what_the_generator_meant(adopted: Adopted) -> None:
    """Each generated link means the note Obsidian opens for it."""
    _kit, links, _sums, _dry, out = adopted
    for link in links:
        assert out["refs"][(link.source, link.target_text)] == link.meant, link


def test_a_dry_run_writes_nothing_and_lists_every_note_with_its_hash(adopted: Adopted) -> None:
    _kit, _links, sums, dry, _out = adopted
    assert sums["afterDry"] == sums["before"]
    assert len(dry["files"]) == 1000
    assert dry["skipped"] == []
    assert all(len(f["sha256"]) == 64 and f["id"].startswith("pg_") for f in dry["files"])


def test_every_adopted_note_is_a_valid_page_record_with_no_error(adopted: Adopted) -> None:
    kit, _links, _sums, dry, out = adopted
    vault = kit.scan()
    assert len(out["receipt"]["items"]) == 1000
    assert [i["id"] for i in out["receipt"]["items"]] == [f["id"] for f in dry["files"]]
    errors = [
        d for d in vault.diagnostics() if d.severity is dg.Severity.ERROR and d.path.startswith("private/")
    ]
    assert errors == []
    rows = vault.records(limit=1000)
    assert rows["total"] == 1000


def test_each_link_reaches_the_note_obsidian_opens(adopted: Adopted) -> None:
    """File name, path, alias, heading fragment, embed and labelled links, with spaces and
    punctuation: our resolver ends at the same note as Obsidian's rule (embeds through the
    same resolver, as the links projection leaves them out)."""
    kit, links, _sums, _dry, _out = adopted
    vault = kit.scan()
    graph = vault.reconciler.graph()
    projected = {
        (src, text): (status, target)
        for src, text, status, target in vault.store.reader().execute(
            "SELECT src_path, target_text, status, target_path FROM links"
        )
    }
    wrong = []
    for link in links:
        node = graph.nodes[f"private/{link.source}"]
        resolved = graph.resolve_link(node, RawLink("wiki", link.target_text, None, 0), set())
        if (resolved.status, resolved.target_path) != ("resolved", f"private/{link.meant}"):
            wrong.append((link, resolved.status, resolved.target_path))
        if not link.embed:
            assert projected[(f"private/{link.source}", link.target_text)] == (
                "resolved",
                f"private/{link.meant}",
            )
    assert wrong == []


def test_other_frontmatter_keys_and_the_body_keep_their_bytes(adopted: Adopted) -> None:
    kit, _links, _sums, _dry, _out = adopted
    text = (kit.root / "private/Projects/Sub Folder/Café notes 2.md").read_text()
    assert "tags: [project, 'area/writing']   # from Obsidian" not in text  # tags gained inline ones
    folder_note = (kit.root / "private/Idea! 5.md").read_text()
    assert folder_note.endswith("\n```\n[[Not A Link]] #not-a-tag\n```\n")
    kept = (kit.root / "private/topics (misc)/Idea! 19.md").read_text()
    assert "created: 2024-03-01\ncssclass: wide  # keep me\nratings: {stars: 4}\n" in kept


def test_undo_restores_every_byte_and_a_second_undo_is_refused(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    obsidian_notes(kit.root / "private", 60)
    before = checksums(kit.root)
    vault = kit.scan()
    receipt = adoption.adopt(vault.write)
    assert checksums(kit.root) != before
    undone = adoption.undo(vault.write, receipt["journalId"])
    assert undone["operation"] == "undo"
    assert checksums(kit.root) == before
    with pytest.raises(WriteRejected) as caught:
        adoption.undo(vault.write, receipt["journalId"])
    assert caught.value.code == "already-undone"


def test_undo_refuses_when_an_adopted_file_was_edited_since(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    obsidian_notes(kit.root / "private", 20)
    vault = kit.scan()
    receipt = adoption.adopt(vault.write)
    edited = kit.root / receipt["items"][3]["path"]
    edited.write_text(edited.read_text() + "\nan edit after adopting\n")
    sums = checksums(kit.root)
    with pytest.raises(WriteRejected) as caught:
        adoption.undo(vault.write, receipt["journalId"])
    assert caught.value.code == "fence-hash"
    assert checksums(kit.root) == sums


def test_a_file_changed_after_the_dry_run_refuses_the_whole_run(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    obsidian_notes(kit.root / "private", 20)
    vault = kit.scan()
    dry = adoption.dry_run(write_context(vault, "adopt"))
    changed = kit.root / dry["files"][5]["path"]
    changed.write_text(changed.read_text() + "\nlater\n")
    sums = checksums(kit.root)
    with pytest.raises(WriteRejected) as caught:
        adoption.adopt(vault.write, expect=adoption.expected_from(dry))
    assert caught.value.code == "changed-since-dry-run"
    assert [f["path"] for f in caught.value.current["files"]] == [dry["files"][5]["path"]]
    assert checksums(kit.root) == sums


def test_title_aliases_tags_and_type_come_from_the_note(tmp_path: Path) -> None:
    """First heading, else the file name; Obsidian aliases and tags (list or string, `alias`,
    `tag`, inline `#tags` outside code); the type from the folder (the ontology's directory or
    --type), else note; a file name a link uses becomes an alias."""
    kit = VaultKit(tmp_path / "v")
    kit.write("private/people/ada.md", "# Ada Lovelace\n\nLikes #math, not `#code`.\n")
    kit.write("private/misc/plain note.md", "no heading; see [[ada]]\n")
    kit.write(
        "private/projects-x/proj.md",
        "---\nalias: Engine\ntags: 'one, #two'\nx-keep: [1,  2]  # kept\n---\n# The Engine\n",
    )
    vault = kit.scan()
    adoption.adopt(vault.write, type_map={"projects-x": "project"})
    ada = frontmatter_of((kit.root / "private/people/ada.md").read_bytes())
    assert (ada["title"], ada["type"], ada["tags"], ada["aliases"]) == (
        "Ada Lovelace",
        "person",
        ["math"],
        ["ada"],
    )
    plain = frontmatter_of((kit.root / "private/misc/plain note.md").read_bytes())
    assert (plain["title"], plain["type"]) == ("plain note", "note")
    proj_text = (kit.root / "private/projects-x/proj.md").read_text()
    proj = frontmatter_of(proj_text.encode())
    assert (proj["title"], proj["type"], proj["aliases"], proj["tags"]) == (
        "The Engine",
        "project",
        ["Engine"],
        ["one", "two"],
    )
    assert "alias: Engine\n" in proj_text
    assert "x-keep: [1,  2]  # kept\n" in proj_text
    assert proj_text.endswith("---\n# The Engine\n")


def test_notes_that_cannot_be_adopted_are_listed_with_a_reason_and_left_alone(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    kit.write("private/good.md", "# Good\n")
    kit.write("private/yaml.md", "---\nbad: [\n---\nbody\n")
    kit.write("private/binary.md", b"a\x00b")
    kit.write("private/latin.md", "caf\xe9\n".encode("latin-1"))
    kit.write("private/owned.md", "---\nid: 2024-01-01\n---\nzk note\n")
    kit.write("private/lone-cr.md", b"---\r\nx: 1\r---\rbody\r")
    vault = kit.scan()
    sums = checksums(kit.root)
    receipt = adoption.adopt(vault.write)
    reasons = {s["path"]: s["code"] for s in receipt["skipped"]}
    assert reasons == {
        "private/yaml.md": "invalid-yaml",
        "private/binary.md": "file-binary",
        "private/latin.md": "file-not-utf8",
        "private/owned.md": "reserved-key",
        "private/lone-cr.md": "line-ends-cr",
    }
    assert all(s["reason"] for s in receipt["skipped"])
    after = checksums(kit.root)
    assert {k: v for k, v in after.items() if k != "private/good.md"} == {
        k: v for k, v in sums.items() if k != "private/good.md"
    }
    assert [i["path"] for i in receipt["items"]] == ["private/good.md"]


def test_a_vault_with_nothing_to_adopt_is_refused(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    vault: Vault = kit.scan()
    with pytest.raises(WriteRejected) as caught:
        adoption.adopt(vault.write)
    assert caught.value.code == "nothing-to-adopt"


def test_aliases_written_as_one_string_become_a_list(tmp_path: Path) -> None:
    """Obsidian takes `aliases: Ada` (one string) as well as a list; a record needs a list, so
    the note's string is rewritten as one (it was kept, and the note skipped as an invalid
    record — found by bench/generate_vault.py --notes)."""
    kit = VaultKit(tmp_path / "v")
    kit.write("private/people/ada.md", "---\naliases: Countess\ntags: person\n---\nAda.\n")
    vault = kit.scan()
    receipt = adoption.adopt(vault.write)
    assert receipt["skipped"] == []
    ada = frontmatter_of((kit.root / "private/people/ada.md").read_bytes())
    assert (ada["aliases"], ada["tags"]) == (["Countess"], ["person"])
    assert not [d for d in vault.diagnostics() if d.severity == dg.Severity.ERROR]
