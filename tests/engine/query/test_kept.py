"""Search reads kept between searches (`query/kept.py`): used only while nothing was
committed by another connection, and bounded."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.engine.query import kept


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection]]:
    kept.forget()
    writer = sqlite3.connect(tmp_path / "state.sqlite", isolation_level=None)
    writer.execute("CREATE TABLE t (x)")
    reader = sqlite3.connect(tmp_path / "state.sqlite", isolation_level=None)
    yield reader, writer
    kept.forget()
    reader.close()
    writer.close()


def test_a_kept_read_is_used_until_another_connection_commits(
    pair: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    reader, writer = pair
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        return int(reader.execute("SELECT count(*) FROM t").fetchone()[0])

    assert kept.kept(reader, "n", read, lambda _: 8) == 0
    assert kept.kept(reader, "n", read, lambda _: 8) == 0
    assert len(reads) == 1
    writer.execute("INSERT INTO t VALUES (1)")
    assert kept.kept(reader, "n", read, lambda _: 8) == 1
    assert len(reads) == 2


def test_kept_reads_are_bounded_oldest_first(
    pair: tuple[sqlite3.Connection, sqlite3.Connection], monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, _ = pair
    reads: list[str] = []

    def get(key: str, size: int = 8) -> None:
        kept.kept(reader, key, lambda: reads.append(key), lambda _: size)

    monkeypatch.setattr(kept, "MOST_ENTRIES", 2)
    get("a")
    get("b")
    get("a")  # used again: "b" is now the oldest
    get("c")
    assert reads == ["a", "b", "c"]
    get("a")
    get("b")
    assert reads == ["a", "b", "c", "b"]
    monkeypatch.setattr(kept, "MOST_BYTES", 100)
    get("big", 101)  # larger than the whole bound: returned, not kept
    get("big", 101)
    assert reads[-2:] == ["big", "big"]


def test_lasting_reads_are_not_pushed_out_by_others(
    pair: tuple[sqlite3.Connection, sqlite3.Connection], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What every search reads (a partition's layout) is kept under its own bound, so a
    stream of different words' postings never makes each search read it again."""
    reader, _ = pair
    reads: list[str] = []
    monkeypatch.setattr(kept, "MOST_ENTRIES", 2)
    monkeypatch.setattr(kept, "MOST_BYTES", 100)
    kept.kept(reader, "layout", lambda: reads.append("layout"), lambda _: 60, lasting=True)
    for word in ("a", "b", "c"):
        kept.kept(reader, word, lambda w=word: reads.append(w), lambda _: 60)  # type: ignore[misc]
    kept.kept(reader, "layout", lambda: reads.append("layout"), lambda _: 60, lasting=True)
    assert reads == ["layout", "a", "b", "c"]
    monkeypatch.setattr(kept, "MOST_LASTING_ENTRIES", 1)
    kept.kept(reader, "other", lambda: reads.append("other"), lambda _: 8, lasting=True)
    kept.kept(reader, "layout", lambda: reads.append("layout"), lambda _: 60, lasting=True)
    assert reads[-2:] == ["other", "layout"]  # bounded too, oldest first out


class _Held:
    """A kept value a weak reference can watch."""


def test_what_a_connection_kept_before_a_commit_is_let_go_at_its_next_read(
    pair: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    import gc
    import weakref

    reader, writer = pair
    made = [_Held()]
    watched = weakref.ref(made[0])
    kept.kept(reader, ("term", "old"), made.pop, lambda _: 8)  # the only reference: kept's
    kept.kept(reader, ("layout", "p"), _Held, lambda _: 8, lasting=True)
    gc.collect()
    assert watched() is not None  # kept: its version is current
    writer.execute("INSERT INTO t VALUES (1)")
    kept.kept(reader, ("term", "new"), _Held, lambda _: 8)  # a different key, after the commit
    gc.collect()
    assert watched() is None  # never to be used again: not held either
    assert kept._BYTES[0] == 8
    assert kept._LASTING_BYTES[0] == 0
