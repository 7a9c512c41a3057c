"""The user's own Git, read-only (issue 15, §1 last bullet): a record file's commits in the
repository the vault lies in, followed across a rename, labelled "user-git", merged into
`Vault.history.versions` — and the repository is never written to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.versions import user_git
from knowledge_desktop.engine.versions.when import user_repo
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.requests import make_request
from tests.engine.history.gitkit import commit_files, epoch, git_dir_state
from tests.vaultkit import envelope, read_fence, record_text

OLD, NEW, OTHER = "vault/private/claims/old.md", "vault/private/claims/new.md", "vault/private/claims/o.md"


def claim(revision: int, body: str) -> bytes:
    fields = envelope("cl_a", "claim", "Tea", "private", revision=revision, claim_kind="fact")
    fields.update(assertion_origin="source", attribution="Ada", evidence=[{"url": "https://example.org"}])
    return record_text(fields, body).encode()


@pytest.fixture
def user(tmp_path: Path) -> tuple[Path, pygit2.Repository, list[str]]:
    """A user's repository holding the vault in `vault/`: created, renamed, edited, then an
    unrelated commit; the working files are those of the last commit."""
    top = tmp_path / "work"
    repo = pygit2.init_repository(str(top), initial_head="main")
    other = record_text(envelope("cl_o", "claim", "Other", "private", claim_kind="fact")).encode()
    ref = "refs/heads/main"
    steps = [
        ({OLD: claim(1, "First.\n")}, "add tea", "2024-01-01T10:00:00"),
        ({NEW: claim(1, "First.\n")}, "rename tea", "2024-02-01T10:00:00"),
        ({NEW: claim(2, "Second.\n"), OTHER: other}, "edit tea", "2024-03-01T10:00:00"),
        ({NEW: claim(2, "Second.\n"), OTHER: other + b"more\n"}, "edit other", "2024-04-01T10:00:00"),
    ]
    commits = [commit_files(repo, ref, files, msg, epoch(at)) for files, msg, at in steps]
    for path, data in steps[-1][0].items():
        (top / path).parent.mkdir(parents=True, exist_ok=True)
        (top / path).write_bytes(data)
    return top / "vault", repo, commits


def test_history_lists_the_users_commits_across_a_rename_newest_first(
    user: tuple[Path, pygit2.Repository, list[str]],
) -> None:
    """The edit, the rename and the creation (under the old path) are listed, labelled
    user-git with the commit's author, time, revision and summary; the unrelated commit is not."""
    root, _repo, commits = user
    with Vault.open(root) as vault:
        vault.reconcile()
        rows = vault.history.versions("cl_a")
    assert [(r["commit"], r["path"]) for r in rows] == [
        (commits[2], "private/claims/new.md"),
        (commits[1], "private/claims/new.md"),
        (commits[0], "private/claims/old.md"),
    ]
    assert {r["source"] for r in rows} == {"user-git"}
    assert [r["revision"] for r in rows] == [2, 1, 1]
    assert [r["reason"] for r in rows] == ["edit tea", "rename tea", "add tea"]
    assert rows[0]["at"] == "2024-03-01T10:00:00Z"
    assert rows[0]["author"] == "Ada"


def test_the_users_repository_is_never_written(user: tuple[Path, pygit2.Repository, list[str]]) -> None:
    """Opening, scanning and reading history, past versions and diffs leave every file of the
    user's `.git` as it was (refs, objects, index, config), and its refs point where they did."""
    root, repo, commits = user
    git_dir = Path(repo.path)
    before = git_dir_state(git_dir)
    refs = {name: str(repo.references[name].target) for name in repo.references}
    with Vault.open(root) as vault:
        vault.reconcile()
        vault.history.versions("cl_a")
        vault.history.show_at("cl_a", commits[0][:8])
        vault.history.diff("cl_a", commits[0], "now")
    after = pygit2.Repository(str(git_dir))
    assert {name: str(after.references[name].target) for name in after.references} == refs
    assert git_dir_state(git_dir) == before


def test_show_at_reads_the_users_commits_by_id_and_by_date(
    user: tuple[Path, pygit2.Repository, list[str]],
) -> None:
    """By commit prefix and by date (a day means its end, UTC); before the first commit the
    record did not exist."""
    root, _repo, commits = user
    with Vault.open(root) as vault:
        vault.reconcile()
        first = vault.history.show_at("cl_a", commits[0][:7])
        assert (first["path"], first["revision"], first["body"]) == ("private/claims/old.md", 1, "First.\n")
        assert (first["commit"], first["source"], first["at"]) == (
            commits[0],
            "user-git",
            "2024-01-01T10:00:00Z",
        )
        renamed = vault.history.show_at("cl_a", "2024-02-15")
        assert (renamed["commit"], renamed["path"]) == (commits[1], "private/claims/new.md")
        assert vault.history.show_at("cl_a", "2024-03-01")["revision"] == 2  # that day's end
        assert vault.history.show_at("cl_a", "2024-03-01T09:00:00Z")["revision"] == 1
        with pytest.raises(QueryError, match="cl_a did not exist at 2023-12-31"):
            vault.history.show_at("cl_a", "2023-12-31")


def test_the_walk_is_bounded_and_says_so(user: tuple[Path, pygit2.Repository, list[str]]) -> None:
    """A walk cut by its commit limit keeps what it found and names why it stopped."""
    root, _repo, commits = user
    with Vault.open(root) as vault:
        found = user_repo(root, vault.state_dir)
    assert found is not None
    assert found.prefix == "vault/"
    cut = user_git.file_history(found, "private/claims/new.md", 50, max_commits=2)
    assert [r["commit"] for r in cut.versions] == [commits[2]]
    assert cut.cut is not None
    assert "commit limit" in cut.cut
    whole = user_git.file_history(found, "private/claims/new.md", 50)
    assert whole.cut is None
    assert len(whole.versions) == 3


def test_a_vault_in_no_repository_has_no_user_rows(tmp_path: Path) -> None:
    """Without an enclosing repository there is no user-git history."""
    root = tmp_path / "plain"
    (root / "private/claims").mkdir(parents=True)
    (root / "private/claims/a.md").write_bytes(claim(1, "x\n"))
    with Vault.open(root) as vault:
        vault.reconcile()
        assert vault.history.user_versions("cl_a") == {"versions": [], "cut": None, "repository": None}


def test_versions_merge_checkpoints_and_the_users_commits_newest_first(
    user: tuple[Path, pygit2.Repository, list[str]],
) -> None:
    """A withdrawal published today comes before the user's commits of 2024; both sources
    keep their labels."""
    root, _repo, commits = user
    with Vault.open(root) as vault:
        vault.reconcile()
        fence = read_fence(vault, "cl_a")
        payload = {"fence": f"{fence.record_id}:{fence.revision}:{fence.sha256}", "reason": "wrong"}
        request = make_request("withdraw", payload, request_id="rq-a")
        receipt = vault.write(request, lambda ctx: plan_withdraw(ctx, fence, "wrong"))
        rows = vault.history.versions("cl_a")
        baseline = rows[1]  # the first checkpoint: every file as it was before the withdrawal
        assert (baseline["source"], baseline["operation"]) == ("observed", "baseline")
        assert [(r["source"], r["commit"]) for r in rows] == [
            ("publish", receipt["git"]["commit"]),
            ("observed", baseline["commit"]),
            ("user-git", commits[2]),
            ("user-git", commits[1]),
            ("user-git", commits[0]),
        ]
        assert [r["commit"] for r in vault.history.versions("cl_a", limit=3)] == [
            receipt["git"]["commit"],
            baseline["commit"],
            commits[2],
        ]


def test_the_users_history_is_walked_once_per_head(
    user: tuple[Path, pygit2.Repository, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same HEAD gives the same answer without walking again; a new commit walks anew."""
    root, repo, _commits = user
    walks: list[str] = []
    real_walk = user_git._walk

    def counted(*args: Any, **kwargs: Any) -> user_git.UserHistory:
        walks.append(args[1])
        return real_walk(*args, **kwargs)

    monkeypatch.setattr(user_git, "_answers", type(user_git._answers)())
    monkeypatch.setattr(user_git, "_walk", counted)
    with Vault.open(root) as vault:
        vault.reconcile()
        first = vault.history.user_versions("cl_a")["versions"]
        again = vault.history.user_versions("cl_a")["versions"]
        assert again == first
        assert len(walks) == 1
        again[0]["reason"] = "changed by a caller"  # a caller's edit never reaches the kept answer
        assert vault.history.user_versions("cl_a")["versions"] == first
        commit_files(
            repo,
            "refs/heads/main",
            {NEW: claim(3, "Third.\n")},
            "edit tea again",
            epoch("2024-05-01T10:00:00"),
        )
        newest = vault.history.user_versions("cl_a")["versions"]
        assert len(walks) == 2
        assert newest[0]["reason"] == "edit tea again"


def test_the_merge_keeps_checkpoint_order_when_a_baseline_is_stamped_after_its_publication() -> None:
    """The first publication makes the baseline while it commits, so the baseline's time
    can be a second later than the publication's own; the list still reads in commit order."""
    from knowledge_desktop.engine.vault_history import _merge_newest_first

    publish = {"commit": "p", "at": "2026-12-02T10:00:00Z"}
    baseline = {"commit": "b", "at": "2026-12-02T10:00:01Z"}
    theirs = [{"commit": "u2", "at": "2026-12-02T10:00:00Z"}, {"commit": "u1", "at": "2024-01-01T10:00:00Z"}]
    merged = _merge_newest_first([publish, baseline], theirs)
    assert [r["commit"] for r in merged] == ["p", "b", "u2", "u1"]
    newer = [{"commit": "u3", "at": "2026-12-03T00:00:00Z"}]
    assert [r["commit"] for r in _merge_newest_first([publish, baseline], newer)] == ["u3", "p", "b"]
