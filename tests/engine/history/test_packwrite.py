"""Blobs written straight into a pack (the baseline's way, `history/packwrite.py`): libgit2
reads every one back by its Git id, identical files are stored once, and a pack past its
size limit is finished and a new one begun."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from knowledge_desktop.engine.history import packwrite


def test_blobs_in_a_written_pack_read_back_by_their_git_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    monkeypatch.setattr(packwrite, "MAX_PACK_BYTES", 4000)
    datas = [f"file {n}\n".encode() * (n * 7) for n in range(200)]
    writer = packwrite.PackWriter(repo.path)
    ids = [writer.add(d) for d in datas]
    assert writer.add(datas[3]) == ids[3]
    writer.close()
    for data, raw in zip(datas, ids, strict=True):
        oid = pygit2.Oid(raw=raw)
        assert oid == repo.create_blob(data)  # the id Git gives those bytes
        assert repo[oid].data == data
    packs = list((Path(repo.path) / "objects" / "pack").glob("*.pack"))
    assert len(packs) > 1
    assert not list((Path(repo.path) / "objects" / "pack").glob("tmp-*"))
    loose = [p for d in (Path(repo.path) / "objects").iterdir() if len(d.name) == 2 for p in d.iterdir()]
    assert loose == []  # create_blob above found each object already there
