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

from knowledge_desktop.engine.query import kept
from knowledge_desktop.engine.store.projections import keyword, weights

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
Mask = npt.NDArray[np.bool_]
BLOCK = weights.BLOCK
SHIFT = 17
SPAN = 1 << SHIFT
"""slot × SPAN + position orders every occurrence; positions are below half of it
(`weights.MOST`), so a position plus a phrase's length (at most 64 words) never
reaches the next slot."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The slots of a partition's current records: block i's rowids are slots
    i × BLOCK onwards, in rowid order."""

    blocks: Ints
    sizes: Int32s
    """Per slot: the record's length in tokens, 0 for no record, or `weights.UNSURE`."""
    titles: Int32s
    aliases: Int32s
    """Per slot: the title's and the aliases' lengths, where positions change column
    (int32 as stored: a layout is kept, 12 MB at a million records)."""

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

    def weighted_starts(self, slots: Ints, starts: Ints, ends: Ints) -> Floats:
        """Per slot, the summed column weights of the spans (start and end positions)
        that lie within one column; a span starting in the body, the last column,
        always does, so only the few that start earlier are looked at closely."""
        title = self.titles[slots]
        body = title + self.aliases[slots]
        early = np.flatnonzero(starts < body)
        out = np.bincount(slots, minlength=len(self.sizes)).astype(np.float64) * weights.WEIGHTS[2]
        if len(early):
            s, t, b = starts[early], title[early], body[early]
            opening = (s >= t).astype(np.int64) + (s >= b)
            closing = (ends[early] >= t).astype(np.int64) + (ends[early] >= b)
            table = np.array(weights.WEIGHTS, dtype=np.float64)
            # early spans were counted as body spans above: put their real weight instead
            change = np.where(opening == closing, table[opening], 0.0) - weights.WEIGHTS[2]
            out += np.bincount(slots[early], weights=change, minlength=len(self.sizes))
        return out


def layout(conn: sqlite3.Connection, scope: str) -> Layout:
    """The partition's layout, kept between searches on the same read-only connection
    while nothing is committed (`kept`, lasting: every search reads it): reading it costs
    a few milliseconds at 100k records, a tenth of a second at a million."""
    return kept.kept(conn, ("layout", scope), lambda: _read_layout(conn, scope), _layout_bytes, lasting=True)


def _layout_bytes(found: Layout) -> int:
    return int(found.blocks.nbytes + found.sizes.nbytes + found.titles.nbytes + found.aliases.nbytes)


def _read_layout(conn: sqlite3.Connection, scope: str) -> Layout:
    blocks: list[int] = []
    blobs: list[bytes] = []
    for block, sizes in weights.sizes(conn, scope):
        blocks.append(int(block))
        blobs.append(sizes)
    # every block is three int32 arrays of BLOCK: read them all at once, then put each
    # array's blocks end to end (one copy, contiguous per array)
    stored = np.frombuffer(b"".join(blobs), dtype="<i4").reshape(len(blobs), 3, BLOCK)
    table = np.ascontiguousarray(stored.transpose(1, 0, 2).reshape(3, len(blobs) * BLOCK), dtype=np.int32)
    numbers = np.array(blocks, dtype=np.int64)
    for shared in (table, numbers):  # searches on other threads share a kept layout
        shared.setflags(write=False)
    return Layout(numbers, table[0], table[1], table[2])


def _read(
    conn: sqlite3.Connection, scope: str, where: Layout, term: str, positions: bool
) -> tuple[Ints, npt.NDArray[np.uint16], npt.NDArray[np.uint16] | None, npt.NDArray[np.uint16] | None]:
    """One term's postings over every block: slot and weighted frequency per posting,
    and with `positions` the occurrence count per posting and every position.

    A row's postings are its k offsets then its k frequencies, its positions blob its
    k counts then the positions: each row is cut in two as bytes and each half joined
    to its kind, so every array is one `frombuffer` (gathering them with index arrays
    took four times as long, 30 ms a common word at a million records, 180 with positions)."""
    at = {int(b): i for i, b in enumerate(where.blocks.tolist())}
    places: list[int] = []
    sizes: list[int] = []
    offsets: list[bytes] = []
    freqs: list[bytes] = []
    counts: list[bytes] = []
    found: list[bytes] = []
    for block, head, tail in weights.postings(conn, scope, term, positions):
        slot = at.get(int(block))
        if slot is None:  # every block with postings has lengths
            continue
        half = len(head) // 2
        places.append(slot * BLOCK)
        sizes.append(half // 2)
        offsets.append(head[:half])
        freqs.append(head[half:])
        if positions:
            rest = tail or b""
            counts.append(rest[:half])
            found.append(rest[half:])
    slots = np.repeat(np.array(places, dtype=np.int64), sizes) + np.frombuffer(b"".join(offsets), "<u2")
    weighted = np.frombuffer(b"".join(freqs), "<u2")
    if not positions:
        return slots, weighted, None, None
    return slots, weighted, np.frombuffer(b"".join(counts), "<u2"), np.frombuffer(b"".join(found), "<u2")


@dataclass(frozen=True, slots=True)
class Term:
    """One term's postings over every block."""

    slots: Ints
    freqs: npt.NDArray[np.uint16]
    """Per posting: the weighted frequency."""
    counts: npt.NDArray[np.uint16] | None
    positions: npt.NDArray[np.uint16] | None
    """Per posting, its occurrence count; per occurrence, its position (when read)."""

    def frequencies(self, where: Layout) -> Floats:
        """The weighted frequency in each slot (0.0 where the term is absent)."""
        out = np.zeros(len(where.sizes), np.float64)
        out[self.slots] = self.freqs
        return out

    def occurrences(self) -> Ints:
        """Every occurrence as slot × SPAN + position, in ascending order."""
        assert self.counts is not None, "read without positions"
        assert self.positions is not None, "read without positions"
        return np.repeat(self.slots, self.counts.astype(np.int64)) * SPAN + self.positions


def term(conn: sqlite3.Connection, scope: str, where: Layout, name: str, positions: bool) -> Term:
    """One term's postings, kept between searches while nothing is committed (`kept`):
    a word in most of 100k records is ~1 MB of blobs to read and unpack. Slots are
    places in `where`, so a term is kept with the layout it was read against and read
    again for another (a commit between reading the layout and the term)."""
    key = ("term", scope, name, positions, id(where))
    read = kept.kept(conn, key, lambda: (where, _term(conn, scope, where, name, positions)), _term_bytes)
    if read[0] is where:
        return read[1]
    return _term(conn, scope, where, name, positions)


def _term(conn: sqlite3.Connection, scope: str, where: Layout, name: str, positions: bool) -> Term:
    slots, freqs, counts, found = _read(conn, scope, where, name, positions)
    for shared in (slots, freqs, counts, found):  # searches share a kept term
        if shared is not None:
            shared.setflags(write=False)
    return Term(slots, freqs, counts, found)


def _term_bytes(read: tuple[Layout, Term]) -> int:
    found = read[1]
    return sum(
        int(a.nbytes) for a in (found.slots, found.freqs, found.counts, found.positions) if a is not None
    )


def phrase_frequencies(where: Layout, occurrences_in_order: list[Ints]) -> Floats:
    """The phrase's weighted frequency in each slot, from its words' occurrences:
    a start counts where word j occurs j positions on, within one column;
    overlapping starts all count, as in FTS5. The rarest word is placed first,
    so each later lookup has the fewest candidates, and each is a binary search in
    the later word's occurrences: a common word has millions at a million records,
    which merging both lists would copy and sort for every phrase (0.3 s)."""
    size = len(occurrences_in_order)
    order = sorted(range(size), key=lambda j: len(occurrences_in_order[j]))
    first = occurrences_in_order[order[0]]
    starts = first[first & (SPAN - 1) >= order[0]] - order[0] if order[0] else first  # word 0's place
    for j in order[1:]:
        later = occurrences_in_order[j]
        if not len(starts) or not len(later):
            starts = starts[:0]
            break
        # both lists are sorted and without repeats: keep the starts whose word j is
        # where its binary search in `later` lands
        wanted = starts + j
        at = np.minimum(np.searchsorted(later, wanted), len(later) - 1)
        starts = starts[later[at] == wanted]
    slots, positions = starts >> SHIFT, starts & (SPAN - 1)
    return where.weighted_starts(slots, positions, positions + size - 1)


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
