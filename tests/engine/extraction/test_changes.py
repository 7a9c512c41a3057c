"""Changes (spec: knowledge-entities-extraction.md, "Extraction and identity", "Bounds and
coverage"): changelog list entries under release headings, and first-parent commits read
with pygit2 — conventional type/scope/`!`/BREAKING CHANGE footers, touched paths from the
tree diff (never the message), merges against their first parent, side-branch commits not
separate, renames with both paths, the commit window and `since_tag`."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction import ExtractOptions, extract, history
from tests.repokit import RepoKit, codes, entity, ids_of, region

KEEP_A_CHANGELOG = """# Changelog

Intro list, not under a release:

- not an entry

## [Unreleased]

### Added

- Repository pane.
- Repository pane.

## [1.1.0] - 2024-05-01

### Fixed

- Crash on empty vault
  - nested detail stays in the entry
- Slow search ([#12](https://example.org/12)).

## v1.0.0

- A wrapped entry is
  one sentence.

* First release.
"""


def test_each_changelog_list_entry_under_a_release_heading(rk: RepoKit) -> None:
    rk.write("CHANGELOG.md", KEEP_A_CHANGELOG)
    doc = rk.extract(history=False)
    assert ids_of(doc) == [
        "change:CHANGELOG.md#[1.1.0] - 2024-05-01#Crash on empty vault",
        "change:CHANGELOG.md#[1.1.0] - 2024-05-01#Slow search (#12).",
        "change:CHANGELOG.md#[Unreleased]#Repository pane.",
        "change:CHANGELOG.md#[Unreleased]#Repository pane.~2",
        "change:CHANGELOG.md#v1.0.0#A wrapped entry is one sentence.",
        "change:CHANGELOG.md#v1.0.0#First release.",
    ]
    crash = region(entity(doc, "change:CHANGELOG.md#[1.1.0] - 2024-05-01#Crash on empty vault"))
    assert (crash["lineStart"], crash["lineEnd"]) == (18, 19)


RELEASE_PLEASE_HEADING = "[2.1.0](https://example.org/acme/lamp/compare/v2.0.0...v2.1.0) (2025-03-02)"
_LAMP = "https://example.org/acme/lamp"
RELEASE_PLEASE = (
    f"# Changelog\n\n## {RELEASE_PLEASE_HEADING}\n\n\n### Features\n\n"
    f"* **ui:** show the wick length ([#41]({_LAMP}/issues/41)) "
    f"([9f8e7d6]({_LAMP}/commit/9f8e7d6c5b4a39281706f5e4d3c2b1a098765432)), closes [#40]({_LAMP}/issues/40)"
    f", [#39]({_LAMP}/issues/39)\n"
    f"* add a `--dim` flag for the __lamp__ "
    f'([0a1b2c3]({_LAMP}/commit/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567 "commit"))\n'
    f"* add a `--dim` flag for the lamp ([0a1b2c3]({_LAMP}/commit/0a1b2c3))\n"
)


def test_a_release_please_entry_is_named_by_its_visible_text(rk: RepoKit) -> None:
    import hashlib

    path = rk.write("CHANGELOG.md", RELEASE_PLEASE)
    doc = rk.extract(history=False)
    assert RELEASE_PLEASE_HEADING in RELEASE_PLEASE
    prefix = "change:CHANGELOG.md#2.1.0 (2025-03-02)#"  # the release heading read as it shows, too
    wick = entity(doc, prefix + "ui: show the wick length (#41) (9f8e7d6), closes #40, #39")
    assert wick["name"] == "ui: show the wick length (#41) (9f8e7d6), closes #40, #39"
    # two entries that read alike are one name, told apart by occurrence
    assert ids_of(doc) == [
        prefix + "add a --dim flag for the lamp (0a1b2c3)",
        prefix + "add a --dim flag for the lamp (0a1b2c3)~2",
        wick["id"],
    ]
    assert "name-truncated" not in codes(doc, "changes")  # the raw entry is over 256 characters
    raw_line = RELEASE_PLEASE.splitlines(keepends=True)[7]
    assert (region(wick)["lineStart"], region(wick)["lineEnd"]) == (8, 8)
    assert region(wick)["regionHash"] == hashlib.sha256(raw_line.encode()).hexdigest()
    # New link destinations and other emphasis markers: the same visible text, the same id.
    edited = RELEASE_PLEASE.replace("lamp/commit/", "lamp/-/commit/").replace("/issues/", "/-/issues/")
    path.write_text(edited.replace("**ui:**", "__ui:__"))
    again = rk.extract(history=False)
    assert ids_of(again) == ids_of(doc)
    assert region(entity(again, wick["id"]))["regionHash"] != region(wick)["regionHash"]


def test_other_changelog_names_and_type(rk: RepoKit) -> None:
    rk.write("docs/HISTORY.md", "# History\n\n## 0.9\n\n- Old.\n")
    rk.write("notes/log.md", "---\ntype: changelog\n---\n# Log\n\n## 2.0.0\n\n- New.\n")
    rk.write("notes/plain.md", "# Plain\n\n## 3.0\n\n- Not a changelog.\n")
    assert ids_of(rk.extract(history=False)) == [
        "change:docs/HISTORY.md#0.9#Old.",
        "change:notes/log.md#2.0.0#New.",
    ]


def test_conventional_commits_with_scope_bang_and_footers(rk: RepoKit) -> None:
    rk.write("a.txt", "a\n")
    c1 = rk.commit("feat(store): add WAL mode\n\nBody mentions docs/other.md.\n")
    rk.write("b.txt", "b\n")
    c2 = rk.commit("fix!: drop the old format")
    rk.write("c.txt", "c\n")
    c3 = rk.commit("refactor: rename\n\nBREAKING-CHANGE: the API moved\n")
    rk.write("d.txt", "d\n")
    c4 = rk.commit("chore(ci): x\n\nBREAKING CHANGE: runners\n")
    rk.write("e.txt", "e\n")
    c5 = rk.commit("Update the readme")
    doc = rk.extract()
    conv = {sha: entity(doc, f"commit:{sha}").get("conventional") for sha in (c1, c2, c3, c4, c5)}
    assert conv == {
        c1: {"type": "feat", "scope": "store", "breaking": False},
        c2: {"type": "fix", "breaking": True},
        c3: {"type": "refactor", "breaking": True},
        c4: {"type": "chore", "scope": "ci", "breaking": True},
        c5: None,
    }
    first = entity(doc, f"commit:{c1}")
    assert first["name"] == "feat(store): add WAL mode"
    assert first["evidence"] == [{"kind": "commit", "sha": c1}]
    assert first["links"] == [{"kind": "affected-path", "target": "a.txt"}]  # not docs/other.md
    assert doc["coverage"]["history"]["status"] == "complete"
    assert doc["coverage"]["history"]["head"] == c5


def test_a_merge_is_compared_with_its_first_parent_and_side_commits_are_not_entries(rk: RepoKit) -> None:
    base = rk.commit("base", {"a.txt": "a"})
    side1 = rk.commit("side one", {"a.txt": "a", "s1.txt": "1"}, parents=[base], ref="refs/heads/side")
    side2 = rk.commit(
        "side two", {"a.txt": "a", "s1.txt": "1", "s2.txt": "2"}, parents=[side1], ref="refs/heads/side"
    )
    main = rk.commit("main work", {"a.txt": "A"}, parents=[base])
    merge = rk.commit("Merge side", {"a.txt": "A", "s1.txt": "1", "s2.txt": "2"}, parents=[main, side2])
    doc = rk.extract()
    assert ids_of(doc, "change") == sorted(f"commit:{c}" for c in (base, main, merge))
    assert entity(doc, f"commit:{merge}")["links"] == [
        {"kind": "affected-path", "target": "s1.txt"},
        {"kind": "affected-path", "target": "s2.txt"},
    ]


def test_a_rename_keeps_both_paths_and_a_deletion_its_old_path(rk: RepoKit) -> None:
    rk.commit("one", {"docs/old.md": "# Old\n\nSame text in both.\n", "gone.txt": "x"})
    sha = rk.commit("two", {"docs/new.md": "# Old\n\nSame text in both.\n"})
    links = entity(rk.extract(), f"commit:{sha}")["links"]
    assert [link["target"] for link in links] == ["docs/new.md", "docs/old.md", "gone.txt"]


def test_the_commit_window_is_partial_when_cut_and_bounded_1_to_200(rk: RepoKit) -> None:
    shas = [rk.commit(f"c{n}", {"f.txt": str(n)}) for n in range(5)]
    doc = rk.extract(max_commits=3)
    assert ids_of(doc, "change") == sorted(f"commit:{s}" for s in shas[2:])
    assert doc["coverage"]["history"]["status"] == "partial"
    assert "commit-window" in codes(doc, "history")
    exact = rk.extract(max_commits=5)
    assert exact["coverage"]["history"]["status"] == "complete"
    assert exact["coverage"]["history"]["maxCommits"] == 5
    assert rk.extract()["coverage"]["history"]["maxCommits"] == 50
    for bad in (0, 201):
        with pytest.raises(QueryError):
            rk.extract(max_commits=bad)


def test_since_tag_stops_at_the_tag_and_unknown_or_foreign_tags_are_not_analyzed(rk: RepoKit) -> None:
    shas = [rk.commit(f"c{n}", {"f.txt": str(n)}) for n in range(4)]
    rk.tag("v1.0", shas[1])
    side = rk.commit("elsewhere", {"g.txt": "g"}, parents=[shas[0]], ref="refs/heads/other")
    rk.tag("side", side)
    doc = rk.extract(since_tag="v1.0")
    assert ids_of(doc, "change") == sorted(f"commit:{s}" for s in shas[2:])
    assert doc["coverage"]["history"]["status"] == "complete"
    assert doc["coverage"]["history"]["sinceTag"] == "v1.0"
    unknown = rk.extract(since_tag="v9")
    assert (unknown["coverage"]["history"]["status"], codes(unknown, "history")) == (
        "not-analyzed",
        {"unknown-tag"},
    )
    assert ids_of(unknown, "change") == []
    foreign = rk.extract(since_tag="side")
    assert codes(foreign, "history") == {"tag-not-ancestor"}


def test_an_annotated_tag_is_peeled_to_its_commit(rk: RepoKit) -> None:
    shas = [rk.commit(f"c{n}", {"f.txt": str(n)}) for n in range(3)]
    import pygit2

    sig = pygit2.Signature("Ada", "ada@example.org", 1_760_000_000, 0)
    rk.repo.create_tag("v2", pygit2.Oid(hex=shas[0]), pygit2.enums.ObjectType.COMMIT, sig, "release")
    assert ids_of(rk.extract(since_tag="v2"), "change") == sorted(f"commit:{s}" for s in shas[1:])


def test_no_repository_and_no_commits_are_not_analyzed(rk: RepoKit) -> None:
    rk.write("README.md", "# R\n")
    doc = rk.extract()
    assert (doc["coverage"]["history"]["status"], codes(doc, "history")) == (
        "not-analyzed",
        {"no-repository"},
    )
    rk.repo  # noqa: B018 - initialises an empty repository
    empty = rk.extract()
    assert codes(empty, "history") == {"history-unavailable"}


def test_a_subfolder_of_a_repository_does_not_borrow_its_history(rk: RepoKit) -> None:
    rk.write("docs/README.md", "# R\n")
    rk.commit("one")
    from knowledge_desktop.engine.extraction import extract

    doc = extract(rk.root / "docs")
    assert codes(doc, "history") == {"no-repository"}


def test_a_missing_object_ends_the_window_as_partial_not_a_crash(rk: RepoKit) -> None:
    """A commit whose parent object is gone (a shallow or damaged store) cannot be
    compared, so the walk stops before it; nothing is fetched."""
    first = rk.commit("one", {"a.txt": "1"})
    rk.commit("two", {"a.txt": "2"})
    third = rk.commit("three", {"a.txt": "3"})
    loose = rk.root / ".git" / "objects" / first[:2] / first[2:]
    loose.chmod(0o644)
    loose.unlink()
    doc = rk.extract()
    assert ids_of(doc, "change") == [f"commit:{third}"]
    assert (doc["coverage"]["history"]["status"], codes(doc, "history")) == ("partial", {"missing-object"})


def test_since_tag_on_a_merged_side_branch_stops_at_the_tags_ancestors(rk: RepoKit) -> None:
    """The first-parent walk never meets a side branch's tag; it stops at the first
    commit the tag already contains (here the fork point), not at the root."""
    root = rk.commit("root", {"a.txt": "0"})
    fork = rk.commit("fork", {"a.txt": "1"})
    side = rk.commit("side", {"a.txt": "1", "s.txt": "s"}, parents=[fork], ref="refs/heads/side")
    rk.tag("v1", side)
    main = rk.commit("main", {"a.txt": "2"}, parents=[fork])
    merge = rk.commit("Merge side", {"a.txt": "2", "s.txt": "s"}, parents=[main, side])
    after = rk.commit("after", {"a.txt": "3", "s.txt": "s"})
    doc = rk.extract(since_tag="v1")
    assert ids_of(doc, "change") == sorted(f"commit:{c}" for c in (main, merge, after))
    assert f"commit:{root}" not in ids_of(doc, "change")
    assert doc["coverage"]["history"]["status"] == "complete"


def test_a_shallow_boundary_is_listed_without_paths_and_history_is_partial(
    rk: RepoKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = rk.commit("one", {"a.txt": "1", "b.txt": "b"})
    second = rk.commit("feat: two", {"a.txt": "2", "b.txt": "b"})
    third = rk.commit("three", {"a.txt": "3", "b.txt": "b"})
    rk.make_shallow(second, first)
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries"))  # no git executable to lean on
    assert pygit2.Repository(str(rk.root)).is_shallow
    doc = rk.extract()
    assert ids_of(doc, "change") == sorted(f"commit:{c}" for c in (second, third))
    boundary = entity(doc, f"commit:{second}")
    assert boundary["evidence"] == [{"kind": "commit", "sha": second}]
    assert boundary["links"] == []  # not a.txt and b.txt from a diff against nothing
    assert boundary["conventional"] == {"type": "feat", "breaking": False}
    assert entity(doc, f"commit:{third}")["links"] == [{"kind": "affected-path", "target": "a.txt"}]
    history = doc["coverage"]["history"]
    assert (history["status"], codes(doc, "history")) == ("partial", {"shallow-history"})
    (reason,) = history["reasons"]
    assert "path" not in reason
    assert second in reason["detail"]


def test_a_shallow_boundary_keeps_the_reasons_its_message_gives(rk: RepoKit) -> None:
    first = rk.commit("one", {"a.txt": "1"})
    second = rk.commit("feat: " + "long " * 80, {"a.txt": "2"})
    rk.commit("three", {"a.txt": "3"})
    rk.make_shallow(second, first)
    doc = rk.extract()
    assert len(entity(doc, f"commit:{second}")["name"]) <= 256
    assert "name-truncated" in codes(doc, "changes")
    assert codes(doc, "history") == {"shallow-history"}


def test_a_path_that_is_not_utf8_is_left_out_and_history_is_partial(rk: RepoKit) -> None:
    rk.commit("one", {"a.txt": "1"})
    repo = rk.repo
    a, odd = repo.create_blob(b"2"), repo.create_blob(b"x")
    raw = b"100644 a.txt\x00" + a.raw + b"100644 caf\xe9.md\x00" + odd.raw
    tree = repo.odb.write(pygit2.enums.ObjectType.TREE, raw)
    sig = pygit2.Signature("Ada", "ada@example.org", 1_760_000_999, 0)
    sha = str(repo.create_commit("HEAD", sig, sig, "two", tree, [repo.head.target]))
    doc = rk.extract()
    assert entity(doc, f"commit:{sha}")["links"] == [{"kind": "affected-path", "target": "a.txt"}]
    assert (doc["coverage"]["history"]["status"], codes(doc, "history")) == ("partial", {"path-not-utf8"})
    assert sha in doc["coverage"]["history"]["reasons"][0]["detail"]


def test_a_commit_past_the_changed_file_bound_stops_collecting_paths(
    rk: RepoKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "MAX_COMMIT_DELTAS", 2)
    small = rk.commit("small", {"a.txt": "a", "b.txt": "b"})
    big = rk.commit("big", {"a.txt": "A", "b.txt": "B", "c.txt": "C"})
    doc = rk.extract()
    assert len(entity(doc, f"commit:{big}")["links"]) == 2
    assert len(entity(doc, f"commit:{small}")["links"]) == 2
    assert (doc["coverage"]["history"]["status"], codes(doc, "history")) == ("partial", {"commit-too-large"})
    assert big in doc["coverage"]["history"]["reasons"][0]["detail"]


def test_a_breaking_footer_under_a_plain_subject_gives_no_conventional_field(rk: RepoKit) -> None:
    sha = rk.commit("Update the storage\n\nBREAKING CHANGE: the old format is gone\n", {"a.txt": "a"})
    change = entity(rk.extract(), f"commit:{sha}")
    assert change["name"] == "Update the storage"
    assert "conventional" not in change


def test_a_tag_check_that_cannot_read_its_objects_is_reported_not_a_crash(
    rk: RepoKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    shas = [rk.commit(f"c{n}", {"f.txt": str(n)}) for n in range(3)]
    rk.tag("v0", shas[0])

    def unreadable(self: pygit2.Repository, *args: object) -> object:
        raise pygit2.GitError("object not found")

    monkeypatch.setattr(pygit2.Repository, "walk", unreadable, raising=False)
    monkeypatch.setattr(history, "_tag_commit", lambda repo, tag, head, out: pygit2.Oid(hex=shas[0]))
    doc = rk.extract(since_tag="v0")
    assert ids_of(doc, "change") == []
    assert (doc["coverage"]["history"]["status"], codes(doc, "history")) == (
        "not-analyzed",
        {"history-unavailable"},
    )


def test_local_tags_name_commits_newest_first_and_skip_other_objects(rk: RepoKit) -> None:
    first = rk.commit("one", {"a.txt": "1"})
    second = rk.commit("two", {"a.txt": "2"})
    rk.tag("v1", first)
    rk.tag("v2", second)
    rk.tag("also-v2", second)
    blob = rk.repo.create_blob(b"not a commit")
    rk.repo.references.create("refs/tags/a-blob", blob)
    assert history.local_tags(rk.root) == ["also-v2", "v2", "v1"]
    assert history.local_tags(rk.root, limit=1) == ["also-v2"]
    assert history.local_tags(rk.root / "missing") == []


def test_an_extractor_given_new_options_reads_the_new_window_and_keeps_its_caches(rk: RepoKit) -> None:
    rk.write("GLOSSARY.md", "# Glossary\n\n**Tag**: a named commit.\n")
    shas = [rk.commit(f"c{n}", {"a.txt": str(n)}) for n in range(4)]
    rk.tag("v1", shas[1])
    extractor = rk.extractor()
    assert len(ids_of(extractor.extract(), "change")) == 4
    assert extractor.parsed_last_run == 1
    extractor.set_options(ExtractOptions(since_tag="v1"))
    doc = extractor.extract()
    assert ids_of(doc, "change") == sorted(f"commit:{c}" for c in shas[2:])
    assert extractor.parsed_last_run == 0
    assert doc == extract(rk.root, ExtractOptions(since_tag="v1"))
    with pytest.raises(QueryError):
        extractor.set_options(ExtractOptions(max_commits=201))
