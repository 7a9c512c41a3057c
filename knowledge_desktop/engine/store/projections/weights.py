"""Term weights and positions: where each term occurs in the current records
(spec: retrieval-and-dates — BM25 with weights title 8, aliases 6, body 1;
phrase mode).

FTS5 tells which records match, but its bm25() costs about 3 µs a match, so
a search for words found in most of 100,000 records spends hundreds of
milliseconds ranking. These tables hold what BM25 reads of each record —
a term's weighted frequency (8 × title + 6 × aliases + body count), where
it occurs, and the record's column lengths — so a search can find matches,
phrases included, and compute the same scores for all of them at once, in
arrays (`query/ranking.py`).

Rowids are grouped in blocks of `BLOCK`, so an edit rewrites small rows:

- `keyword_weights_v1_<s>`: one row per (term, block). `postings` holds the
  offsets in the block of the records with the term, then their weighted
  frequencies; `positions` holds each record's number of occurrences, then
  all their positions in the record's token stream (title, then aliases,
  then body, as FTS5 numbers tokens within each column). All little-endian
  uint16; positions last, so a search that needs no positions never reads them.
- `keyword_lengths_v1_<s>`: one row per block, `sizes` holding three int32
  arrays of `BLOCK`: each slot's length in tokens (0 for no record, or
  `UNSURE`), then its title and aliases lengths. An unsure record is one
  whose terms our tokenizer may not read as FTS5 did, or too long for
  uint16 positions: it has no postings, and searches score it with bm25().

They are written in the indexing transaction, for the current (not superseded)
records of a partition, from the terms a parse worker found (`keyword_text`) or
from the stored text, checked against FTS5's own sizes.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from knowledge_desktop.engine.store import packed
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections import terms
from knowledge_desktop.engine.store.schema import keyword_tables


class _Numpy:
    """numpy, imported when an index block is first written rather than when this module is
    (every command imports it through the keyword projection; a read does not need numpy,
    which is a tenth of a second of start-up: issue 26). The first use puts the module itself
    in this module's globals, so later uses cost nothing."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        globals()["np"] = numpy
        return getattr(numpy, name)


if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = _Numpy()

BLOCK = 256
"""Rowids per block: a common term's row stays under a 4 KiB page, so an edit rewrites
one small row per term it touches."""
UNSURE = -1
MOST = 0xFFFF
"""The longest record (in tokens) and the highest weighted frequency postings hold."""
WEIGHTS = (8, 6, 1)
"""BM25's column weights for title, aliases and body (spec: retrieval-and-dates), the one
place they are written: the stored frequencies, the array scores (`query/ranking.py`) and
the SQL bm25() calls (`grep_ranking.bm25_sql`) all read them here. Integers, so the SQL
text and the arrays use the same exact values."""


@dataclass(frozen=True, slots=True)
class Tokens:
    """A record's terms as FTS5 indexed them, title then aliases then body, and
    the three column lengths. Compact, as a parse worker sends them and a bulk write
    holds them (`keyword_text`): each distinct term once, in order of first occurrence,
    in one string (`vocab`, space-separated: no term holds a space; a list of strings
    took five times the memory), and the token stream as indexes into them (`ids`,
    little-endian uint16: a record with weights has at most `MOST` tokens)."""

    vocab: str
    ids: bytes
    sizes: tuple[int, int, int]

    @classmethod
    def of(cls, found: list[str], sizes: tuple[int, int, int]) -> Tokens:
        # One pass numbering terms as they first come: a third less CPU than finding the
        # distinct terms, numbering them, then looking each token up (issue 26).
        numbers: dict[str, int] = {}
        ids = array("H", [numbers.setdefault(term, len(numbers)) for term in found])
        return cls(" ".join(numbers), _little(ids), sizes)

    @property
    def names(self) -> list[str]:
        """The distinct terms, in order of first occurrence."""
        return self.vocab.split(" ") if self.vocab else []

    @property
    def terms(self) -> list[str]:
        names = self.names
        return [names[i] for i in _read("H", self.ids)]

    def postings(self) -> dict[str, Posting]:
        """Each term's weighted frequency and positions."""
        out: dict[str, Posting] = {}
        title, aliases, _ = self.sizes
        for at, term in enumerate(self.terms):
            weight = WEIGHTS[0] if at < title else WEIGHTS[1] if at < title + aliases else WEIGHTS[2]
            found = out.get(term)
            if found is None:
                out[term] = (weight, [at])
            else:
                found[1].append(at)
                out[term] = (found[0] + weight, found[1])
        return out


Posting = tuple[int, list[int]]
"""A term in one record: weighted frequency, positions."""


def tables(scope: str) -> tuple[str, str]:
    names = keyword_tables(scope)
    return names[4], names[5]


def ensure(tx: Tx | sqlite3.Connection, scope: str) -> None:
    weights, lengths = tables(scope)
    # A rowid table, not WITHOUT ROWID: an index b-tree keeps at most ~1 KiB of a
    # row on its page, so rows of a few KiB spilled into overflow pages (484 MB of
    # pages for 265 MB of blobs at 100k); a table b-tree keeps ~4 KiB.
    tx.execute(
        f"CREATE TABLE IF NOT EXISTS {weights} (term TEXT NOT NULL, block INTEGER NOT NULL,"
        " postings BLOB NOT NULL, positions BLOB NOT NULL)"
    )
    tx.execute(f"CREATE UNIQUE INDEX IF NOT EXISTS {weights}_term ON {weights}(term, block)")
    tx.execute(f"CREATE TABLE IF NOT EXISTS {lengths} (block INTEGER PRIMARY KEY, sizes BLOB NOT NULL)")


def _little(values: array[int]) -> bytes:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _read(typecode: str, data: bytes) -> array[int]:
    values = array(typecode, data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def decode(postings: bytes, positions: bytes) -> dict[int, Posting]:
    n = len(postings) // 4
    offsets, weights = _read("H", postings[: 2 * n]), _read("H", postings[2 * n :])
    counts, flat = _read("H", positions[: 2 * n]), _read("H", positions[2 * n :])
    out: dict[int, Posting] = {}
    at = 0
    for offset, weight, count in zip(offsets, weights, counts, strict=True):
        out[offset] = (weight, list(flat[at : at + count]))
        at += count
    return out


def record_terms(texts: tuple[str | None, str | None, str | None], sizes: list[int]) -> Tokens | None:
    """A record's terms, from its text and FTS5's column sizes; None (unsure) when our
    tokenizer may read the text unlike FTS5 — a character it may segment
    differently, or a column length unlike FTS5's — or when the record is too
    long for `MOST`."""
    if len(sizes) != len(WEIGHTS) or sum(sizes) > MOST:
        return None  # (known without tokenizing: a long record's list of terms is large)
    found = own_terms(texts)
    if found is None or list(found.sizes) != sizes:
        return None
    return found


def own_terms(texts: tuple[str | None, str | None, str | None]) -> Tokens | None:
    """A record's terms as our tokenizer reads them, the column lengths its own count;
    None when it may read the text unlike FTS5 or the record is too long for `MOST`.
    On ASCII text the two tokenizers agree by construction (`terms.py`); elsewhere the
    caller checks the lengths against FTS5's (`record_terms`). Pure: parse workers run it."""
    found: list[str] = []
    sizes: list[int] = []
    for text in texts:
        column = terms.column_terms(text) if text else []
        if column is None:
            return None
        found += column
        sizes.append(len(column))
    if len(found) > MOST:
        return None
    tokens = Tokens.of(found, (sizes[0], sizes[1], sizes[2]))
    if len(found) * WEIGHTS[0] > MOST and max(p[0] for p in tokens.postings().values()) > MOST:
        return None
    return tokens


@dataclass(slots=True)
class Changes:
    """What one indexing transaction did to a partition's current records: rows
    dropped (with the terms they had) and rows added, applied in one pass per
    block so a bulk index writes each (term, block) row once."""

    gone: dict[int, set[str]] = field(default_factory=dict)
    added: list[int] = field(default_factory=list)
    tokens: dict[int, Tokens | None] = field(default_factory=dict)
    """Terms of added rows worked out by the indexer from the text it inserted
    (`record_terms`); an added row without them is read back from FTS5."""

    def drop(self, rowid: int, texts: tuple[str | None, str | None, str | None], sizes: list[int]) -> None:
        """Note a row about to be deleted, with its text and sizes as FTS5 holds them."""
        found = record_terms(texts, sizes)
        self.gone[rowid] = set(found.names) if found is not None else set()


def apply(tx: Tx, scope: str, changes: Changes) -> None:
    """Write the postings and lengths of the rows added, and drop those of the rows gone."""
    if not changes.gone and not changes.added:
        return
    ensure(tx, scope)
    fts, stored = keyword_tables(scope)[0], keyword_tables(scope)[7]
    blocks: dict[int, tuple[dict[int, set[str]], dict[int, Tokens | None]]] = {}
    for rowid, names in changes.gone.items():
        blocks.setdefault(rowid // BLOCK, ({}, {}))[0][rowid % BLOCK] = names
    added = sorted(set(changes.added))
    for rowid in added:
        if rowid in changes.tokens:
            blocks.setdefault(rowid // BLOCK, ({}, {}))[1][rowid % BLOCK] = changes.tokens[rowid]
    unread = [rowid for rowid in added if rowid not in changes.tokens]
    for start in range(0, len(unread), BLOCK):
        chunk = unread[start : start + BLOCK]
        for rowid, title, aliases, body, size in tx.execute(
            f"SELECT c.id, c.title, c.aliases, {packed.UNPACK_SQL}(c.body), d.sz FROM {stored} c"
            f" JOIN {fts}_docsize d ON d.id = c.id WHERE c.id IN (SELECT value FROM json_each(?))",
            (f"[{','.join(map(str, chunk))}]",),
        ):
            found = record_terms((title, aliases, body), terms.varints(size))
            blocks.setdefault(rowid // BLOCK, ({}, {}))[1][rowid % BLOCK] = found
        # rowids come in order, so blocks below the last one read are complete: write
        # them now, and a bulk index never holds more than a block or two of positions
        for block in sorted(b for b in blocks if b < chunk[-1] // BLOCK):
            _apply_block(tx, scope, block, *blocks.pop(block))
    for block in sorted(blocks):
        _apply_block(tx, scope, block, *blocks[block])


def apply_complete(tx: Tx, scope: str, changes: Changes) -> Changes:
    """Apply the blocks below the one the last row was added to, and return the rest.

    Rowids grow, so a bulk index calls this as it goes: the blocks it has left
    are complete, and it never holds more than a few blocks of terms. (A block
    applied early and changed again later is merged like any edit.)"""
    if not changes.added:
        return changes
    edge = max(changes.added) // BLOCK
    now, rest = Changes(), Changes()
    for rowid, names in changes.gone.items():
        (now if rowid // BLOCK < edge else rest).gone[rowid] = names
    for rowid in changes.added:
        side = now if rowid // BLOCK < edge else rest
        side.added.append(rowid)
        if rowid in changes.tokens:
            side.tokens[rowid] = changes.tokens[rowid]
    apply(tx, scope, now)
    return rest


def _apply_block(
    tx: Tx, scope: str, block: int, gone: dict[int, set[str]], added: dict[int, Tokens | None]
) -> None:
    weights, lengths = tables(scope)
    row = tx.execute(f"SELECT sizes FROM {lengths} WHERE block=?", (block,)).fetchone()
    if row is None and not gone:
        writes = _new_block(block, {o: t for o, t in added.items() if t is not None})
    else:
        writes = _merge_block(tx, scope, block, gone, added)
    tx.executemany(
        f"INSERT OR REPLACE INTO {weights}(term, block, postings, positions) VALUES (?, ?, ?, ?)", writes
    )
    sizes = _read("i", row[0]) if row else array("i", bytes(3 * 4 * BLOCK))
    for offset in gone:
        sizes[offset] = sizes[BLOCK + offset] = sizes[2 * BLOCK + offset] = 0
    for offset, found in added.items():
        title, aliases, _ = found.sizes if found is not None else (0, 0, 0)
        sizes[offset] = sum(found.sizes) if found is not None else UNSURE
        sizes[BLOCK + offset], sizes[2 * BLOCK + offset] = title, aliases
    if any(sizes[:BLOCK]):
        tx.execute(f"INSERT OR REPLACE INTO {lengths}(block, sizes) VALUES (?, ?)", (block, _little(sizes)))
    elif row:
        tx.execute(f"DELETE FROM {lengths} WHERE block=?", (block,))


class _Numbering(dict[str, int]):
    """Numbers terms as they are first looked up: 0, 1, 2…"""

    def __missing__(self, key: str) -> int:
        number = self[key] = len(self)
        return number


def _new_block(block: int, added: dict[int, Tokens]) -> list[tuple[str, int, bytes, bytes]]:
    """The rows of a block no record was in yet (a bulk index), built in arrays:
    every token gets a term number, a stable sort by it groups each term's
    occurrences in record and position order, and each row is a slice. (32-bit
    arrays where they fit: a block's tokens are a few hundred thousand, and each
    pass over them costs its memory traffic.)"""
    offsets = sorted(added)
    found = [added[o] for o in offsets]
    vocabs = [t.vocab for t in found]
    names = " ".join(v for v in vocabs if v).split(" ")
    # every distinct term of the block numbered in order of first occurrence, in one pass
    # in C but for one step per distinct term (`_Numbering.__missing__`)
    numbers = _Numbering()
    named = np.fromiter(map(numbers.__getitem__, names), dtype=np.int32, count=len(names))
    kinds = np.array([v.count(" ") + 1 if v else 0 for v in vocabs], dtype=np.int32)
    count = np.array([len(t.ids) // 2 for t in found], dtype=np.int64)
    total = int(count.sum())
    if not total:
        return []
    # each token's index into its record's terms, moved to where they start in `names`
    local = np.frombuffer(b"".join(t.ids for t in found), "<u2").astype(np.int32)
    local += np.repeat((np.cumsum(kinds) - kinds).astype(np.int32), count)
    numbered = named[local]
    first = np.cumsum(count) - count
    where = np.repeat(np.array(offsets, dtype=np.int32), count)
    at = np.arange(total, dtype=np.int32) - np.repeat(first.astype(np.int32), count)
    # each token's column weight (title, aliases, body): a running sum of steps placed
    # where each record and each of its columns starts
    title = np.array([t.sizes[0] for t in found], dtype=np.int64)
    aliases = title + np.array([t.sizes[1] for t in found], dtype=np.int64)
    steps = np.zeros(total + 1, dtype=np.int32)
    np.add.at(steps, first, WEIGHTS[0])
    np.add.at(steps, first + title, WEIGHTS[1] - WEIGHTS[0])
    np.add.at(steps, first + aliases, WEIGHTS[2] - WEIGHTS[1])
    np.add.at(steps, first + count, -WEIGHTS[2])
    weight = np.cumsum(steps[:total], dtype=np.int32)
    # A block's terms fit 16 bits nearly always, and numpy sorts 16-bit keys stably by radix
    # (several times faster than the merge sort of wider ones).
    keys = numbered.astype(np.uint16) if len(numbers) <= 1 << 16 else numbered
    order = np.argsort(keys, kind="stable")
    term, where, at, weight = numbered[order], where[order], at[order], weight[order]
    # one posting per run of a term in one record
    starts = np.flatnonzero(np.concatenate(([True], (term[1:] != term[:-1]) | (where[1:] != where[:-1]))))
    occurrences = np.diff(np.append(starts, total))
    running = np.cumsum(weight, dtype=np.int64)
    frequency = np.diff(running[np.append(starts[1:], total) - 1], prepend=0)
    owner = term[starts]
    cuts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))  # one per term
    ends = np.append(cuts[1:], len(owner))
    column = {
        "offsets": where[starts].astype("<u2").tobytes(),
        "weights": frequency.astype("<u2").tobytes(),
        "counts": occurrences.astype("<u2").tobytes(),
        "positions": at.astype("<u2").tobytes(),
    }
    edge = np.append(starts, total).tolist()
    names = list(numbers)
    rows = []
    for a, b, number in zip(cuts.tolist(), ends.tolist(), owner[cuts].tolist(), strict=True):
        p, q = edge[a], edge[b]
        postings = column["offsets"][2 * a : 2 * b] + column["weights"][2 * a : 2 * b]
        positions = column["counts"][2 * a : 2 * b] + column["positions"][2 * p : 2 * q]
        rows.append((names[number], block, postings, positions))
    return rows


def _merge_block(
    tx: Tx, scope: str, block: int, gone: dict[int, set[str]], added: dict[int, Tokens | None]
) -> list[tuple[str, int, bytes, bytes]]:
    """Rows rewritten for the terms of the records gone and added (an edit), and
    rows of terms no record in the block holds any more deleted."""
    weights, _ = tables(scope)
    fresh: dict[str, dict[int, Posting]] = {}
    for offset, found in added.items():
        if found is not None:
            for term, posting in found.postings().items():
                fresh.setdefault(term, {})[offset] = posting
    touched = set(fresh).union(*gone.values())
    stored: dict[str, tuple[bytes, bytes]] = {}
    names = sorted(touched)
    for start in range(0, len(names), 500):
        part = names[start : start + 500]
        marks = ",".join("?" * len(part))
        stored.update(
            (term, (postings, positions))
            for term, postings, positions in tx.execute(
                f"SELECT term, postings, positions FROM {weights} WHERE block=? AND term IN ({marks})",
                [block, *part],
            )
        )
    writes: list[tuple[str, int, bytes, bytes]] = []
    deletes: list[tuple[str, int]] = []
    dropped = np.array(sorted(gone), dtype=np.uint16)
    for term in names:
        row = _merged(stored.get(term), dropped, fresh.get(term, {}))
        if row is not None:
            writes.append((term, block, *row))
        elif term in stored:
            deletes.append((term, block))
    tx.executemany(f"DELETE FROM {weights} WHERE term=? AND block=?", deletes)
    return writes


def _merged(
    stored: tuple[bytes, bytes] | None, dropped: npt.NDArray[np.uint16], new: dict[int, Posting]
) -> tuple[bytes, bytes] | None:
    """One (term, block) row after an edit: the stored postings less the records
    dropped, plus the new ones, in offset order; None when none are left."""
    empty = np.zeros(0, np.uint16)
    offsets, freq, counts, positions = empty, empty, empty, empty
    if stored is not None:
        head, tail = np.frombuffer(stored[0], "<u2"), np.frombuffer(stored[1], "<u2")
        n = len(head) // 2
        offsets, freq, counts, positions = head[:n], head[n:], tail[:n], tail[n:]
        if len(dropped) > 8:
            keep = ~np.isin(offsets, dropped)
        else:  # an edit drops one record: comparing costs far less than np.isin
            keep = np.ones(n, bool)
            for offset in dropped.tolist():
                keep &= offsets != offset
        if not keep.all():
            positions = positions[np.repeat(keep, counts)]
            offsets, freq, counts = offsets[keep], freq[keep], counts[keep]
    if new:
        add = sorted(new)
        offsets = np.concatenate([offsets, np.array(add, dtype=np.uint16)])
        freq = np.concatenate([freq, np.array([new[o][0] for o in add], dtype=np.uint16)])
        counts = np.concatenate([counts, np.array([len(new[o][1]) for o in add], dtype=np.uint16)])
        positions = np.concatenate(
            [positions, np.array([p for o in add for p in new[o][1]], dtype=np.uint16)]
        )
        order = np.argsort(offsets, kind="stable")
        if np.any(order != np.arange(len(order))):
            # move each posting's run of positions along with it
            size = counts.astype(np.int64)
            start = np.cumsum(size) - size
            moved = size[order]
            gather = np.repeat(start[order] - (np.cumsum(moved) - moved), moved) + np.arange(moved.sum())
            positions = positions[gather]
            offsets, freq, counts = offsets[order], freq[order], counts[order]
    if not len(offsets):
        return None
    little = "<u2"
    return (
        offsets.astype(little).tobytes() + freq.astype(little).tobytes(),
        counts.astype(little).tobytes() + positions.astype(little).tobytes(),
    )


def postings(
    conn: sqlite3.Connection, scope: str, term: str, with_positions: bool = False
) -> Iterable[tuple[int, bytes, bytes | None]]:
    """(block, postings, positions or None) rows of one term, in block order."""
    weights, _ = tables(scope)
    extra = "positions" if with_positions else "NULL"
    return conn.execute(
        f"SELECT block, postings, {extra} FROM {weights} WHERE term=? ORDER BY block", (term,)
    )


def sizes(conn: sqlite3.Connection, scope: str) -> Iterable[tuple[int, bytes]]:
    """(block, sizes) rows of a partition, in block order."""
    _, lengths = tables(scope)
    return conn.execute(f"SELECT block, sizes FROM {lengths} ORDER BY block")
