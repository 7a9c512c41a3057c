"""A scope's vectors for search by meaning, kept in memory between searches (issue 27:
query p50/p95 ≤ 30 ms at 100k records).

Both stages of `hybrid.neighbours` read from here: the files' own vectors (float32,
1 KB a file) and every passage's vector as int8 with one float32 scale a passage
(260 bytes a passage: 34 MB at 10k records, 338 MB at 100k's 1.3 M passages).
Reading the thousand candidates' passages from SQLite and widening their float16
was two thirds of a search at 100k (bench/RESULTS.md); int8 rather than float16 in
memory because it is half the bytes and widens to float32 fifteen times faster, and
its error (a standard deviation of 5e-4 of a cosine) only picks which files the search then scores
exactly from the stored float16 (`hybrid.neighbours`), so the scores it answers with
are the stored vectors' as before. float32 would be 1.3 GB at 100k.

What is kept is read again only when the scope's generation or the model changed
(`semantic_state_v1`, stamped by every change of its vectors), and then only the
files whose own vector changed have their passages read: a file whose vector is
byte for byte the same has the same passages (the vector is their mean; a reordering
keeps the same set, and so the same best passage), so an edit costs the one file's
row and a copy, not a second read of every passage. Held values are never changed,
only replaced, so a search on another thread keeps a consistent set.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from knowledge_desktop.engine.store.projections import semantic as projection

QUANT = 127.0
"""int8 levels each side of zero; a passage's scale maps its largest component to it."""


@dataclass(frozen=True, slots=True)
class Held:
    generation: int
    model: str | None
    matrix: NDArray[np.float32]
    """One row per file: the normalised mean of its passages' vectors (the first stage)."""
    paths: list[str]
    passages: NDArray[np.int8]
    """Every file's passage vectors, a file's rows together in `paths` order."""
    scales: NDArray[np.float32]
    """Per passage row: its int8 row times this is its vector, to about 4e-3 a component."""
    starts: NDArray[np.int64]
    """File i's passages are rows starts[i]:starts[i + 1] (len(paths) + 1 entries)."""

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.passages.nbytes + self.scales.nbytes + self.starts.nbytes)


STALE = -1
"""The generation of what was read while a commit changed it: reused by no search."""


def rows_of(starts: NDArray[np.int64], files: NDArray[np.int64]) -> NDArray[np.int64]:
    """The passage rows of `files` (indexes into `starts`), in that order, a file's together."""
    counts = starts[files + 1] - starts[files]
    ends = np.cumsum(counts)
    first: NDArray[np.int64] = np.repeat(starts[files] - (ends - counts), counts)
    return np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64) + first


_held: dict[tuple[str, str], Held] = {}
_lock = threading.Lock()


def held(conn: sqlite3.Connection, db: str, scope: str, dim: int) -> Held:
    """`scope`'s vectors in `db` as they are now, read again only in part after a change."""
    generation = projection.generation(conn, scope)
    model = projection.model_of(conn)
    with _lock:
        old = _held.get((db, scope))
    if old is not None and old.generation == generation and old.model == model:
        return old
    reuse = old is not None and old.model == model and old.generation != STALE
    fresh = _read(conn, scope, dim, generation, model, old if reuse else None)
    with _lock:
        _held[(db, scope)] = fresh
    return fresh


def forget() -> None:
    """Drop everything held (tests and benches start cold with it)."""
    with _lock:
        _held.clear()


def held_bytes(db: str) -> int:
    with _lock:
        return sum(h.nbytes for (d, _s), h in _held.items() if d == db)


def quantise(vectors: NDArray[np.float32]) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """Rows as int8 with a scale each (an all-zero row keeps scale 0). Scales `vectors`
    in place: a first read quantises 1.3 M passages at 100k, and every pass counts."""
    if not len(vectors):
        return np.zeros(vectors.shape, dtype=np.int8), np.zeros(0, dtype=np.float32)
    top = np.maximum(vectors.max(axis=1), -vectors.min(axis=1))
    inverse = np.divide(QUANT, top, out=np.zeros_like(top), where=top > 0)
    vectors *= inverse[:, None]
    np.rint(vectors, out=vectors)
    return vectors.astype(np.int8), (top / QUANT).astype(np.float32)


def _read(
    conn: sqlite3.Connection, scope: str, dim: int, generation: int, model: str | None, old: Held | None
) -> Held:
    paths: list[str] = []
    blobs: list[bytes] = []
    counts: list[int] = []
    width = dim * np.dtype(projection.STORED).itemsize
    for path, vector, size in conn.execute(
        "SELECT path, vector, length(passages) FROM semantic_records_v1 WHERE scope=? ORDER BY path", (scope,)
    ):
        paths.append(path)
        blobs.append(vector)
        counts.append(int(size) // width)
    matrix = np.frombuffer(b"".join(blobs), dtype=projection.STORED).reshape(-1, dim).astype(np.float32)
    del blobs
    starts = np.zeros(len(paths) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    same = _unchanged(old, paths, matrix, counts)
    passages = np.zeros((int(starts[-1]), dim), dtype=np.int8)
    scales = np.zeros(int(starts[-1]), dtype=np.float32)
    if old is not None and same.any():
        old_index = {p: i for i, p in enumerate(old.paths)}
        kept = np.flatnonzero(same)
        sources = np.array([old_index[paths[int(i)]] for i in kept], dtype=np.int64)
        for (a, b), (c, d) in _runs(starts, kept, old.starts, sources):
            passages[a:b] = old.passages[c:d]
            scales[a:b] = old.scales[c:d]
    missing = [paths[int(i)] for i in np.flatnonzero(~same)]
    place = {p: i for i, p in enumerate(paths)} if missing else {}
    complete = True
    files: list[int] = []
    blobs = []
    for path, blob in _passage_blobs(conn, scope, missing, len(paths)):
        i = place.get(path)
        if i is None:
            continue
        if len(blob) != (starts[i + 1] - starts[i]) * width:  # written since the listing
            complete = False
            continue
        files.append(i)
        blobs.append(blob)
        if len(files) == 2000:
            _quantise_into(passages, scales, starts, files, blobs, dim)
            files, blobs = [], []
    _quantise_into(passages, scales, starts, files, blobs, dim)
    if not complete:
        generation = STALE
    return Held(generation, model, matrix, paths, passages, scales, starts)


def _passage_blobs(
    conn: sqlite3.Connection, scope: str, missing: list[str], total: int
) -> Iterator[tuple[str, bytes]]:
    """(path, passages) of the `missing` files: by path when they are few, else the
    scope's rows in one sequential pass (a first read, or a rebuild)."""
    if len(missing) * 4 > total:
        yield from conn.execute("SELECT path, passages FROM semantic_records_v1 WHERE scope=?", (scope,))
        return
    for at in range(0, len(missing), 500):
        some = missing[at : at + 500]
        marks = ",".join("?" * len(some))
        yield from conn.execute(
            f"SELECT path, passages FROM semantic_records_v1 WHERE path IN ({marks})", some
        )


def _quantise_into(
    passages: NDArray[np.int8],
    scales: NDArray[np.float32],
    starts: NDArray[np.int64],
    files: list[int],
    blobs: list[bytes],
    dim: int,
) -> None:
    if files:
        rows = np.frombuffer(b"".join(blobs), dtype=projection.STORED).reshape(-1, dim)
        if files[-1] - files[0] == len(files) - 1:  # consecutive files: rows in one run
            a, b = int(starts[files[0]]), int(starts[files[-1] + 1])
            passages[a:b], scales[a:b] = quantise(rows.astype(np.float32))
        else:
            target = rows_of(starts, np.array(files, dtype=np.int64))
            passages[target], scales[target] = quantise(rows.astype(np.float32))


def _runs(
    starts: NDArray[np.int64],
    files: NDArray[np.int64],
    old_starts: NDArray[np.int64],
    sources: NDArray[np.int64],
) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """The passage rows of `files` (new places) and of `sources` (their old places) as
    runs of consecutive files on both sides: an edit leaves a few long runs, copied at
    memory speed instead of row by row."""
    if not len(files):
        return
    breaks = np.flatnonzero((np.diff(files) != 1) | (np.diff(sources) != 1)) + 1
    firsts = np.concatenate(([0], breaks)).tolist()
    lasts = np.concatenate((breaks, [len(files)])).tolist()
    for first, last in zip(firsts, lasts, strict=True):
        new = (int(starts[files[first]]), int(starts[files[last - 1] + 1]))
        before = (int(old_starts[sources[first]]), int(old_starts[sources[last - 1] + 1]))
        yield new, before


def _unchanged(
    old: Held | None, paths: list[str], matrix: NDArray[np.float32], counts: list[int]
) -> NDArray[np.bool_]:
    """Per file of the new listing: held before with the same vector and passage count."""
    same = np.zeros(len(paths), dtype=bool)
    if old is None or not paths or not old.paths or old.matrix.shape[1] != matrix.shape[1]:
        return same
    if paths == old.paths:  # an edit that adds or removes no file: compare row by row
        alike: NDArray[np.bool_] = np.all(matrix == old.matrix, axis=1)
        alike &= np.diff(old.starts) == np.asarray(counts, dtype=np.int64)
        return alike
    old_index = {p: i for i, p in enumerate(old.paths)}
    new_rows = [i for i, p in enumerate(paths) if p in old_index]
    if not new_rows:
        return same
    old_rows = np.array([old_index[paths[i]] for i in new_rows], dtype=np.int64)
    rows = np.array(new_rows, dtype=np.int64)
    equal = np.all(matrix[rows] == old.matrix[old_rows], axis=1)
    old_counts = np.diff(old.starts)[old_rows]
    equal &= old_counts == np.asarray(counts, dtype=np.int64)[rows]
    same[rows] = equal
    return same
