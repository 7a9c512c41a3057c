"""FTS5's terms as our tokenizer reads them, and FTS5's own statistics.

Search scores records outside SQLite (`query/ranking.py`) from term weights
stored beside the index (`weights.py`), which need the terms FTS5 indexed.
Our tokenizer follows FTS5's `unicode61 remove_diacritics 2` exactly on
ASCII; other tokens are folded by FTS5 itself (`_Folder`), and text with
characters the two may segment differently is reported as unsure.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import unicodedata
from collections import Counter

from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.schema import keyword_tables

TOKENIZER = "unicode61 remove_diacritics 2"
_TOKEN = re.compile(r"[^\W_]+")


def totals(conn: Tx | sqlite3.Connection, scope: str) -> tuple[int, int] | None:
    """(records, tokens) of a partition's current FTS table: the numbers bm25() divides.

    They are read from FTS5's own "averages" record (rowid 1 of the `_data`
    table: a varint row count, then a varint token total per column), so they
    are exactly the statistics the ranking function sees.
    """
    fts = keyword_tables(scope)[0]
    try:
        row = conn.execute(f"SELECT block FROM {fts}_data WHERE id=1").fetchone()
    except sqlite3.DatabaseError:
        return None
    if row is None or not isinstance(row[0], bytes):
        return None
    values = varints(row[0])
    if len(values) != 4:
        return None
    return values[0], sum(values[1:])


def varints(data: bytes) -> list[int]:
    """SQLite's big-endian varints (seven bits a byte, the ninth byte whole)."""
    out: list[int] = []
    i = 0
    while i < len(data):
        value = 0
        for n in range(9):
            byte = data[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


_ASCII_FOLD = str.maketrans({i: chr(i).lower() if chr(i).isalnum() else " " for i in range(128)})


def column_counts(text: str) -> tuple[dict[str, int], int]:
    """Term counts of one column as FTS5 tokenizes it, and its length in tokens."""
    if text.isascii():
        plain = Counter(text.translate(_ASCII_FOLD).split())
        return plain, sum(plain.values())
    raw = Counter(_TOKEN.findall(text))
    folded = _FOLDER.fold(list(raw))
    counts: dict[str, int] = {}
    length = 0
    for token, n in raw.items():
        for term in folded[token]:
            counts[term] = counts.get(term, 0) + n
            length += n
    return counts, length


_ASCII_BYTES = bytes(c if chr(c).isalnum() else 32 for c in range(128)).lower() + b" " * 128


def column_terms(text: str) -> list[str] | None:
    """One column's terms in order, as FTS5 indexes them (search scores records
    with them); None when our tokenizer may disagree with FTS5's on the text."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_BYTES).decode("ascii").split()
    if unsure(text):
        return None
    raw = _TOKEN.findall(text)
    folded = _FOLDER.fold(list(dict.fromkeys(raw)))  # each distinct token once
    return [term for token in raw for term in folded[token]]


def one_term(word: str) -> bool:
    """Whether FTS5 reads the (folded) word as exactly that one term."""
    return word.isascii() or (not unsure(word) and _FOLDER.fold([word]).get(word) == (word,))


def unsure(text: str) -> bool:
    """Whether `text` has a character FTS5 may join into a token where Python splits."""
    return any(
        not ch.isascii() and not ch.isalnum() and unicodedata.category(ch)[0] in "MC" for ch in set(text)
    )


class _Folder:
    """Folds non-ASCII tokens with FTS5's own tokenizer (cached): what it makes of a
    token — one term, several, or none — is what the index holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._cache: dict[str, tuple[str, ...]] = {}

    def fold(self, tokens: list[str]) -> dict[str, tuple[str, ...]]:
        """Each distinct token's FTS5 terms."""
        unknown = sorted({t for t in tokens if not t.isascii() and t not in self._cache})
        if unknown:
            self._learn(unknown)
        return {t: (t.lower(),) if t.isascii() else self._cache[t] for t in tokens}

    def _learn(self, words: list[str]) -> None:
        with self._lock:
            if self._conn is None:
                self._conn = sqlite3.connect(":memory:", check_same_thread=False)
                self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
                self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
            conn = self._conn
            conn.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
            found: dict[int, list[str]] = {}
            for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                found.setdefault(int(doc), []).append(str(term))
            conn.execute("DELETE FROM t")
            for i, word in enumerate(words, 1):
                self._cache[word] = tuple(found.get(i, ()))


_FOLDER = _Folder()
