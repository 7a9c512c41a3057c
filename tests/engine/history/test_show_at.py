"""A record as it was and diffs between versions, from the app's checkpoints (issue 15, §2:
`show --at`, `diff`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit, fence_of

ADA = "private/people/ada.md"


@pytest.fixture
def edited(kit: VaultKit) -> tuple[Vault, list[str]]:
    """A page published twice: revision 2 ("Second.") then revision 3 ("Third.")."""
    kit.page(ADA, "pg_ada", "Ada", "First.\n", type="person")
    vault = kit.scan()
    commits = []
    for body in ("Second.\n", "Third.\n"):
        receipt = vault.edit_body(fence_of(vault, "pg_ada"), body)
        assert receipt["git"]["state"] == "committed"
        commits.append(receipt["git"]["commit"])
    return vault, commits


def test_show_at_a_checkpoint_gives_that_version_in_shows_shape(edited: tuple[Vault, list[str]]) -> None:
    """By full id or prefix: the version's revision and body, labelled with commit, time and
    source; at the newest checkpoint it agrees with `show` on what the file alone decides."""
    vault, (first, second) = edited
    past = vault.history.show_at("pg_ada", first[:9])
    assert (past["revision"], past["body"], past["commit"], past["source"]) == (
        2,
        "Second.\n",
        first,
        "checkpoint",
    )
    assert past["path"] == ADA
    assert vault.history.show_at(ADA, first)["body"] == "Second.\n"  # by path, as `show` takes
    now = vault.show("pg_ada")
    latest = vault.history.show_at("pg_ada", second)
    same = (
        "id",
        "kind",
        "type",
        "title",
        "revision",
        "lifecycle",
        "scope",
        "hash",
        "frontmatter",
        "body",
        "bodyLine",
    )
    assert {k: latest[k] for k in same} == {k: now[k] for k in same}
    assert set(now) - {"writtenByAgentId"} <= set(latest)


def test_show_at_a_date(edited: tuple[Vault, list[str]]) -> None:
    """Today (the end of the day) gives the newest checkpoint; a day before any checkpoint
    is a clear error naming the id."""
    vault, (_first, second) = edited
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert vault.history.show_at("pg_ada", today)["commit"] == second
    with pytest.raises(QueryError, match="pg_ada did not exist at 2001-01-01"):
        vault.history.show_at("pg_ada", "2001-01-01")


def test_show_at_rejects_bad_moments(edited: tuple[Vault, list[str]]) -> None:
    vault, _ = edited
    with pytest.raises(QueryError, match="neither a commit id"):
        vault.history.show_at("pg_ada", "yesterday-ish")
    with pytest.raises(QueryError, match="no checkpoint or commit"):
        vault.history.show_at("pg_ada", "abcdef0123")
    with pytest.raises(QueryError, match="pg_nobody did not exist"):
        vault.history.show_at("pg_nobody", datetime.now(UTC).strftime("%Y-%m-%d"))


def test_version_bytes(edited: tuple[Vault, list[str]], kit: VaultKit) -> None:
    vault, (first, second) = edited
    assert vault.history.version_bytes(second, ADA) == (kit.root / ADA).read_bytes()
    assert b"Second." in vault.history.version_bytes(first[:7], ADA)
    with pytest.raises(QueryError, match="not in commit"):
        vault.history.version_bytes(first, "private/nothing.md")


def test_diff_defaults_to_previous_version_to_now(edited: tuple[Vault, list[str]], kit: VaultKit) -> None:
    """The file on disk equals the newest checkpoint, so the default diff starts at the one
    before it; after an outside edit it starts at the newest checkpoint."""
    vault, (first, second) = edited
    text = vault.history.diff("pg_ada")
    assert f"a/{ADA} @ {first[:12]}" in text
    assert "-Second.\n" in text
    assert "+Third.\n" in text
    (kit.root / ADA).write_bytes((kit.root / ADA).read_bytes() + b"Outside.\n")
    text = vault.history.diff("pg_ada")
    assert f"@ {second[:12]}" in text
    assert "+Outside.\n" in text
    assert "-Second.\n" not in text


def test_diff_between_given_moments(edited: tuple[Vault, list[str]]) -> None:
    vault, (first, second) = edited
    forward = vault.history.diff("pg_ada", first, second[:9])
    assert "-Second.\n" in forward
    assert "+Third.\n" in forward
    assert "revision: 3" in forward
    backward = vault.history.diff("pg_ada", "now", first)
    assert "-Third.\n" in backward
    assert "+Second.\n" in backward
    assert vault.history.diff("pg_ada", second, "now") == ""
    with pytest.raises(QueryError, match="pg_ada did not exist at 2001"):
        vault.history.diff("pg_ada", "2001-06-01")


def test_eight_digits_are_a_date_only_when_they_make_one() -> None:
    """A commit prefix may be all decimal digits (it failed a CI run as "not a date")."""
    from knowledge_desktop.engine.versions.when import parse_at

    assert parse_at("12035592").commit == "12035592"
    assert parse_at("20261202").commit is None
    assert parse_at("20261202").text == "20261202"
    assert parse_at("1203559a").commit == "1203559a"


def test_the_moment_of_two_commits_in_one_second_is_the_later_one(tmp_path: Path) -> None:
    """A publication right after the baseline shares its second: "as of then" is the
    publication, the tip of the line, not its parent."""
    import pygit2

    from knowledge_desktop.engine.versions.when import newest_at_or_before

    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    sig = pygit2.Signature("a", "a@example.invalid", 1_700_000_000, 0)
    tree = repo.TreeBuilder().write()
    first = repo.create_commit("refs/heads/checkpoints", sig, sig, "baseline", tree, [])
    second = repo.create_commit("refs/heads/checkpoints", sig, sig, "edit", tree, [first])
    next_sig = pygit2.Signature("a", "a@example.invalid", 1_700_000_005, 0)
    third = repo.create_commit("refs/heads/checkpoints", next_sig, next_sig, "later", tree, [second])
    between = datetime.fromtimestamp(1_700_000_001, UTC)
    assert newest_at_or_before(repo, third, between).id == second
    assert newest_at_or_before(repo, third, datetime.fromtimestamp(1_600_000_000, UTC)) is None
