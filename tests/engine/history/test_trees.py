"""Trees changed path by path, with big folders' entries kept between checkpoints: the
trees are the same as when every folder is read afresh (issue 15, §1 and §4)."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.history import trees


def tree_of(repo: pygit2.Repository, files: dict[str, bytes]) -> pygit2.Oid:
    oid, _ = trees.apply(repo, None, files)
    return oid


def test_kept_entries_give_the_trees_a_fresh_read_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trees, "BIG_FOLDER", 3)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    repo = pygit2.init_repository(str(tmp_path / "a.git"), bare=True)
    files = {f"claims/c{i}.md": f"claim {i}\n".encode() for i in range(6)}
    files["people/ada.md"] = b"ada\n"
    tree = repo[tree_of(repo, files)]
    assert trees._kept  # the claims folder's entries were kept
    steps: list[dict[str, bytes | None]] = [
        {"claims/c1.md": b"changed\n"},
        {"claims/c1.md": b"again\n", "claims/c9.md": b"new\n"},
        {"claims/c2.md": None},
        {"people/ada.md": b"ada 2\n", "claims/c3.md": b"three\n"},
    ]
    for step in steps:
        oid, moved = trees.apply(repo, tree, step)
        tree = repo[oid]
        for path, value in step.items():
            if value is None:
                files.pop(path)
                assert moved[path][1] is None
            else:
                files[path] = value
        trees._kept.clear()
        assert oid == tree_of(repo, files)  # what a read of every folder afresh gives
        trees._kept.clear()
        tree = repo[oid]
        oid_again, _ = trees.apply(repo, tree, {})
        assert oid_again == oid


def test_kept_entries_never_write_into_another_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trees, "BIG_FOLDER", 2)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    files = {f"claims/c{i}.md": f"claim {i}\n".encode() for i in range(4)}
    one = pygit2.init_repository(str(tmp_path / "one.git"), bare=True)
    two = pygit2.init_repository(str(tmp_path / "two.git"), bare=True)
    tree_one = one[tree_of(one, files)]
    tree_two = two[tree_of(two, files)]
    assert tree_one.id == tree_two.id
    oid, _ = trees.apply(two, tree_two, {"claims/c0.md": b"only in two\n"})
    assert two[oid]["claims"]["c0.md"].data == b"only in two\n"  # written where it was asked
    assert oid not in one


def test_warming_holds_the_big_folders_a_checkpoint_then_splices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trees, "BIG_FOLDER", 3)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    repo = pygit2.init_repository(str(tmp_path / "a.git"), bare=True)
    files = {f"private/claims/c{i}.md": f"claim {i}\n".encode() for i in range(5)}
    files["private/people/ada.md"] = b"ada\n"
    files["private/claims/deep/d.md"] = b"deep\n"
    tree = repo[tree_of(repo, files)]
    trees._kept.clear()  # as in a new process
    assert trees.warm(repo, tree) == 1
    claims_id = tree["private/claims"].id
    assert list(trees._kept) == [(repo.path, str(claims_id))]  # not the 1-entry folders
    # held as the tree's content, not as parsed entries (a fifth of the memory at 100k)
    assert trees._kept[(repo.path, str(claims_id))] == repo.odb.read(claims_id)[1]
    oid, _ = trees.apply(repo, tree, {"private/claims/c1.md": b"changed\n"})
    assert (repo.path, str(claims_id)) not in trees._kept  # taken, not read again
    files["private/claims/c1.md"] = b"changed\n"
    trees._kept.clear()
    assert oid == tree_of(repo, files)
