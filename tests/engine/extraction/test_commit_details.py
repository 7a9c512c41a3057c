"""`commit_details`: what the Repository pane shows for a commit's evidence — subject,
author, date, parents and the touched paths from the tree diff, a rename as old → new."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction.commit_details import TouchedPath, commit_details
from tests.repokit import RepoKit


def test_a_commit_shows_its_subject_author_and_touched_paths_with_renames(rk: RepoKit) -> None:
    rk.write("docs/adr/0001-use-json.md", "# 1. Use JSON\n\nA long enough body to be similar.\n" * 4)
    rk.write("src/old.py", "pass\n")
    first = rk.commit("docs: first\n\nMentions src/nothing.py in prose.\n")
    (rk.root / "docs/adr/0001-use-json.md").rename(rk.root / "docs/adr/0001-use-yaml.md")
    (rk.root / "src/old.py").unlink()
    rk.write("README.md", "# Hi\n")
    second = rk.commit("refactor(adr)!: rename\n\nBREAKING CHANGE: paths\n")

    one = commit_details(rk.root, first)
    assert one.subject == "docs: first"
    assert one.parents == ()
    assert one.touched == (
        TouchedPath("added", "docs/adr/0001-use-json.md"),
        TouchedPath("added", "src/old.py"),
    )
    two = commit_details(rk.root, second)
    assert (two.sha, two.subject, two.author) == (second, "refactor(adr)!: rename", "Ada <ada@example.org>")
    assert two.date.startswith("2025-10-")
    assert two.parents == (first,)
    assert two.touched == (
        TouchedPath("added", "README.md"),
        TouchedPath("renamed", "docs/adr/0001-use-yaml.md", "docs/adr/0001-use-json.md"),
        TouchedPath("deleted", "src/old.py"),
    )


def test_an_unknown_commit_is_a_clear_error(rk: RepoKit) -> None:
    rk.write("a.md", "# A\n")
    rk.commit("docs: a")
    with pytest.raises(QueryError, match=r"commit 0{40} cannot be read"):
        commit_details(rk.root, "0" * 40)
    with pytest.raises(QueryError, match="cannot be read"):
        commit_details(rk.root / "missing", "0" * 40)


def test_a_shallow_boundary_shows_its_paths_as_unknown_not_all_added(rk: RepoKit) -> None:
    first = rk.commit("one", {"a.txt": "1", "b.txt": "b"})
    second = rk.commit("two", {"a.txt": "2", "b.txt": "b"})
    third = rk.commit("three", {"a.txt": "3", "b.txt": "b"})
    rk.make_shallow(second, first)
    boundary = commit_details(rk.root, second)
    assert (boundary.subject, boundary.paths_known, boundary.touched) == ("two", False, ())
    after = commit_details(rk.root, third)
    assert (after.paths_known, after.touched) == (True, (TouchedPath("modified", "a.txt"),))
