"""BM25 for every match at once, from the stored term weights and positions
(spec: retrieval-and-dates — BM25 weights title 8, aliases 6, body 1; scores
positive; phrase mode).

`store/projections/weights.py` keeps what bm25() reads of each current
record. Here it is laid out as arrays with one slot per rowid of the blocks
present, phrases are found from positions, and scores are computed with
FTS5's arithmetic in its order. numpy rounds each elementwise +, −, × and ÷
as C does, so every score is the double SQLite's bm25() returns, and pages
agree with it to the bit, ties included.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from knowledge_desktop.engine.store.projections import keyword, weights

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
BLOCK = weights.BLOCK
SPAN = 2 * (weights.MOST + 1)
"""slot × SPAN + position orders every occurrence; positions are below half of it,
so a position plus a phrase's length (at most 64 words) never reaches the next slot."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The slots of a partition's current records: block i's rowids are slots
    i × BLOCK onwards, in rowid order."""

    blocks: Ints
    sizes: Ints
    """Per slot: the record's length in tokens, 0 for no record, or `weights.UNSURE`."""
    titles: Ints
    aliases: Ints
    """Per slot: the title's and the aliases' lengths, where positions change column."""

    def slots(self, rowids: Ints) -> Ints:
        """Each rowid's slot, -1 for a rowid in no block."""
        block = rowids // BLOCK
        at = np.searchsorted(self.blocks, block)
        at[at == len(self.blocks)] = 0
        found = self.blocks[at] == block if len(self.blocks) else np.zeros(len(rowids), bool)
        return np.where(found, at * BLOCK + rowids % BLOCK, -1)

    def rowids(self, slots: Ints) -> Ints:
        return self.blocks[slots // BLOCK] * BLOCK + slots % BLOCK

    def unsure(self) -> Ints:
        """Rowids of records only bm25() can score (see `weights.UNSURE`)."""
        return self.rowids(np.flatnonzero(self.sizes == weights.UNSURE))

    def mask(self, rowids: Ints) -> Mask:
        """A per-slot mask with the given rowids set."""
        out = np.zeros(len(self.sizes), bool)
        slots = self.slots(rowids)
        out[slots[slots >= 0]] = True
        return out

    def column(self, slots: Ints, positions: Ints) -> Ints:
        """Which column (0 title, 1 aliases, 2 body) each position of a slot is in."""
        title = self.titles[slots]
        return (positions >= title).astype(np.int64) + (positions >= title + self.aliases[slots])


def layout(conn: sqlite3.Connection, scope: str) -> Layout:
    blocks: list[int] = []
    parts: list[npt.NDArray[np.int32]] = []
    for block, sizes in weights.sizes(conn, scope):
        blocks.append(int(block))
        parts.append(np.frombuffer(sizes, dtype="<i4").reshape(3, BLOCK))
    table = np.concatenate(parts, axis=1).astype(np.int64) if parts else np.zeros((3, 0), np.int64)
    return Layout(np.array(blocks, dtype=np.int64), table[0], table[1], table[2])


def _within(lengths: Ints, sizes: Ints, skip: Ints) -> Ints:
    """Indices, in blobs laid end to end (blob i `lengths[i]` items long), of the
    `sizes[i]` items that start `skip[i]` items into each."""
    starts = np.cumsum(lengths) - lengths + skip
    first = np.cumsum(sizes) - sizes
    return np.repeat(starts - first, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)


def _read(
    conn: sqlite3.Connection, scope: str, where: Layout, term: str, positions: bool
) -> tuple[Ints, npt.NDArray[np.uint16], npt.NDArray[np.uint16] | None]:
    """One term's postings over every block: (slot per posting, weighted frequency per
    posting, and with `positions` the positions blobs' items end to end, laid out
    per block as occurrence counts then positions; tallies come with the counts)."""
    at = {int(b): i for i, b in enumerate(where.blocks.tolist())}
    rows = [
        (at[int(block)], head, tail)
        for block, head, tail in weights.postings(conn, scope, term, positions)
        if int(block) in at  # every block with postings has lengths
    ]
    sizes = np.array([len(head) // 4 for _, head, _ in rows], dtype=np.int64)
    heads = np.frombuffer(b"".join(head for _, head, _ in rows), dtype="<u2")
    offsets = heads[_within(2 * sizes, sizes, np.zeros_like(sizes))].astype(np.int64)
    freqs = heads[_within(2 * sizes, sizes, sizes)]
    slots = np.repeat(np.array([i * BLOCK for i, _, _ in rows], dtype=np.int64), sizes) + offsets
    if not positions:
        return slots, freqs, None
    tails = np.frombuffer(b"".join(tail or b"" for _, _, tail in rows), dtype="<u2")
    lengths = np.array([len(tail or b"") // 2 for _, _, tail in rows], dtype=np.int64)
    counts = _within(lengths, sizes, np.zeros_like(sizes))
    keep = np.ones(len(tails), bool)
    keep[counts] = False
    return slots, tails[counts], tails[keep]


def frequencies(conn: sqlite3.Connection, scope: str, where: Layout, term: str) -> Floats:
    """The term's weighted frequency in each slot (0.0 where it is absent)."""
    out = np.zeros(len(where.sizes), np.float64)
    slots, freqs, _ = _read(conn, scope, where, term, False)
    out[slots] = freqs
    return out


def occurrences(conn: sqlite3.Connection, scope: str, where: Layout, term: str) -> Ints:
    """Every occurrence of the term as slot × SPAN + position, in ascending order."""
    slots, counts, positions = _read(conn, scope, where, term, True)
    assert positions is not None
    return np.repeat(slots, counts.astype(np.int64)) * SPAN + positions


def phrase_frequencies(where: Layout, occurrences_in_order: list[Ints]) -> Floats:
    """The phrase's weighted frequency in each slot, from its words' occurrences:
    a start counts where word j occurs j positions on, within one column;
    overlapping starts all count, as in FTS5. The rarest word is placed first,
    so each later lookup has the fewest candidates."""
    size = len(occurrences_in_order)
    order = sorted(range(size), key=lambda j: len(occurrences_in_order[j]))
    first = occurrences_in_order[order[0]]
    starts = first[first % SPAN >= order[0]] - order[0]  # where word 0 would be
    for j in order[1:]:
        later = occurrences_in_order[j]
        if not len(starts) or not len(later):
            starts = starts[:0]
            break
        wanted = starts + j
        at = np.minimum(np.searchsorted(later, wanted), len(later) - 1)
        starts = starts[later[at] == wanted]
    slots, positions = starts // SPAN, starts % SPAN
    opening = where.column(slots, positions)
    same = opening == where.column(slots, positions + size - 1)
    weight = np.array(weights.WEIGHTS, dtype=np.float64)[opening[same]]
    return np.bincount(slots[same], weights=weight, minlength=len(where.sizes)).astype(np.float64)


def bm25(freqs: list[Floats], idf: list[float], lengths: Floats, avgdl: float) -> Floats:
    """FTS5's bm25() for each record: phrase i has weighted frequency freqs[i] and IDF
    idf[i]; the same operations in the same order as its C code, so the same doubles."""
    k1, b = keyword.K1, keyword.B
    norm = k1 * (1 - b + b * lengths / avgdl)
    score = np.zeros(len(lengths), np.float64)
    for f, weight in zip(freqs, idf, strict=True):
        score += weight * ((f * (k1 + 1.0)) / (f + norm))
    return score


def best(scores: Floats, count: int) -> Ints:
    """Indices of the `count` best scores and of every score tied with the last of them."""
    if len(scores) <= count:
        return np.arange(len(scores))
    last = np.partition(scores, len(scores) - count)[len(scores) - count]
    return np.flatnonzero(scores >= last)
