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

What is kept changes only when the scope's generation or the model changed
(`semantic_state_v1`, stamped by every change of its vectors). Then the projection's
log of changed files (`semantic_changes_v1`, written in the transaction that changed
them) names the files to read again: their old rows are marked dead (`live`) and
their new rows appended after the held ones, in space kept free for it (`_Room`),
so a search right after an edit reads a few rows instead of listing every file and
copying 400 MB at 100k (1.2-3.5 s, bench/RESULTS.md). When the dead rows or the
appended ones outgrow the free space, the live rows are copied into new arrays in
path order, as a fresh read lays them out. When the log does not reach back to the
held generation (another process changed many files, or the tables were made anew),
every file is listed again and only those whose own vector changed have their
passages read: a file whose vector is byte for byte the same has the same passages
(the vector is their mean; a reordering keeps the same set, and so the same best
passage). What a Held shows is never changed: appended rows lie past its views, and
only the newest Held of a room appends, so a search on another thread keeps a
consistent set.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

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
    live: NDArray[np.bool_]
    """Per file row: False for a file's old row, replaced by a later one or gone."""
    where: dict[str, int]
    """Each live file's row."""
    dead_rows: int = 0
    """Passage rows of dead files, still in the arrays until they are compacted."""
    room: _Room | None = field(default=None, compare=False, repr=False)
    layout: int = 0
    """Names this order of rows, for what is kept per row elsewhere (`semantic_filter`):
    a patched copy and a fresh read of one generation lay their rows out differently."""

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.passages.nbytes + self.scales.nbytes + self.starts.nbytes)


@dataclass(slots=True)
class _Room:
    """The arrays Helds are views of, longer than the rows they hold so that a patch can
    append. `files` and `rows` are the rows in use: only the Held that ends there may
    append (claimed under `_lock`), so no view ever sees a row change. The free part is
    zeros from `np.zeros`, which the system maps only when written."""

    matrix: NDArray[np.float32]
    starts: NDArray[np.int64]
    passages: NDArray[np.int8]
    scales: NDArray[np.float32]
    files: int
    rows: int


def _room(files: int, rows: int, dim: int) -> _Room:
    spare_files, spare_rows = max(256, files // 8), max(4096, rows // 8)
    return _Room(
        np.zeros((files + spare_files, dim), dtype=np.float32),
        np.zeros(files + spare_files + 1, dtype=np.int64),
        np.zeros((rows + spare_rows, dim), dtype=np.int8),
        np.zeros(rows + spare_rows, dtype=np.float32),
        files,
        rows,
    )


def _view(
    room: _Room,
    generation: int,
    model: str | None,
    paths: list[str],
    live: NDArray[np.bool_],
    where: dict[str, int],
    dead_rows: int,
) -> Held:
    n = len(paths)
    rows = int(room.starts[n])
    return Held(
        generation,
        model,
        room.matrix[:n],
        paths,
        room.passages[:rows],
        room.scales[:rows],
        room.starts[: n + 1],
        live,
        where,
        dead_rows,
        room,
        next(_layouts),
    )


_layouts = itertools.count(1)


DEAD_SHARE = 0.125
"""Dead passage rows past this share of the held ones are dropped by a compaction."""

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
_refreshing: dict[tuple[str, str], threading.Lock] = {}
"""One refresh of a scope at a time: a second search waits and takes its result,
rather than reading (or patching) the same changes beside it."""


def held(conn: sqlite3.Connection, db: str, scope: str, dim: int) -> Held:
    """`scope`'s vectors in `db` as they are now, patched or read again in part after a change."""
    generation = projection.generation(conn, scope)
    model = projection.model_of(conn)
    with _lock:
        old = _held.get((db, scope))
        refreshing = _refreshing.setdefault((db, scope), threading.Lock())
    if old is not None and old.generation == generation and old.model == model:
        return old
    with refreshing:
        with _lock:
            old = _held.get((db, scope))
        if old is not None and old.generation == generation and old.model == model:
            return old
        reuse = old is not None and old.model == model and old.generation != STALE
        fresh = _patched(conn, scope, dim, old) if reuse and old is not None else None
        if fresh is None:
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


@contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """The reads inside see one commit (a caller's open transaction is joined)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _patched(conn: sqlite3.Connection, scope: str, dim: int, old: Held) -> Held | None:
    """`old` brought up to now from the projection's log of changed files, or None when
    the log does not reach back to `old`'s generation or lists too many files (then a
    listing of every file costs no more)."""
    width = dim * np.dtype(projection.STORED).itemsize
    found: dict[str, tuple[bytes, bytes]] = {}
    with _snapshot(conn):
        state = conn.execute(
            "SELECT generation, logged FROM semantic_state_v1 WHERE scope=?", (scope,)
        ).fetchone()
        if state is None or state[1] is None or old.generation < int(state[1]):
            return None
        generation = int(state[0])
        if projection.model_of(conn) != old.model:
            return None
        changed = [
            p
            for (p,) in conn.execute(
                "SELECT DISTINCT path FROM semantic_changes_v1 WHERE scope=? AND generation>?",
                (scope, old.generation),
            )
        ]
        if len(changed) * 8 > len(old.where) + 64:
            return None
        for at in range(0, len(changed), 500):
            some = changed[at : at + 500]
            marks = ",".join("?" * len(some))
            for path, vector, passages in conn.execute(
                f"SELECT path, vector, passages FROM semantic_records_v1 WHERE scope=? AND path IN ({marks})",
                [scope, *some],
            ):
                found[path] = (vector, passages)
    gone = np.array([old.where[p] for p in changed if p in old.where], dtype=np.int64)
    dead_rows = old.dead_rows + int(np.sum(old.starts[gone + 1] - old.starts[gone]))
    added = sorted(found)
    counts = [len(found[p][1]) // width for p in added]
    files, rows = len(old.paths), int(old.starts[-1])
    room = old.room
    with _lock:
        fits = (
            room is not None
            and room.files == files
            and room.rows == rows
            and files + len(added) <= len(room.matrix)
            and rows + sum(counts) <= len(room.passages)
            and dead_rows <= DEAD_SHARE * (rows + sum(counts))
        )
        if fits and room is not None:
            room.files, room.rows = files + len(added), rows + sum(counts)
    if not fits or room is None:
        return _compacted(old, set(changed), found, generation, dim)
    if added:
        ends = files + len(added)
        vectors = b"".join(found[p][0] for p in added)
        room.matrix[files:ends] = np.frombuffer(vectors, dtype=projection.STORED).reshape(-1, dim)
        room.starts[files + 1 : ends + 1] = rows + np.cumsum(counts)
        _quantise_into(
            room.passages,
            room.scales,
            room.starts,
            list(range(files, ends)),
            [found[p][1] for p in added],
            dim,
        )
    live = np.ones(files + len(added), dtype=bool)
    live[:files] = old.live
    live[gone] = False
    where = dict(old.where)
    for path in changed:
        where.pop(path, None)
    where.update((p, files + i) for i, p in enumerate(added))
    return _view(room, generation, old.model, [*old.paths, *added], live, where, dead_rows)


def _compacted(
    old: Held, changed: set[str], found: dict[str, tuple[bytes, bytes]], generation: int, dim: int
) -> Held:
    """The live rows of `old` but `changed`'s, and `found`'s, in new arrays in path order
    (as `_read` lays them out), with free space again."""
    width = dim * np.dtype(projection.STORED).itemsize
    keep = {p: i for p, i in old.where.items() if p not in changed}
    paths = sorted([*keep, *found])
    old_counts = np.diff(old.starts)
    counts = np.array(
        [int(old_counts[keep[p]]) if p in keep else len(found[p][1]) // width for p in paths], dtype=np.int64
    )
    room = _room(len(paths), int(counts.sum()), dim)
    starts = room.starts
    np.cumsum(counts, out=starts[1 : len(paths) + 1])
    kept = np.array([i for i, p in enumerate(paths) if p in keep], dtype=np.int64)
    sources = np.array([keep[paths[int(i)]] for i in kept], dtype=np.int64)
    if len(kept):
        room.matrix[kept] = old.matrix[sources]
    for (a, b), (c, d) in _runs(starts, kept, old.starts, sources):
        room.passages[a:b] = old.passages[c:d]
        room.scales[a:b] = old.scales[c:d]
    new = [i for i, p in enumerate(paths) if p in found]
    if new:
        vectors = b"".join(found[paths[i]][0] for i in new)
        room.matrix[new] = np.frombuffer(vectors, dtype=projection.STORED).reshape(-1, dim)
        _quantise_into(room.passages, room.scales, starts, new, [found[paths[i]][1] for i in new], dim)
    where = {p: i for i, p in enumerate(paths)}
    return _view(room, generation, old.model, paths, np.ones(len(paths), dtype=bool), where, 0)


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
    room = _room(len(paths), sum(counts), dim)
    matrix = room.matrix[: len(paths)]
    matrix[:] = np.frombuffer(b"".join(blobs), dtype=projection.STORED).reshape(-1, dim)
    del blobs
    starts = room.starts[: len(paths) + 1]
    np.cumsum(counts, out=starts[1:])
    same = _unchanged(old, paths, matrix, counts)
    passages = room.passages[: int(starts[-1])]
    scales = room.scales[: int(starts[-1])]
    if old is not None and same.any():
        kept = np.flatnonzero(same)
        sources = np.array([old.where[paths[int(i)]] for i in kept], dtype=np.int64)
        for (a, b), (c, d) in _runs(starts, kept, old.starts, sources):
            passages[a:b] = old.passages[c:d]
            scales[a:b] = old.scales[c:d]
    missing = [paths[int(i)] for i in np.flatnonzero(~same)]
    place = {p: i for i, p in enumerate(paths)}
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
    return _view(room, generation, model, paths, np.ones(len(paths), dtype=bool), place, 0)


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
    if paths == old.paths and len(old.where) == len(paths):  # no file added or removed: row by row
        alike: NDArray[np.bool_] = np.all(matrix == old.matrix, axis=1)
        alike &= np.diff(old.starts) == np.asarray(counts, dtype=np.int64)
        return alike
    old_index = old.where
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
