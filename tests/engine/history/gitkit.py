"""Building Git history for the history tests: a user's own repository around a vault, and
checkpoint commits that hold a whole vault (made with pygit2, as the checkpoint engine's
own commits are)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import FileMode

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.operations.withdraw import plan_withdraw
from knowledge_desktop.engine.write.requests import make_request
from tests.vaultkit import read_fence

CHECKPOINTS = "refs/heads/checkpoints"
REPO_DIR = "history.git"


def withdraw(vault: Vault, record_id: str, request_id: str, actor: str = "grace") -> dict[str, Any]:
    """Withdraw a record through the publish path (a publication, hence a checkpoint)."""
    fence = read_fence(vault, record_id)
    payload = {"fence": f"{fence.record_id}:{fence.revision}:{fence.sha256}", "reason": "wrong"}
    request = make_request("withdraw", payload, request_id=request_id, actor=actor)
    return vault.write(request, lambda ctx: plan_withdraw(ctx, fence, "wrong"))


def repo_of(vault: Vault) -> pygit2.Repository:
    """The vault's checkpoint repository."""
    return pygit2.Repository(str(vault.state_dir / REPO_DIR))


def epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def commit_files(repo: pygit2.Repository, ref: str, files: dict[str, bytes], message: str, when: int) -> str:
    """A commit on `ref` whose tree is exactly `files` (path -> bytes), parent the ref's tip."""
    index = pygit2.Index()
    for path, data in sorted(files.items()):
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), FileMode.BLOB))
    tree = index.write_tree(repo)
    parents = [repo.references[ref].target] if ref in repo.references else []
    sig = pygit2.Signature("Ada", "ada@example.org", when, 0)
    return str(repo.create_commit(ref, sig, sig, message, tree, parents))


def vault_files(root: Path) -> dict[str, bytes]:
    """Every file of the vault folder but its state (`.knowledge/`), by vault path."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".knowledge"]
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def checkpoint_whole_vault(root: Path, state_dir: Path, when: int, message: str = "baseline") -> str:
    """A checkpoint commit (on the checkpoint branch) holding every file of the vault now."""
    path = state_dir / "history.git"
    repo = (
        pygit2.Repository(str(path))
        if path.exists()
        else pygit2.init_repository(str(path), bare=True, initial_head="checkpoints")
    )
    return commit_files(repo, CHECKPOINTS, vault_files(root), f"{message}\n\nOperation: observed\n", when)


def extract(repo: pygit2.Repository, commit: str, folder: Path) -> None:
    """Write a commit's tree out to `folder` (what `git checkout` of it would give)."""

    def walk(tree: pygit2.Tree, base: Path) -> None:
        for entry in tree:
            if isinstance(entry, pygit2.Tree):
                walk(entry, base / entry.name)
            else:
                (base / entry.name).parent.mkdir(parents=True, exist_ok=True)
                (base / entry.name).write_bytes(entry.data)

    folder.mkdir(parents=True)
    walk(repo[commit].tree, folder)


def git_dir_state(git_dir: Path) -> dict[str, tuple[int, int]]:
    """Every file of a repository folder with its size and modification time."""
    out = {}
    for dirpath, _dirnames, filenames in os.walk(git_dir):
        for name in filenames:
            st = (Path(dirpath) / name).stat()
            out[os.path.relpath(Path(dirpath) / name, git_dir)] = (st.st_size, st.st_mtime_ns)
    return out
