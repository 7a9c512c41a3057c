"""Packing the checkpoint repository (issue 15, §4: packed as Git does): past the pack
limit the small packs are written again as one and a big one is left as it is."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.history import repo as hrepo


def blobs(repo: pygit2.Repository, tag: str, count: int) -> list[pygit2.Oid]:
    return [repo.create_blob(f"{tag} {n} ".encode() * 40) for n in range(count)]


def test_past_the_limit_the_small_packs_become_one_and_a_big_one_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hrepo, "PACK_LIMIT", 5)
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    written = blobs(repo, "big", 400)
    hrepo.pack_loose(repo)
    (big,) = hrepo._packs(repo)
    for step in range(4):
        written += blobs(repo, f"small {step}", 3)
        hrepo.pack_loose(repo)
    assert len(hrepo._packs(repo)) == 5
    written += blobs(repo, "last", 3)
    hrepo.pack_loose(repo)  # a sixth pack: past the limit
    packs = hrepo._packs(repo)
    assert big in packs  # twice the size of all the small ones: left alone
    assert len(packs) == 2
    assert sorted(hrepo._pack_ids(big)) == sorted(written[:400])
    fresh = pygit2.Repository(repo.path)
    for oid in written:
        assert fresh[oid].read_raw()


def test_packs_of_one_size_are_all_written_again_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hrepo, "PACK_LIMIT", 3)
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    written: list[pygit2.Oid] = []
    for step in range(4):
        written += blobs(repo, f"step {step}", 20)
        hrepo.pack_loose(repo)
    assert len(hrepo._packs(repo)) == 1
    fresh = pygit2.Repository(repo.path)
    assert sorted(fresh.odb) == sorted(written)
