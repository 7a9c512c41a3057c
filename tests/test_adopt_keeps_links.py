"""Adopting the whole Obsidian test vault keeps every link where it went (issue 25 §5: "keeping
file names and paths so every Obsidian link keeps working"; docs/decisions.md, "Links beyond a
record's partition"). Adopt and undo run through the console script as a person runs them; what
each file links and is linked from is read as `show --json` gives it (`Vault.show`), before the
run, after it and after its undo."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from knowledge_desktop.engine.vault import Vault
from tests.test_cli_adopt_vault import knowledge

DATA = Path(__file__).parent / "data" / "obsidian-vault"

Link = tuple[str, str, str, str]
"""(source, link kind, the name linked, the file it goes to)."""


def checksums(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".knowledge" not in p.parts
    }


def graph_of(root: Path) -> tuple[set[Link], set[tuple[str, str]], int]:
    """Every link that reaches a file (a record's kinds: wikilinks, and Markdown links to
    `.md` files; embeds and images are no links of a record), every (file, linked from), and
    the number of `link-missing` diagnostics."""
    vault = Vault.open(root)
    try:
        vault.reconcile()
        paths = [p for (p,) in vault.store.reader().execute("SELECT path FROM catalog ORDER BY path")]
        links: set[Link] = set()
        backlinks: set[tuple[str, str]] = set()
        for path in paths:
            shown = vault.show(path)
            for ref in shown["references"]:
                target = ref["path"]
                if target is None or ref["status"] not in ("resolved", "ambiguous") or ref["embed"]:
                    continue
                if ref["kind"] == "markdown" and not target.endswith(".md"):
                    continue
                links.add((path, ref["kind"], ref["target"].split("#", 1)[0].strip(), target))
            backlinks |= {(path, b["path"]) for b in shown["backlinks"] if b.get("via", "link") == "link"}
        missing = sum(1 for d in vault.diagnostics() if d.code == "link-missing")
        return links, backlinks, missing
    finally:
        vault.close()


def moved_links(links: set[Link], moved: dict[str, str]) -> set[Link]:
    """The links as they must read once `moved` (old path -> new) is applied: each end at its
    new path; a Markdown link's path is rewritten by design, so only its file counts."""
    return {(moved.get(s, s), k, "" if k == "markdown" else n, moved.get(t, t)) for s, k, n, t in links}


def test_adopting_the_whole_vault_keeps_every_link_and_one_undo_restores_every_byte(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(DATA, root)
    before_links, before_backlinks, before_missing = graph_of(root)
    crossing = {(s, t) for s, _k, _n, t in before_links if s.split("/")[0] != t.split("/")[0] and "/" in s}
    assert ("journals/2024_01_16.md", "pages/Logseq Page.md") in crossing  # a folder into another
    assert ("Ideas/Garden.md", "Welcome.md") in crossing  # a folder to the root
    sums = checksums(root)

    code, dry = knowledge("adopt", str(root), "--dry-run", "--json")
    assert code == 0, dry
    assert dry["rootInto"] == "private"  # several folders of notes, none named: ARCHITECTURE.md's
    moved = {f["path"]: f["movedTo"] for f in dry["files"] if f.get("movedTo")}
    # Every root note that can be a record moves; the one whose YAML is broken stays a note.
    assert moved == {"Welcome.md": "private/Welcome.md", "2024-01-15.md": "private/2024-01-15.md"}
    assert "Broken Aliases.md" in {s["path"] for s in dry["skipped"] if s["code"] == "invalid-yaml"}
    assert {(r["path"], r["from"], r["to"]) for r in dry["linksRewritten"]} == {
        ("Welcome.md", "Work/Quarterly%20Report.md", "../Work/Quarterly%20Report.md"),
        ("Welcome.md", "attachments/chart%20one.png", "../attachments/chart%20one.png"),
        ("Welcome.md", "attachments/paper.pdf", "../attachments/paper.pdf"),
    }

    code, receipt = knowledge("adopt", str(root), "--json")
    assert code == 0, receipt
    adopted = {item["path"] for item in receipt["items"]}
    assert {"Ideas/Garden.md", "journals/2024_01_16.md", "Work/Meeting Notes.md"} <= adopted
    assert {"private/Welcome.md", "private/2024-01-15.md"} <= adopted
    assert not (root / "Welcome.md").exists()

    after_links, after_backlinks, after_missing = graph_of(root)
    assert moved_links(after_links, {}) == moved_links(before_links, moved)
    assert after_backlinks == {(moved.get(a, a), moved.get(b, b)) for a, b in before_backlinks}
    assert after_missing == before_missing  # nothing new is missing
    code, shown = knowledge("show", str(root), "private/Welcome.md", "--json")
    assert code == 0
    assert shown["kind"] == "page"
    reached = {(r["kind"], r["path"]) for r in shown["references"] if r["status"] == "resolved"}
    assert ("markdown", "Work/Quarterly Report.md") in reached  # by its rewritten path
    assert ("wiki", "Ideas/Garden.md") in reached
    code, garden = knowledge("show", str(root), "Ideas/Garden.md", "--json")
    (welcome,) = [r for r in garden["references"] if r["target"] == "Welcome"]
    assert (welcome["status"], welcome["path"]) == ("resolved", "private/Welcome.md")
    code, shown = knowledge("show", str(root), "journals/2024_01_16.md", "--json")
    assert code == 0
    assert shown["kind"] == "page"
    (reference,) = [r for r in shown["references"] if r["target"] == "Logseq Page"]
    assert (reference["status"], reference["path"], reference["crossPartition"]) == (
        "resolved",
        "pages/Logseq Page.md",
        True,
    )

    code, undone = knowledge("undo", str(root), str(receipt["journalId"]), "--json")
    assert code == 0, undone
    assert checksums(root) == sums
