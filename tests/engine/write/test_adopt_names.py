"""Adopting gives no title or alias that would take a link away from the file it reaches now
(docs/decisions.md, "Adopting keeps every link's target"): a record's `[[Name]]` looks among its
partition's titles and aliases first, so a name the partition's links use for a file in another
folder stays free, and a note that would bring such a name itself is left a note."""

from __future__ import annotations

from knowledge_desktop.engine.write import adoption
from tests.vaultkit import VaultKit, write_context


def test_no_title_or_alias_takes_a_link_to_another_folder(kit: VaultKit) -> None:
    kit.write("a/Goal.md", "The goal.\n")
    kit.write("c/Linker.md", "Towards [[Goal]].\n")
    kit.write("c/Heading.md", "# Goal\n\nA heading named like the file the links reach.\n")
    kit.write("e/Linker.md", "Also towards [[Goal]].\n")
    kit.write("e/Own alias.md", "---\naliases: [Goal]\n---\nIts own alias is that name.\n")
    kit.write("d/Page.md", "alias:: [[Elsewhere]]\n\n- a Logseq page\n")
    vault = kit.scan()

    dry = adoption.dry_run(write_context(vault, "adopt"))
    files = {f["path"]: f for f in dry["files"]}
    assert (files["c/Heading.md"]["title"], files["c/Heading.md"]["titleFrom"]) == ("Heading", "file name")
    skipped = {s["path"]: s["code"] for s in dry["skipped"]}
    assert skipped == {"e/Own alias.md": "name-taken", "d/Page.md": "property-links"}

    adoption.adopt(vault.write, expect=adoption.expected_from(dry))
    vault = kit.scan()
    for linker in ("c/Linker.md", "e/Linker.md"):
        (reference,) = vault.show(linker)["references"]
        assert (reference["status"], reference["path"]) == ("resolved", "a/Goal.md")
