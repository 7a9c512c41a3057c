"""The checkpoint repository: `.knowledge/history.git`, bare, the app's own (issue 15, §1).

Opened with `NO_SEARCH`, so a vault inside the user's Git repository never adopts it;
made with no remote. Objects are written loose as commits are made and packed, like
`git gc --auto`, once enough loose ones pile up (`maybe_pack`), so the repository stays
a small multiple of the vault (deltas between a folder's successive trees are tiny).
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
import zlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.lazy import installed, lazy_module
from knowledge_desktop.engine.visible_text import one_line

if TYPE_CHECKING:
    import pygit2
else:
    pygit2 = lazy_module("pygit2")  # imported by the first history read (engine/lazy.py)

HAVE_PYGIT2 = installed("pygit2")
"""pygit2 is a dependency; callers say why when it is missing all the same."""

REPO_DIR = "history.git"
BRANCH = "refs/heads/checkpoints"
COMMITTER = ("Knowledge Desktop", "knowledge-desktop@localhost")
LOOSE_LIMIT = 2000
"""Pack the loose objects once about this many have piled up (git's gc.auto is 6700; a
single-file publication writes 3–5 objects, one of them a whole folder's tree)."""
LOOSE_BYTES = 32 << 20
"""…or once about this many bytes of loose objects have: a big folder's tree is written
loose uncompressed (`history/splice.py`), 2.5 MB a checkpoint in a 45,000-file folder."""
PACK_LIMIT = 30
"""Past this many packs, they are written again as one (git's gc.autoPackLimit is 50)."""
GITIGNORE = ".gitignore"


@cache
def git_errors() -> tuple[type[BaseException], ...]:
    """What a broken, locked, corrupt or full repository raises through pygit2. A function,
    so that naming it in an `except` clause imports pygit2 only once something failed."""
    return (pygit2.GitError, OSError, ValueError, KeyError) if HAVE_PYGIT2 else (OSError, ValueError)


def unavailable_reason() -> str | None:
    """Why no checkpoint can be made at all, or None."""
    return None if HAVE_PYGIT2 else "pygit2 is not installed"


def ensure_ignored(state_dir: Path) -> None:
    """`.knowledge/.gitignore` of `*`, so a user's own repository never sees the app's state."""
    ignore = state_dir / GITIGNORE
    if not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_bytes(b"*\n")


def open_repo(state_dir: Path, create: bool) -> Any:
    """The checkpoint repository (made when `create`, else None when absent); never one
    found by searching upward from the vault."""
    path = state_dir / REPO_DIR
    if not path.exists():
        if not create:
            return None
        ensure_ignored(state_dir)
        return pygit2.init_repository(str(path), bare=True, initial_head="checkpoints")
    return pygit2.Repository(
        str(path), pygit2.enums.RepositoryOpenFlag.NO_SEARCH | pygit2.enums.RepositoryOpenFlag.BARE
    )


def has_commits(state_dir: Path) -> bool:
    """Whether the branch exists, from the files alone (cheap: asked on every watcher batch)."""
    repo = state_dir / REPO_DIR
    if (repo / BRANCH).exists():
        return True
    try:
        return BRANCH in (repo / "packed-refs").read_text(errors="replace")
    except OSError:
        return False


def head(repo: Any) -> Any:
    """The newest checkpoint commit, or None before the first (its commit and root tree
    checked sound first: every checkpoint starts by reading them)."""
    ref = repo.references.get(BRANCH)
    if ref is None:
        return None
    ensure_sound(repo, ref.target)
    commit = repo[ref.target]
    ensure_sound(repo, commit.tree_id)
    return commit


_sound: set[tuple[str, str]] = set()
_sound_lock = threading.Lock()


def ensure_sound(repo: Any, oid: Any) -> None:
    """Raise ValueError when `oid`'s loose object file is not a whole zlib stream.

    libgit2 never returns from inflating a truncated loose object (it spins), so a
    checkpoint that read one would hold the write lock forever and every later open
    would hang retrying it. Loose objects are checked once per process before they are
    read; packed ones carry their own checksums and are left to libgit2."""
    hex_id = str(oid)
    key = (str(repo.path), hex_id)
    with _sound_lock:
        if key in _sound:
            return
    path = Path(repo.path) / "objects" / hex_id[:2] / hex_id[2:]
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return  # packed, or missing: libgit2 says so itself
    stream = zlib.decompressobj()
    try:
        while data and not stream.eof:
            stream.decompress(data, 1 << 20)
            data = stream.unconsumed_tail
    except zlib.error as exc:
        raise ValueError(f"checkpoint object {hex_id} is corrupt ({exc})") from None
    if not stream.eof:
        raise ValueError(f"checkpoint object {hex_id} is truncated")
    with _sound_lock:
        _sound.add(key)


def mark_sound(repo: Any, oid: Any) -> None:
    """`oid`'s loose object was written whole by this process: no need to check it."""
    with _sound_lock:
        _sound.add((str(repo.path), str(oid)))


_loose_bytes: dict[str, int] = {}


def note_written(repo: Any, oid: Any, size: int) -> None:
    """A loose object of `size` bytes written by this process (`history/splice.py`):
    sound, and counted towards `LOOSE_BYTES`."""
    mark_sound(repo, oid)
    with _sound_lock:
        if str(repo.path) in _loose_bytes:
            _loose_bytes[str(repo.path)] += size


def loose_bytes(repo: Any) -> int:
    """About how many bytes the loose objects take: every loose file measured once per
    process, then what this process writes itself added (libgit2's own small objects
    are left to the count, `loose_estimate`)."""
    key = str(repo.path)
    with _sound_lock:
        known = _loose_bytes.get(key)
    if known is not None:
        return known
    total = 0
    for _, path in _loose_files(repo):
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    with _sound_lock:
        _loose_bytes[key] = total
    return total


def _loose_files(repo: Any) -> list[tuple[str, Path]]:
    objects = Path(repo.path) / "objects"
    out: list[tuple[str, Path]] = []
    for fan in os.listdir(objects):
        if len(fan) != 2:
            continue
        with contextlib.suppress(OSError):
            out.extend((fan + name, objects / fan / name) for name in os.listdir(objects / fan))
    return out


def loose_estimate(repo: Any) -> int:
    """About how many loose objects there are, from one fan-out folder (as git estimates)."""
    try:
        return len(os.listdir(Path(repo.path) / "objects" / "17")) * 256
    except OSError:
        return 0


def maybe_pack(repo: Any, loose_limit: int | None = None) -> int:
    """Pack the loose objects when about `loose_limit` (`LOOSE_LIMIT`) have piled up, or
    their bytes pass `LOOSE_BYTES` (scaled as `loose_limit` is); how many were packed."""
    limit = LOOSE_LIMIT if loose_limit is None else loose_limit
    if loose_estimate(repo) < limit and loose_bytes(repo) < LOOSE_BYTES * limit / LOOSE_LIMIT:
        return 0
    return pack_loose(repo)


def pack_loose(repo: Any) -> int:
    """Write every loose object into one new pack, then remove the loose copies; packs
    are written again as one when there are more than `PACK_LIMIT`."""
    loose = _loose_files(repo)
    if loose:

        def add(builder: Any) -> None:
            for hex_id, _ in loose:
                builder.add(pygit2.Oid(hex=hex_id))

        repo.pack(pack_delegate=add)
        for _, path in loose:
            with contextlib.suppress(OSError):
                path.unlink()
        with _sound_lock:
            _loose_bytes[str(repo.path)] = 0
    _consolidate(repo)
    return len(loose)


def _packs(repo: Any) -> set[Path]:
    return set((Path(repo.path) / "objects" / "pack").glob("pack-*.pack"))


def _consolidate(repo: Any) -> None:
    """Past `PACK_LIMIT` packs, write the smaller ones again as one, as
    `git repack --geometric=2` does: from the smallest up, until a pack at least twice
    as big as all the smaller ones together. libgit2 finds every delta afresh, so
    writing every pack again (the baseline's 100k blobs with them) would cost more each
    time; this way an object is written again about log₂(packs made) times."""
    packs = sorted(_packs(repo), key=_size)
    if len(packs) <= PACK_LIMIT:
        return
    merged: list[Path] = []
    total = 0
    for pack in packs:
        size = _size(pack)
        if len(merged) >= 2 and size >= 2 * total:
            break
        merged.append(pack)
        total += size
    ids = [oid for pack in merged for oid in _pack_ids(pack)]

    def add(builder: Any) -> None:
        for oid in ids:
            builder.add(oid)

    before = _packs(repo)
    repo.pack(pack_delegate=add)
    if not _packs(repo) - before:
        return
    for pack in merged:
        for suffix in (".pack", ".idx", ".rev"):
            with contextlib.suppress(OSError):
                pack.with_suffix(suffix).unlink()


def _size(pack: Path) -> int:
    try:
        return pack.stat().st_size
    except OSError:
        return 0


def _pack_ids(pack: Path) -> list[Any]:
    """The ids a pack holds, from its index (version 2: after the 8-byte header, 256
    fan-out counts, the last of which is the number of objects, then the sorted ids)."""
    data = pack.with_suffix(".idx").read_bytes()
    if data[:8] != b"\377tOc\0\0\0\2":
        raise ValueError(f"{pack.name}: not a version 2 pack index")
    (count,) = struct.unpack_from(">I", data, 8 + 255 * 4)
    start = 8 + 256 * 4
    return [pygit2.Oid(raw=data[start + 20 * n : start + 20 * n + 20]) for n in range(count)]


def email_of(actor: str) -> str:
    address = actor[len("email:") :]
    if actor.startswith("email:") and "@" in address and _signable(address):
        return address
    return "unknown@knowledge-desktop.invalid"


def _signable(text: str) -> bool:
    """Whether Git takes `text` in a signature as it is (no control character, < or >)."""
    return one_line(text) == text and "<" not in text and ">" not in text


def make_commit(repo: Any, tree: Any, parent: Any, author: str, when: int, message: str) -> Any:
    """Commit `tree` on the checkpoint branch after `parent` (None for the first)."""
    # Git refuses a signature whose name holds a control character, < or >: such an actor
    # (the journal keeps it exact) is written escaped, so the checkpoint is never refused.
    name = author if _signable(author) else one_line(author).replace("<", "\\x3c").replace(">", "\\x3e")
    sig = pygit2.Signature(name, email_of(author), when, 0)
    committer = pygit2.Signature(*COMMITTER, when, 0)
    parents = [] if parent is None else [parent.id]
    return repo[repo.create_commit(BRANCH, sig, committer, message, tree, parents)]
