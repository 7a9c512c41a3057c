"""Keyword projection: per-partition FTS5 tables for search (spec: retrieval-and-dates).

Each partition (scope) gets its own tables, so other partitions never touch
its ranking statistics:

- `keyword_fts_v1_<s>` / `keyword_rows_v1_<s>`: records whose lifecycle is
  active — the text (title, aliases, body) and the row facts filters need;
- `keyword_history_fts_v1_<s>` / `keyword_history_rows_v1_<s>`: superseded
  records, for "superseded wording" and historical search;
- `keyword_strong_v1_<s>`: for each current record, the terms whose BM25
  share in it is high ("strong"), so a search for very common words can rank
  a few thousand candidates instead of every match (see `strong_terms`);
- `keyword_state_v1`: per scope, a generation counter (the snapshot), when
  it was last indexed, and the mean record length the strong sets were cut at.

Text is indexed lazily, as the spec's index behaviour describes: a scan
only records what changed, and `sync` — run by each search before it
queries — (re)indexes exactly the records whose content hash differs from
the indexed one, reading their bodies from disk (and skipping, as lag, any
file that changed again since the scan). Eligibility, type and validity
window, which depend on other files, are refreshed on existing rows by every
reconcile without touching the text. The tokenizer folds case and
diacritics; punctuation separates tokens.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.derive import Catalog, Node
from knowledge_desktop.engine.records import dates, frontmatter
from knowledge_desktop.engine.store import codec
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.schema import keyword_tables

TOKENIZER = "unicode61 remove_diacritics 2"
ROW_COLUMNS = (
    "path",
    "id",
    "kind",
    "type",
    "title",
    "revision",
    "sha256",
    "lifecycle",
    "tags",
    "body_line",
    "body_chars",
    "superseded_by",
    "eligible",
    "active_from",
    "active_until",
    "occurred_start",
    "occurred_end",
    "recorded_start",
    "recorded_end",
    "updated_start",
    "updated_end",
    "due_start",
    "due_end",
)
TIME_FIELDS = ("occurred_at", "recorded_at", "updated_at", "due_at")


# BM25 as FTS5's bm25() computes it, with our column weights (title, aliases, body).
K1 = 1.2
B = 0.75
WEIGHTS = (8.0, 6.0, 1.0)
STRONG_LEVELS = tuple(round(1.9 + 0.02 * i, 2) for i in range(15))
"""A term is strong in a record when its BM25 share before IDF reaches the first
level (the ceiling is K1 + 1 = 2.2); it is stored as `level_token(i, term)` for
the highest level i it reaches. Shares of common words crowd just under the
ceiling, so the levels start high (about one posting in ten is kept) and are
close together: a search bounds each record's share by the level above the one
stored, and narrow steps keep that bound near the real share. More levels
cost no postings, only more distinct level tokens."""
STRONG_HEADROOM = 1.1
"""Strong sets are cut at a mean length this much above the real one. A share
only grows with the mean, so the cut stays an upper bound for records indexed
later until the mean outgrows it; then every set is recomputed."""
UNSURE = "zzkwunsure"
"""Stored instead of strong terms when our tokenizer may disagree with FTS5's on
a record; searches always rank such records exactly."""
_TOKEN = re.compile(r"[^\W_]+")


def tables(scope: str, history: bool = False) -> tuple[str, str]:
    fts, rows, history_fts, history_rows, _ = keyword_tables(scope)
    return (history_fts, history_rows) if history else (fts, rows)


EXCEPTIONS = "eligible=0 OR active_from IS NOT NULL OR active_until IS NOT NULL"
"""Current rows an unfiltered search may leave out: ineligible, or with a validity
window. A partial index keeps them (SQLite maintains it with every insert,
update and delete), so an unfiltered total is the match count minus the few
of them that match and fail the filter."""


def exceptions_index(scope: str) -> str:
    return f"{tables(scope)[1]}_exceptions"


def strong_table(scope: str) -> str:
    return keyword_tables(scope)[4]


def ensure(tx: Tx | sqlite3.Connection, scope: str) -> None:
    for history in (False, True):
        fts, rows = tables(scope, history)
        tx.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {fts} USING fts5("
            f"title, aliases, body, tokenize='{TOKENIZER}')"
        )
        columns = ", ".join(f"{c} {'TEXT UNIQUE NOT NULL' if c == 'path' else ''}" for c in ROW_COLUMNS)
        tx.execute(f"CREATE TABLE IF NOT EXISTS {rows} (rowid INTEGER PRIMARY KEY, {columns})")
        tx.execute(f"CREATE INDEX IF NOT EXISTS {rows}_id ON {rows}(id)")
        if not history:
            index = exceptions_index(scope)
            tx.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {rows}(eligible) WHERE {EXCEPTIONS}")
    tx.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {strong_table(scope)} USING fts5("
        f"terms, tokenize='{TOKENIZER}', detail=none, columnsize=0)"
    )
    tx.execute(
        "INSERT OR IGNORE INTO keyword_state_v1(scope, generation, indexed_at, scanned_at)"
        " VALUES (?, 0, NULL, NULL)",
        (scope,),
    )


def remove(tx: Tx, scope: str, path: str) -> None:
    for history in (False, True):
        fts, rows = tables(scope, history)
        found = tx.execute(f"SELECT rowid FROM {rows} WHERE path=?", (path,)).fetchone()
        if found:
            tx.execute(f"DELETE FROM {fts} WHERE rowid=?", (found[0],))
            tx.execute(f"DELETE FROM {rows} WHERE rowid=?", (found[0],))
            if not history:
                tx.execute(f"DELETE FROM {strong_table(scope)} WHERE rowid=?", (found[0],))


def mark(tx: Tx, items: Iterable[tuple[str, str]]) -> None:
    """Queue (scope, path) pairs whose text the next search must (re)index or drop."""
    tx.executemany("INSERT OR IGNORE INTO keyword_pending_v1(scope, path) VALUES (?, ?)", list(items))


def pending(conn: Tx | sqlite3.Connection, scopes: Iterable[str]) -> bool:
    scopes = list(scopes)
    return (
        bool(scopes)
        and conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM keyword_pending_v1 WHERE scope IN"
            f" ({','.join('?' * len(scopes))}))",
            scopes,
        ).fetchone()[0]
    )


def sync(tx: Tx, root: Path, scope: str) -> tuple[int, bool]:
    """Index the queued files of one partition. Returns (settled, lag).

    Only queued paths are looked at, so a search after one outside edit costs
    one file, not a pass over the partition.
    """
    ensure(tx, scope)
    queued = [p for (p,) in tx.execute("SELECT path FROM keyword_pending_v1 WHERE scope=?", (scope,))]
    lag = False
    done: list[tuple[str]] = []
    indexed: list[int] = []
    for path in queued:
        row = tx.execute("SELECT sha256, lifecycle, status FROM catalog WHERE path=?", (path,)).fetchone()
        if row is None or row[2] != "record" or row[1] not in ("active", "superseded"):
            remove(tx, scope, path)
            done.append((path,))
            continue
        _, rows = tables(scope, row[1] == "superseded")
        known = tx.execute(f"SELECT sha256 FROM {rows} WHERE path=?", (path,)).fetchone()
        if known is not None and known[0] == row[0]:
            done.append((path,))
            continue
        rowid = _index_one(tx, root, scope, path, row[0])
        if rowid is None:
            lag = True
            continue
        done.append((path,))
        if row[1] == "active":
            indexed.append(rowid)
    tx.executemany("DELETE FROM keyword_pending_v1 WHERE path=?", done)
    if done:
        update_strong(tx, scope, indexed)
    return len(done), lag


def _index_one(tx: Tx, root: Path, scope: str, path: str, sha: str) -> int | None:
    """Index one file; its new rowid, or None when it could not be read as scanned."""
    remove(tx, scope, path)
    try:
        data = (root / path).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != sha:
        return None  # changed again since the scan: the next reconcile catches up
    row = tx.execute(
        "SELECT f.node, c.type, c.valid AND NOT c.duplicate AND c.deps_ok, c.active_from,"
        " c.active_until, c.size FROM files f JOIN catalog c ON c.path = f.path WHERE f.path=?",
        (path,),
    ).fetchone()
    if row is None or not row[0]:
        return None
    node = Node(codec.decode(path, scope, sha, int(row[5]), row[0]))
    split = frontmatter.split(data.decode("utf-8").removeprefix("\ufeff"))
    body = split.body if split is not None else ""
    fts, rows = tables(scope, node.lifecycle == "superseded")
    record = node.data
    aliases = [a for a in record.get("aliases") or [] if isinstance(a, str)]
    spans = record_times(node)
    cursor = tx.execute(
        f"INSERT INTO {rows}(path, id, kind, type, title, revision, sha256, lifecycle, tags,"
        " body_line, body_chars, superseded_by, eligible, active_from, active_until,"
        " occurred_start, occurred_end, recorded_start, recorded_end, updated_start,"
        " updated_end, due_start, due_end) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            path,
            node.id,
            node.kind,
            row[1],
            _text(record.get("title")),
            record.get("revision") if isinstance(record.get("revision"), int) else None,
            sha,
            node.lifecycle,
            json.dumps([t for t in record.get("tags") or [] if isinstance(t, str)]),
            node.parsed.body_line,
            node.parsed.body_chars,
            _text(record.get("superseded_by")),
            int(bool(row[2])),
            row[3],
            row[4],
            *spans["occurred_at"],
            *spans["recorded_at"],
            *spans["updated_at"],
            *spans["due_at"],
        ),
    )
    tx.execute(
        f"INSERT INTO {fts}(rowid, title, aliases, body) VALUES (?,?,?,?)",
        (cursor.lastrowid, _text(record.get("title")) or "", "\n".join(aliases), body),
    )
    return cursor.lastrowid


def refresh(tx: Tx, catalog: Catalog, paths: Iterable[str]) -> set[str]:
    """Update what other files decide (eligibility, type, window, dates) on indexed rows."""
    touched: set[str] = set()
    by_table: dict[str, list[str]] = {}
    for path in paths:
        node = catalog.nodes.get(path)
        if node is None or not node.is_record or node.lifecycle not in ("active", "superseded"):
            continue
        by_table.setdefault(tables(node.scope or "", node.lifecycle == "superseded")[1], []).append(path)
    for rows, candidates in by_table.items():
        # Only rows that exist: after a first scan none do (text is indexed by the
        # first search), and working out dates for every record is not free.
        present = _present(tx, rows, candidates)
        for path in candidates:
            scope = _refresh_one(tx, catalog, rows, path) if path in present else None
            if scope is not None:
                touched.add(scope)
    return touched


def _present(tx: Tx, rows: str, paths: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(p for (p,) in tx.execute(f"SELECT path FROM {rows} WHERE path IN ({marks})", chunk))
    return found


def _refresh_one(tx: Tx, catalog: Catalog, rows: str, path: str) -> str | None:
    """Rewrite one row's derived columns; the row's scope, None without derived state."""
    node = catalog.nodes[path]
    derived = catalog.derived.get(path)
    if derived is None:
        return None
    eligible = derived.valid and not derived.duplicate and derived.deps_ok
    spans = record_times(node)
    tx.execute(
        f"UPDATE {rows} SET type=?, eligible=?, active_from=?, active_until=?,"
        " occurred_start=?, occurred_end=?, recorded_start=?, recorded_end=?,"
        " updated_start=?, updated_end=?, due_start=?, due_end=? WHERE path=?",
        (
            derived.type,
            int(eligible),
            derived.window[0],
            derived.window[1],
            *spans["occurred_at"],
            *spans["recorded_at"],
            *spans["updated_at"],
            *spans["due_at"],
            path,
        ),
    )
    return node.scope or ""


def bump(tx: Tx, scopes: Iterable[str], now: str) -> None:
    for scope in scopes:
        tx.execute(
            "UPDATE keyword_state_v1 SET generation=generation+1, indexed_at=?, scanned_at=? WHERE scope=?",
            (now, now, scope),
        )


def record_times(node: Node) -> dict[str, tuple[str | None, str | None]]:
    """Each date field of a record as a half-open UTC span (a date covers its whole day).

    Meetings and other dated pages carry occurred_at among their fields
    (spec: Dates and Chronicle); claims carry it directly. Unknown dates stay
    absent: recording time never stands in for occurrence.
    """
    data = node.data
    occurred = data.get("occurred_at") if node.kind == "claim" else None
    if node.kind == "page" and isinstance(data.get("fields"), dict):
        occurred = data["fields"].get("occurred_at")
    due = data.get("due_at") if node.kind == "claim" else None
    return {
        "occurred_at": span(occurred),
        "recorded_at": span(data.get("recorded_at")),
        "updated_at": span(data.get("updated_at")),
        "due_at": span(due),
    }


def span(value: Any) -> tuple[str | None, str | None]:
    if not isinstance(value, str):
        return None, None
    try:
        instant = dates.parse_date_or_timestamp(value)
    except dates.DateFormatError:
        return None, None
    return stamp(instant.start), stamp(instant.end)


def stamp(moment: Any) -> str:
    return str(moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


# -- strong terms --------------------------------------------------------------------
def totals(conn: Tx | sqlite3.Connection, scope: str) -> tuple[int, int] | None:
    """(records, tokens) of a partition's current FTS table: the numbers bm25() divides.

    They are read from FTS5's own "averages" record (rowid 1 of the `_data`
    table: a varint row count, then a varint token total per column), so they
    are exactly the statistics the ranking function sees.
    """
    fts, _ = tables(scope)
    try:
        row = conn.execute(f"SELECT block FROM {fts}_data WHERE id=1").fetchone()
    except sqlite3.DatabaseError:
        return None
    if row is None or not isinstance(row[0], bytes):
        return None
    values = _varints(row[0])
    if len(values) != 1 + len(WEIGHTS):
        return None
    return values[0], sum(values[1:])


def _varints(data: bytes) -> list[int]:
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


def strong_avgdl(conn: Tx | sqlite3.Connection, scope: str) -> float | None:
    row = conn.execute("SELECT strong_avgdl FROM keyword_state_v1 WHERE scope=?", (scope,)).fetchone()
    return float(row[0]) if row and row[0] is not None else None


def update_strong(tx: Tx, scope: str, rowids: list[int]) -> None:
    """Store the strong terms of freshly indexed records, in the indexing transaction.

    When the partition's mean record length has outgrown the length the sets
    were cut at (or fallen far below it, which makes them needlessly large),
    every set is recomputed at the new mean plus headroom; otherwise only the
    given records are, at the old cut, which stays a valid upper bound.
    """
    fts, _ = tables(scope)
    strong = strong_table(scope)
    cut = strong_avgdl(tx, scope)
    mean = _mean_length(tx, scope, len(rowids))
    if mean is None:
        if cut is not None:
            tx.execute("UPDATE keyword_state_v1 SET strong_avgdl=NULL WHERE scope=?", (scope,))
        return
    if cut is None or mean > cut or mean < cut / 1.5:
        cut = max(mean, 1.0) * STRONG_HEADROOM
        tx.execute(f"DROP TABLE IF EXISTS {strong}")
        ensure(tx, scope)
        tx.execute("UPDATE keyword_state_v1 SET strong_avgdl=? WHERE scope=?", (cut, scope))
        rowids = [r for (r,) in tx.execute(f"SELECT rowid FROM {fts}")]
    for start in range(0, len(rowids), 500):
        chunk = rowids[start : start + 500]
        texts = tx.execute(
            f"SELECT rowid, title, aliases, body FROM {fts} WHERE rowid IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        tx.executemany(
            f"INSERT OR REPLACE INTO {strong}(rowid, terms) VALUES (?, ?)",
            [(r, t) for r, *text in texts if (t := strong_terms(text, cut))],
        )


def _mean_length(tx: Tx, scope: str, batch: int) -> float | None:
    """The partition's mean record length in tokens, for choosing the cut.

    FTS5 writes its totals record only when the transaction commits, so
    inside it the record shows the state before this batch. For a small
    batch that is close enough — searches check the committed mean against
    the cut and rank exactly while it is exceeded; a large batch (or an
    empty record) is measured from the per-record sizes instead.
    """
    fts, _ = tables(scope)
    committed = totals(tx, scope)
    if committed is not None and committed[0] > 0 and batch <= 1000:
        return committed[1] / committed[0]
    count = tokens = 0
    for (size,) in tx.execute(f"SELECT sz FROM {fts}_docsize"):
        count += 1
        tokens += sum(_varints(size))
    return tokens / count if count else None


def strong_terms(columns: list[str | None], avgdl: float) -> str:
    """The record's strong terms as level tokens, space-separated (or `UNSURE`).

    A term's BM25 share in a record, before IDF, is f·(K1+1) / (f + K1·(1 − B +
    B·D/avgdl)), with f its weighted frequency over the columns and D the
    record's length in tokens. A record where a query term is not stored at
    level i or above scores below IDF × STRONG_LEVELS[i] for it: the bound a
    search uses to leave that record unscored. Counts come from our tokenizer, which follows FTS5's
    `unicode61` exactly on ASCII; other tokens are folded by FTS5 itself, and
    text with characters the two may segment differently is marked unsure.
    """
    counted: list[dict[str, int]] = []
    length = 0
    for text in columns:
        if not text:
            counted.append({})
            continue
        if not text.isascii() and _unsure(text):
            return UNSURE
        counts, size = _column_counts(text)
        counted.append(counts)
        length += size
    title, aliases, body = counted
    norm = K1 * (1 - B + B * length / avgdl)
    # the weighted frequency each level needs, a hair low so rounding never drops a term
    floors = [share * norm / (K1 + 1 - share) * (1 - 1e-9) for share in STRONG_LEVELS]
    weighted = {w: float(n) for w, n in body.items() if n >= floors[0]}
    for word in title.keys() | aliases.keys():
        f = WEIGHTS[0] * title.get(word, 0) + WEIGHTS[1] * aliases.get(word, 0) + body.get(word, 0)
        if f >= floors[0]:
            weighted[word] = f
    return " ".join(
        level_token(sum(1 for floor in floors if f >= floor) - 1, w) for w, f in sorted(weighted.items())
    )


def level_token(level: int, term: str) -> str:
    """How a strong term is stored at a level: one token for FTS5 (a clash with a
    real word only adds candidates, which are scored exactly anyway)."""
    return f"{level}q{term}"


_ASCII_FOLD = str.maketrans({i: chr(i).lower() if chr(i).isalnum() else " " for i in range(128)})


def _column_counts(text: str) -> tuple[dict[str, int], int]:
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
    if _unsure(text):
        return None
    raw = _TOKEN.findall(text)
    folded = _FOLDER.fold(raw)
    return [term for token in raw for term in folded[token]]


def one_term(word: str) -> bool:
    """Whether FTS5 reads the (folded) word as exactly that one term."""
    return word.isascii() or (not _unsure(word) and _FOLDER.fold([word]).get(word) == (word,))


def _unsure(text: str) -> bool:
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
