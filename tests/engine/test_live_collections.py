"""A live reader keeps the partition's collections between calls (issue 28 §3): the folders are
walked for collection markers once, not on every call, and walked again only after the watcher
reported a marker or a folder — before the call that follows answers, so a marker written,
rewritten or removed, or a folder moved, just before a call (no pause) counts in that call.
Reads are counted, not timed."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.api.extension import Extension, open_extension
from knowledge_desktop.engine.api import collections
from knowledge_desktop.engine.api.collections import MARKER, may_change_collections
from knowledge_desktop.engine.live_vault import Freshness
from tests.engine.api import docs_kit
from tests.vaultkit import VaultKit, envelope, record_text

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

SLOW_DEBOUNCE = {"debounce_s": 60.0, "max_batch_wait_s": 120.0}
"""A quiet gap no test waits out: what a call sees, its own sync delivered."""
ACTOR = "extension:diarist"


class Reads:
    """How many times a partition's folders were walked for collection markers."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        reads = self

        class Counted(collections.CollectionIndex):
            def __init__(self, partition: Path) -> None:
                reads.count += 1
                super().__init__(partition)

        monkeypatch.setattr(collections, "CollectionIndex", Counted)


def marker(folder: Path, col_id: str, created_by: str = ACTOR) -> None:
    """Write `folder`'s collection marker in one write (as a sync tool would bring it)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {"id": col_id, "name": folder.name, "created_by": created_by, "created_at": "2026-09-28"}
    (folder / MARKER).write_text(json.dumps(data), encoding="utf-8")


def note(path: Path, record_id: str, title: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(envelope(record_id, "page", title, type="note")), encoding="utf-8")


def found(ext: Extension, word: str = "lantern") -> list[str]:
    return sorted(h.record.path for h in ext.grep(word).hits)


@pytest.fixture
def live(kit: VaultKit) -> Iterator[Extension]:
    """The extension `diarist` on a vault whose `private/shelf/` holds a note "Lantern shelf",
    not yet in any collection; kept live, with a quiet gap no test waits out."""
    kit.page("private/shelf/lamp.md", "pg_lamp", "Lantern shelf", type="note")
    vault = kit.scan()
    docs_kit.install(vault)
    kit.close()
    with open_extension(kit.root, "diarist", live=True, **SLOW_DEBOUNCE) as ext:
        yield ext


def test_the_collections_are_read_once_while_nothing_changes(
    live: Extension, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = Reads(monkeypatch)
    for _ in range(5):
        assert found(live) == []
        assert live.lookup("Lantern shelf").status == "missing"
    assert live.freshness == Freshness("live")
    assert reads.count == 1
    # a note saved meanwhile is reconciled, and changes no collection
    note(live.vault.root / "private/shelf/wick.md", "pg_wick", "Lantern wick")
    assert found(live) == []
    assert reads.count == 1


def test_a_marker_written_just_before_a_call_counts_in_it(
    live: Extension, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = Reads(monkeypatch)
    shelf = live.vault.root / "private/shelf"
    assert found(live) == []
    marker(shelf, "col_shelf")
    assert found(live) == ["private/shelf/lamp.md"]
    assert found(live) == ["private/shelf/lamp.md"]
    assert reads.count == 2
    marker(shelf, "col_shelf", created_by="extension:someone-else")  # rewritten in place
    assert found(live) == []
    marker(shelf, "col_shelf")
    assert found(live) == ["private/shelf/lamp.md"]
    (shelf / MARKER).unlink()
    assert found(live) == []
    assert reads.count == 5
    assert live.freshness == Freshness("live")


def test_a_folder_moved_just_before_a_call_counts_in_it(
    live: Extension, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    reads = Reads(monkeypatch)
    root = live.vault.root
    marker(root / "private/shelf", "col_shelf")
    assert found(live) == ["private/shelf/lamp.md"]
    os.replace(root / "private/shelf", root / "private/cupboard")  # the marker moves with it
    assert found(live) == ["private/cupboard/lamp.md"]
    # a folder whose name looks like a note's, brought in from outside the vault
    crate = tmp_path / "outside" / "crate.md"
    marker(crate, "col_crate")
    note(crate / "candle.md", "pg_candle", "Lantern candle")
    assert found(live) == ["private/cupboard/lamp.md"]
    os.replace(crate, root / "private/crate.md")
    assert found(live) == ["private/crate.md/candle.md", "private/cupboard/lamp.md"]
    shutil.rmtree(root / "private/cupboard")
    assert found(live) == ["private/crate.md/candle.md"]
    assert reads.count == 4


def test_a_call_that_walks_reads_the_collections_again(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the watcher's word (polling here), nothing is kept between calls."""
    kit.page("private/shelf/lamp.md", "pg_lamp", "Lantern shelf", type="note")
    vault = kit.scan()
    docs_kit.install(vault)
    kit.close()
    with open_extension(kit.root, "diarist", live=True, force_polling=True) as ext:
        reads = Reads(monkeypatch)
        assert found(ext) == []
        marker(kit.root / "private/shelf", "col_shelf")
        assert found(ext) == ["private/shelf/lamp.md"]
        assert ext.freshness == Freshness("walked", "polling was requested")
        assert reads.count == 2


@pytest.mark.parametrize(
    ("rel", "is_directory", "expected"),
    [
        ("private/shelf/.collection.json", False, True),
        ("private/shelf", True, True),
        ("private/node_modules/shelf", True, True),  # the index walks what the scan ignores
        ("private/shelf/lamp.md", False, False),
        ("private/.trash/shelf/.collection.json", False, False),  # hidden: never walked
        ("private/.stash", True, False),
        ("private/shelf/.collection.json.abc.tmp", False, False),
    ],
)
def test_what_may_change_the_collections(rel: str, is_directory: bool, expected: bool) -> None:
    assert may_change_collections(rel, is_directory) is expected
