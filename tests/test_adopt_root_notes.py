"""Notes at the vault root are adopted by moving them into one partition, their links kept
(issue 25 §5: "every note in every folder (root included)"; docs/decisions.md, "Notes at the
vault root move into one partition"). A flat Obsidian vault — every note at the root — is the
case that could not be adopted at all before. Run through the console script as a person runs
it; links read as `show --json` gives them (`graph_of`), before and after, ends mapped from
old to new paths."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_adopt_keeps_links import checksums, graph_of, knowledge, moved_links

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def test_a_flat_vault_is_adopted_whole_every_link_reaching_the_same_file(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(
        root,
        {
            "Home.md": "# Home\n\nSee [[Beta]], [[Gamma|g]] and [the beta file](Beta.md).\n\n"
            "![pic](pic.png) and ![[pic.png]]\n",
            "Beta.md": "Back to [home](Home.md#home) and [[Home#Home]].\n",
            "Gamma.md": "---\ntags: [x]\n---\nGamma links [[Beta]] and [b](<./Beta.md>).\n",
            "pic.png": PNG,
        },
    )
    before_links, before_backlinks, before_missing = graph_of(root)
    assert ("Gamma.md", "markdown", "./Beta.md", "Beta.md") in before_links
    sums = checksums(root)

    code, dry = knowledge("adopt", str(root), "--dry-run", "--json")
    assert code == 0, dry
    assert dry["rootInto"] == "private"  # no partition at all: ARCHITECTURE.md's default name
    moved = {f["path"]: f["movedTo"] for f in dry["files"]}
    assert moved == {n: f"private/{n}" for n in ("Home.md", "Beta.md", "Gamma.md")}
    assert dry["skipped"] == []
    # links between root notes stay as written; only the image left at the root needs a new path
    assert [(r["path"], r["from"], r["to"]) for r in dry["linksRewritten"]] == [
        ("Home.md", "pic.png", "../pic.png")
    ]
    assert checksums(root) == sums  # a dry run writes nothing

    code, receipt = knowledge("adopt", str(root), "--json")
    assert code == 0, receipt
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["pic.png", "private"]
    after_links, after_backlinks, after_missing = graph_of(root)
    assert moved_links(after_links, {}) == moved_links(before_links, moved)
    assert after_backlinks == {(moved.get(a, a), moved.get(b, b)) for a, b in before_backlinks}
    assert after_missing == before_missing == 0
    code, shown = knowledge("show", str(root), "private/Home.md", "--json")
    assert (code, shown["kind"], shown["title"]) == (0, "page", "Home")
    assert {(r["target"], r["path"]) for r in shown["references"] if r["status"] == "resolved"} >= {
        ("Beta", "private/Beta.md"),
        ("Gamma", "private/Gamma.md"),
        ("Beta.md", "private/Beta.md"),
    }
    assert (root / "private/Home.md").read_text().endswith("![pic](../pic.png) and ![[pic.png]]\n")

    code, undone = knowledge("undo", str(root), str(receipt["journalId"]), "--json")
    assert code == 0, undone
    assert checksums(root) == sums


def test_links_in_files_the_run_does_not_write_block_a_move_and_other_notes_links_are_rewritten(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    write(
        root,
        {
            "Home.md": "# Home\n\nTo [[Plan]] and [t](work/Topic%20(2).md).\n",
            "work/Topic (2).md": "A name with parentheses.\n",
            "Linked.md": "Linked from a record by its path.\n",
            "Todo.md": "The root's todo.\n",
            "Near.md": "Reached from work/ by a Markdown path.\n",
            "work/Plan.md": "# Plan\n\nSee [near](../Near.md) and [[Home]].\n",
            "work/tasks/Todo.md": "The work todo.\n",
            "work/rec.md": "---\nformat: knowledge-record-v1\nid: pg_rec\nrevision: 1\nkind: page\n"
            "title: Rec\nrecorded_at: 2026-01-05T10:00:00.000Z\nupdated_at: 2026-01-05T10:00:00.000Z\n"
            "scope: work\nlifecycle: active\ntype: note\n---\nA record that links [l](../Linked.md).\n",
        },
    )
    before_links, _backlinks, before_missing = graph_of(root)
    sums = checksums(root)
    code, dry = knowledge("adopt", str(root), "--dry-run", "--json")
    assert code == 0, dry
    assert dry["rootInto"] == "work"  # the only partition holding notes
    moved = {f["path"]: f["movedTo"] for f in dry["files"] if f.get("movedTo")}
    assert moved == {"Home.md": "work/Home.md", "Near.md": "work/Near.md"}
    blocked = {s["path"]: s["moveBlocked"] for s in dry["skipped"] if s["code"] == "root-note"}
    assert blocked == {
        "Linked.md": "work/rec.md links to it by a Markdown path and is not written by this run",
        "Todo.md": "work/tasks/Todo.md has the same file name; a link by name could reach either once moved",
    }
    assert [(r["path"], r["from"], r["to"]) for r in dry["linksRewritten"]] == [
        ("Home.md", "work/Topic%20(2).md", "Topic%20(2).md"),
        ("work/Plan.md", "../Near.md", "Near.md"),
    ]
    code, human = knowledge("adopt", str(root), "--dry-run", "--root-into", "work")
    assert code == 0
    assert "Todo.md: a note at the vault root is adopted by moving it into work/" in human

    code, receipt = knowledge("adopt", str(root), "--json")
    assert code == 0, receipt
    assert (root / "work/Plan.md").read_text().endswith("See [near](Near.md) and [[Home]].\n")
    after_links, _backlinks, after_missing = graph_of(root)
    assert moved_links(after_links, {}) == moved_links(before_links, moved)
    assert after_missing == before_missing
    code, undone = knowledge("undo", str(root), str(receipt["journalId"]), "--json")
    assert code == 0, undone
    assert checksums(root) == sums


def test_root_into_names_the_partition(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, {"Home.md": "# Home\n", "a/One.md": "one\n", "b/Two.md": "two\n"})
    code, dry = knowledge("adopt", str(root), "--dry-run", "--json")
    assert (code, dry["rootInto"]) == (0, "private")  # several partitions, none named
    code, dry = knowledge("adopt", str(root), "--dry-run", "--root-into", "b", "--json")
    assert code == 0, dry
    assert dry["rootInto"] == "b"
    assert {f["path"]: f.get("movedTo") for f in dry["files"]}["Home.md"] == "b/Home.md"
    expect = tmp_path / "dry.json"
    expect.write_text(json.dumps(dry))
    code, receipt = knowledge("adopt", str(root), "--expect", str(expect), "--json")
    assert code == 0, receipt
    assert (root / "b/Home.md").is_file()  # where the dry run said, though no --root-into here
    assert {i["path"]: i["id"] for i in receipt["items"]}["b/Home.md"] == {
        f["path"]: f["id"] for f in dry["files"]
    }["Home.md"]
