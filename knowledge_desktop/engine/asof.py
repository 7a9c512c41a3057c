"""The vault as it was: a read-only `Vault` over one checkpoint's tree (issue 15, §3,
File › Open As Of…; engine side).

`open_as_of(root, at)` finds the checkpoint `at` names (a commit id or prefix, or the
newest checkpoint made at or before a date), writes that commit's tree out to a
temporary folder (each file read-only), and opens a `Vault` over it whose state lives in
a second temporary folder — never in the user's vault nor in its `.knowledge/`. The
projections are built by the ordinary reconcile, so every pane reads the past exactly as
it would read a vault checked out at that commit (spec: retrieval-and-dates, What is
rebuildable: projections are rebuilt from the files, history lives beside them).

The temporary state starts as a copy of the live one (its projections; the durable rows —
guards, journal, receipts — are emptied, as a fresh checkout has none), so the scan
re-parses only the files whose bytes differ between the checkpoint and now; a vault with
no usable live state is built from nothing. Either way the result is what a fresh scan of
the checkpoint's files gives (the reconciler's incremental runs equal full ones).

The returned vault is read-only (its publisher refuses writes and makes no checkpoint),
carries `as_of = {"commit", "at", "source": "checkpoint"}`, and removes both temporary
folders when closed. Materializing reports `progress("files", done, total)` per file and
stops at `cancel` with `Cancelled`; a cancel or a failure removes what was written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import Cancelled, QueryError, StateError
from knowledge_desktop.engine.fs.inside import inside
from knowledge_desktop.engine.history.index import iso
from knowledge_desktop.engine.history.repo import ensure_sound
from knowledge_desktop.engine.reconcile import Progress
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_history import VaultHistory
from knowledge_desktop.engine.vault_state import (
    MANIFEST,
    STATE_DB,
    STATE_DIR,
    cache_state_dir,
    leaves_vault,
    write_manifest,
)
from knowledge_desktop.engine.versions.when import (
    CHECKPOINT,
    checkpoint_repo,
    checkpoint_tip,
    lookup_commit,
    newest_at_or_before,
    parse_at,
)

SKIPPED_TOP = frozenset({STATE_DIR, ".git"})
"""Top-level names never written out: the app's state and a repository's own folder."""
BAD_NAMES = frozenset({"", ".", ".."})


def open_as_of(
    root: str | os.PathLike[str] | Vault,
    at: str,
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    seed: bool = True,
) -> Vault:
    """A read-only vault over the checkpoint `at` names; see the module docstring.

    With `seed` the temporary state starts as a copy of the live projections (durable
    rows dropped), so the scan re-parses only the files that differ from now; without,
    or when the live state cannot be copied, it is built from nothing."""
    state_dir = _state_dir_of(root)
    repo = checkpoint_repo(state_dir)
    if repo is None:
        raise QueryError("this vault has no checkpoints yet, so it cannot be opened as of a past moment")
    commit = _resolve(repo, at)
    base = Path(tempfile.mkdtemp(prefix="knowledge-asof-"))
    vault_root = _vault_root(root)
    if inside(os.path.realpath(vault_root), os.path.realpath(base)):
        _remove(base)
        raise QueryError(f"the temporary folder {base} lies inside the vault; set TMPDIR elsewhere")
    tree_dir, past_state = base / "vault", base / "state"
    vault: Vault | None = None
    try:
        tree_dir.mkdir()
        past_state.mkdir()
        _materialize(repo, commit.tree, tree_dir, progress, cancel)
        vault_id = f"vlt_asof_{uuid.uuid4().hex}"
        if seed:
            _seed(root, state_dir, past_state / STATE_DB)
        store = Store(past_state / STATE_DB)
        _forget_durable(store)
        store.set_identity("vault_id", vault_id)
        write_manifest(past_state, vault_id)
        vault = Vault(tree_dir, past_state, store, True, vault_id)
        vault.on_close.append(lambda: _remove(base))
        vault.as_of = {"commit": str(commit.id), "at": iso(commit.author.time), "source": CHECKPOINT}
        vault.reconcile(progress=progress, cancel=cancel)
    except BaseException:
        if vault is not None:
            vault.close()
        _remove(base)
        raise
    return vault


def checkpoint_choices(
    source: str | os.PathLike[str] | Vault | VaultHistory, limit: int = 50
) -> list[dict[str, Any]]:
    """The newest checkpoint commits, for a picker: [{commit, at, operation, author}]."""
    state_dir = source.state_dir if isinstance(source, VaultHistory) else _state_dir_of(source)
    repo = checkpoint_repo(state_dir)
    if repo is None:
        return []
    out: list[dict[str, Any]] = []
    walker = repo.walk(checkpoint_tip(repo))
    walker.simplify_first_parent()
    for commit in walker:
        operation = next(
            (
                line[len("Operation: ") :]
                for line in commit.message.splitlines()
                if line.startswith("Operation: ")
            ),
            None,
        )
        out.append(
            {
                "commit": str(commit.id),
                "at": iso(commit.author.time),
                "operation": operation,
                "author": commit.author.name,
            }
        )
        if len(out) >= limit:
            break
    return out


DROPPED = ("lifecycle_guards_v1", "keyword_withdrawals_v1", "git_outbox", "receipts", "provenance", "history")
"""Durable tables a seeded state empties: the past view is judged from its files alone, as
a fresh checkout would be (guards of later withdrawals must not mark it), and has no
write side. `journal_files` and `journal` go too (after these, which may point at them)."""
FORGOTTEN_IDENTITY = ("state_lost_at", "state_lost_reason", "state_damaged")


def _seed(root: str | os.PathLike[str] | Vault, state_dir: Path, target: Path) -> None:
    """Copy the live database to `target`; on any failure leave no file (a cold scan)."""
    try:
        if isinstance(root, Vault):
            root.store.backup_to(target)
            return
        live = state_dir / STATE_DB
        if not live.is_file():
            return
        source = sqlite3.connect(f"{live.as_uri()}?mode=ro", uri=True)
        try:
            dest = sqlite3.connect(target)
            try:
                source.backup(dest)
            finally:
                dest.close()
        finally:
            source.close()
    except (sqlite3.Error, OSError, StateError):
        for leftover in target.parent.glob(f"{target.name}*"):
            leftover.unlink(missing_ok=True)


def _forget_durable(store: Store) -> None:
    """Empty what a seeded copy carried of the live vault's durable state (a no-op on a new
    database). Deleting guard rows bumps the guard version, so the scan re-derives the
    records they had marked."""
    with store.write() as tx:
        for table in (*DROPPED, "journal_files", "journal"):
            tx.execute(f"DELETE FROM {table}")
        tx.execute(
            f"DELETE FROM store_identity WHERE key IN ({','.join('?' * len(FORGOTTEN_IDENTITY))})",
            FORGOTTEN_IDENTITY,
        )


def _vault_root(root: str | os.PathLike[str] | Vault) -> Path:
    return root.root if isinstance(root, Vault) else Path(root).expanduser().resolve()


def _state_dir_of(root: str | os.PathLike[str] | Vault) -> Path:
    """Where the vault's checkpoint repository is: its `.knowledge/`, or the cache folder
    `vault_state` uses when `.knowledge/` cannot be used."""
    if isinstance(root, Vault):
        return root.state_dir
    folder = Path(root).expanduser().resolve()
    own = folder / STATE_DIR
    if (own / MANIFEST).is_file() and not leaves_vault(folder, own):
        return own
    return cache_state_dir(folder)


def _resolve(repo: Any, at: str) -> Any:
    moment = parse_at(at)
    if moment.commit is not None:
        commit = lookup_commit(repo, moment.commit)
        if commit is None:
            raise QueryError(f"no checkpoint {moment.commit!r}: only the app's checkpoints can be opened")
        return commit
    assert moment.instant is not None
    commit = newest_at_or_before(repo, checkpoint_tip(repo), moment.instant)
    if commit is None:
        raise QueryError(f"no checkpoint was made at or before {at}")
    return commit


def _entries(repo: Any, tree: Any, base: Path, top: bool = True) -> Iterator[tuple[Path, Any]]:
    """(file to write, blob id) of every regular file in `tree`; links, submodules and
    names that could leave the folder are left out. Each tree is checked sound before it
    is read (libgit2 never returns from a truncated loose object)."""
    for entry in tree:
        name = entry.name
        if (
            name in BAD_NAMES
            or "/" in name
            or "\\" in name
            or "\x00" in name
            or (top and name in SKIPPED_TOP)
        ):
            continue
        if entry.type_str == "tree":
            ensure_sound(repo, entry.id)
            yield from _entries(repo, entry, base / name, False)
        elif entry.type_str == "blob" and stat.S_ISREG(entry.filemode):
            yield base / name, entry.id


def _materialize(
    repo: Any,
    tree: Any,
    folder: Path,
    progress: Callable[[str, int, int], None] | None,
    cancel: threading.Event | None,
) -> None:
    ensure_sound(repo, tree.id)
    files = list(_entries(repo, tree, folder))
    total = len(files)
    made: set[Path] = {folder}
    for done, (path, blob_id) in enumerate(files, 1):
        if cancel is not None and cancel.is_set():
            raise Cancelled
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.update(path.parents)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o444)
        ensure_sound(repo, blob_id)
        with os.fdopen(fd, "wb") as out:
            out.write(repo[blob_id].data)
        if progress is not None:
            progress("files", done, total)


def _remove(folder: Path) -> None:
    """Remove a temporary folder, read-only files included."""

    def writable(func: Callable[..., Any], path: str, _exc: BaseException) -> None:
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IWRITE | stat.S_IREAD)
            func(path)

    if sys.version_info >= (3, 12):
        shutil.rmtree(folder, onexc=writable)
    else:  # Python 3.11
        shutil.rmtree(folder, onerror=lambda func, path, info: writable(func, path, info[1]))
