"""Spliced trees (issue 15, §4): a big folder's tree changed entry by entry in memory and
written by hand is the tree libgit2 builds from the same entries, and the repository
stays readable object by object, before and after packing."""

from __future__ import annotations

import hashlib
import os
import random
import zlib
from pathlib import Path

import pygit2
import pytest
from pygit2.enums import FileMode

from knowledge_desktop.engine.history import repo as hrepo
from knowledge_desktop.engine.history import splice, trees
from knowledge_desktop.engine.history.splice import write_loose
from knowledge_desktop.engine.write import checkpoints
from tests.engine.history.gitkit import repo_of, withdraw
from tests.vaultkit import VaultKit

# names that sort around a subfolder's implied `/`: `-` and `.` come before `/`, `0` after
NAMES = ["a", "a.md", "a-b", "a0", "a.b", "a_b", "ab", "b", "é.md", "z", "a b", "A"]


def builder_tree(repo: pygit2.Repository, entries: dict[str, tuple[pygit2.Oid, bool]]) -> pygit2.Oid:
    builder = repo.TreeBuilder()
    for name, (oid, folder) in entries.items():
        builder.insert(name, oid, FileMode.TREE if folder else FileMode.BLOB)
    return builder.write()


def read_back_everything(repo: pygit2.Repository) -> int:
    """What `git fsck` checks that matters here: every object reads whole, a loose one's
    file hashes to its name, and every id a tree or commit names is there."""
    count = 0
    for oid in repo.odb:
        _kind, data = repo.odb.read(oid)
        obj = repo[oid]
        count += 1
        if isinstance(obj, pygit2.Tree):
            assert splice.tree_id(data) == oid
            for entry in obj:
                assert entry.id in repo, f"{oid} names missing {entry.id}"
        elif isinstance(obj, pygit2.Commit):
            assert obj.tree_id in repo
    objects = Path(repo.path) / "objects"
    for fan in (d for d in os.listdir(objects) if len(d) == 2):
        for name in os.listdir(objects / fan):
            raw = zlib.decompress((objects / fan / name).read_bytes())
            assert hashlib.sha1(raw).hexdigest() == fan + name
    return count


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spliced_trees_are_the_trees_libgit2_builds(tmp_path: Path, seed: int) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    rng = random.Random(seed)
    sub = repo.TreeBuilder()
    sub.insert("inner.md", repo.create_blob(b"inner\n"), FileMode.BLOB)
    folder_id = sub.write()
    wanted: dict[str, tuple[pygit2.Oid, bool]] = {}
    spliced = splice.Entries()
    for step in range(200):
        name = rng.choice(NAMES)
        roll = rng.random()
        if roll < 0.2:
            wanted.pop(name, None)
            spliced.remove(name)
        else:
            folder = roll < 0.45  # `a` as a subfolder sorts as `a/`: after `a.md` and `a-b`
            oid = folder_id if folder else repo.create_blob(f"{name} {step}\n".encode())
            wanted[name] = (oid, folder)
            spliced.set(name, oid, folder)
        for name_, (oid, folder) in wanted.items():
            assert spliced.get(name_) == (oid, folder)
        expected = builder_tree(repo, wanted)
        assert splice.write(repo, spliced, stored=step % 2 == 0) == expected
        again = splice.Entries.parse(repo.odb.read(expected)[1])  # what a fresh read gives
        assert (again.keys, again.raw) == (spliced.keys, spliced.raw)
    assert read_back_everything(repo) > 0


def test_a_parsed_tree_changed_in_the_middle_matches_libgit2(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    blob = repo.create_blob(b"x\n")
    names = {f"c{n:04}.md": (blob, False) for n in range(300)}
    names["c0150"] = (builder_tree(repo, {"x": (blob, False)}), True)
    entries = splice.Entries.parse(repo.odb.read(builder_tree(repo, names))[1])
    new = repo.create_blob(b"changed\n")
    for change in ("c0150.md", "c0150", "c0150.mdx", "c0150-"):
        entries.set(change, new, folder=False)
        names[change] = (new, False)
    entries.remove("c0000.md")
    del names["c0000.md"]
    assert splice.write(repo, entries, stored=True) == builder_tree(repo, names)


def test_a_stored_object_is_never_rewritten(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    entries = splice.Entries()
    entries.set("a.md", repo.create_blob(b"a\n"), folder=False)
    oid = splice.write(repo, entries, stored=True)
    path = Path(repo.path) / "objects" / str(oid)[:2] / str(oid)[2:]
    before = path.stat()
    assert splice.write(repo, entries, stored=True) == oid
    assert path.stat().st_ino == before.st_ino
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert not [p for p in (Path(repo.path) / "objects").iterdir() if p.name.startswith("tmp_")]


def test_checkpoints_through_a_big_folder_leave_a_readable_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many checkpoints through big (spliced, kept) folders: every tree equals a fresh
    build, everything reads back, and packing by bytes takes the stored trees in."""
    monkeypatch.setattr(trees, "BIG_FOLDER", 5)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    files = {f"private/claims/{n}": f"{n}\n".encode() for n in NAMES}
    files["private/claims/a/inner.md"] = b"inner\n"
    files["private/people/ada.md"] = b"ada\n"
    oid, _ = trees.apply(repo, None, files)
    rng = random.Random(4)
    for step in range(40):
        path = "private/claims/" + rng.choice([*NAMES, "a/inner.md", "new-" + str(step)])
        value = None if rng.random() < 0.2 else f"step {step}\n".encode()
        oid, _ = trees.apply(repo, repo[oid], {path: value})
        for other in [p for p in files if p.startswith(path + "/") or path.startswith(p + "/")]:
            del files[other]  # a file replaces a folder of that name, and the other way round
        if value is None:
            files.pop(path, None)
        else:
            files[path] = value
        assert repo[oid]["private/claims"] is not None
    kept = dict(trees._kept)
    trees._kept.clear()
    fresh, _ = trees.apply(repo, None, files)
    assert fresh == oid  # what building every folder afresh gives
    assert kept  # the claims folder was spliced from memory
    read_back_everything(repo)
    monkeypatch.setattr(hrepo, "loose_estimate", lambda repo: 0)  # only the bytes can trigger it
    monkeypatch.setattr(hrepo, "LOOSE_BYTES", 1)
    hrepo._loose_bytes.pop(str(repo.path), None)
    assert hrepo.maybe_pack(repo) > 0
    assert hrepo._loose_files(repo) == []
    read_back_everything(repo)
    assert repo[oid]["private/claims/b"].data == files["private/claims/b"]


def test_loose_bytes_count_what_is_on_disk_and_what_is_written(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    repo.create_blob(b"x" * 1000)
    hrepo._loose_bytes.pop(str(repo.path), None)
    on_disk = hrepo.loose_bytes(repo)
    assert on_disk > 0
    entries = splice.Entries()
    entries.set("big.md", repo.create_blob(b"y\n"), folder=False)
    oid = splice.write(repo, entries, stored=True)
    size = (Path(repo.path) / "objects" / str(oid)[:2] / str(oid)[2:]).stat().st_size
    assert hrepo.loose_bytes(repo) == on_disk + size
    hrepo.pack_loose(repo)
    assert hrepo.loose_bytes(repo) == 0


def test_a_full_disk_while_writing_a_big_folder_leaves_the_checkpoint_pending(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hand-written tree fails like libgit2's would: the publication stands, its
    checkpoint is pending with the reason, and the next flush commits it."""
    monkeypatch.setattr(trees, "BIG_FOLDER", 2)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    kit.claim("private/claims/cake.md", "cl_cake", "Ada likes cake")
    vault = kit.scan()
    assert vault.history.ensure_baseline() is not None

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(splice, "write_loose", full)
    receipt = withdraw(vault, "cl_tea", "rq-1")
    assert receipt["git"]["state"] == "pending"
    assert "No space left" in receipt["git"]["reason"]
    assert vault.find("cl_tea")[0]["lifecycle"] == "withdrawn"
    monkeypatch.setattr(splice, "write_loose", write_loose)
    checkpoints.flush(vault.state_dir, vault.store)
    repo = repo_of(vault)
    tip = repo[repo.references[hrepo.BRANCH].target]
    assert b"withdrawn" in tip.tree["private/claims/tea.md"].data
    read_back_everything(repo)


@pytest.mark.parametrize("sizes", [(), (0,), (1,), (10, 65534), (65535,), (7, 65536), (200_000, 3)])
def test_a_stored_stream_inflates_to_its_pieces(sizes: tuple[int, ...]) -> None:
    rng = random.Random(len(sizes))
    pieces = [bytes(rng.getrandbits(8) for _ in range(size)) for size in sizes]
    stream = b"".join(splice.stored_zlib(*pieces))
    assert zlib.decompress(stream) == b"".join(pieces)
    inflater = zlib.decompressobj()
    assert inflater.decompress(stream) == b"".join(pieces)
    assert inflater.eof  # a whole stream, as `ensure_sound` wants it
    assert not inflater.unused_data


def test_content_that_is_not_a_tree_is_refused_and_disorder_is_put_right() -> None:
    one, two = b"100644 b\0" + b"\1" * 20, b"40000 a\0" + b"\2" * 20
    with pytest.raises(ValueError, match="not a tree"):
        splice.Entries.parse(one + b"junk")
    with pytest.raises(ValueError, match="not a tree"):
        splice.Entries.parse(one[:-1])
    entries = splice.Entries.parse(one + two)
    assert entries.keys == [b"a/", b"b"]
    assert entries.raw == [two, one]


def test_a_write_cut_short_leaves_neither_object_nor_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    entries = splice.Entries()
    entries.set("a.md", repo.create_blob(b"a\n"), folder=False)
    objects = Path(repo.path) / "objects"
    before = {p for p in objects.rglob("*") if p.is_file()}

    def cut(*pieces: bytes) -> object:
        yield b"\x78\x01"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(splice, "stored_zlib", cut)
    with pytest.raises(OSError, match="No space left"):
        splice.write(repo, entries, stored=True)
    assert {p for p in objects.rglob("*") if p.is_file()} == before
    assert splice.tree_id(entries.content()) not in repo


def test_opening_a_vault_with_checkpoints_warms_its_big_folders(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trees, "BIG_FOLDER", 2)
    monkeypatch.setattr(trees, "_kept", type(trees._kept)())
    kit.claim("private/claims/tea.md", "cl_tea", "Ada likes tea")
    kit.claim("private/claims/cake.md", "cl_cake", "Ada likes cake")
    vault = kit.scan()
    assert vault.history.ensure_baseline() is not None
    trees._kept.clear()  # as in a new process
    assert vault.history.ensure_baseline() is None  # there is one: its big folders are read
    repo = repo_of(vault)
    tip = repo[repo.references[hrepo.BRANCH].target]
    assert (repo.path, str(tip.tree["private/claims"].id)) in trees._kept
