"""Keyword projection: per-partition FTS5 tables for search (spec: retrieval-and-dates).

Each partition (scope) gets its own tables, so other partitions never touch
its ranking statistics:

- `keyword_fts_v1_<s>` / `keyword_rows_v1_<s>`: records whose lifecycle is
  active — the text (title, aliases, body) and the row facts filters need;
- `keyword_history_fts_v1_<s>` / `keyword_history_rows_v1_<s>`: superseded
  records, for "superseded wording" and historical search;
- `keyword_weights_v1_<s>` / `keyword_lengths_v1_<s>`: each term's weighted
  frequency in the current records and their lengths, so a search for very
  common words scores every match in arrays instead of with bm25() (`weights`);
- `keyword_state_v1`: per scope, a generation counter (the snapshot) and when
  it was last indexed.

This is a projection like the others (`index`, run by every reconcile), in
two stages. The first, in the reconcile's transaction, queues the files whose
bytes changed and refreshes on indexed rows what other files decide
(eligibility, type, validity window, dates). The second, `sync`, indexes the
queued text: run at the end of a bulk reconcile's transaction (a cold scan:
issue 26), by a search before it queries (the spec's index behaviour), by
`knowledge scan --index-text`, or by the window on a worker right after
opening, in chunks. It reads the bodies from disk (the parse
cache keeps no body text) and skips, as lag, a file that changed again
since its scan. Why the text waits is in docs/decisions.md ("The search
text: one projection, indexed in a second stage"). The tokenizer folds case
and diacritics; punctuation separates tokens.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.changes import TEXT
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.fs.read import read_file
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.records import dates, frontmatter
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES
from knowledge_desktop.engine.store import codec, guards, packed
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections import keyword_text, terms, weights
from knowledge_desktop.engine.store.projections.base import Update
from knowledge_desktop.engine.store.schema import keyword_tables

TOKENIZER = terms.TOKENIZER
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
TIME_FIELDS = keyword_text.TIME_FIELDS


# FTS5's bm25() constants, which `query/ranking.py` repeats in its arrays; our column
# weights (title, aliases, body) are `weights.WEIGHTS`.
K1 = 1.2
B = 0.75


def tables(scope: str, history: bool = False) -> tuple[str, str]:
    fts, rows, history_fts, history_rows, *_ = keyword_tables(scope)
    return (history_fts, history_rows) if history else (fts, rows)


def text_tables(scope: str, history: bool = False) -> tuple[str, str]:
    """(stored text, view): the table holding each row's title, aliases and packed body
    (`keyword_text.pack`), and the view FTS5 reads its content from, bodies unpacked."""
    names = keyword_tables(scope)
    stored = names[8] if history else names[7]
    return stored, stored.replace("_text_v1_", "_textview_v1_")


EXCEPTIONS = "eligible=0 OR active_from IS NOT NULL OR active_until IS NOT NULL"
"""Current rows an unfiltered search may leave out: ineligible, or with a validity
window. A partial index keeps them (SQLite maintains it with every insert,
update and delete), so an unfiltered total is the match count minus the few
of them that match and fail the filter."""


def exceptions_index(scope: str) -> str:
    return f"{tables(scope)[1]}_exceptions"


def tags_table(scope: str) -> str:
    return keyword_tables(scope)[6]


FACETS = {
    "kind": "kind",
    "type": "type",
    "occurred": "occurred_start, occurred_end",
    "recorded": "recorded_start, recorded_end",
    "updated": "updated_start, updated_end",
    "due": "due_start, due_end",
}
"""Current rows are indexed by each filter a search may have, with the eligibility
and window columns too, so listing the rows a filter keeps never reads the table
(`grep_ranking._ranked_weights`); tags have their own table (`tags_table`)."""


def ensure(tx: Tx | sqlite3.Connection, scope: str) -> None:
    for history in (False, True):
        fts, rows = tables(scope, history)
        stored, view = text_tables(scope, history)
        # The body is stored once, packed: FTS5 keeps no copy (an external content table)
        # and reads the text through the view (store/packed.py), 54 MB less at 10k records.
        tx.execute(
            f"CREATE TABLE IF NOT EXISTS {stored} (id INTEGER PRIMARY KEY, title TEXT, aliases TEXT, body)"
        )
        tx.execute(
            f"CREATE VIEW IF NOT EXISTS {view} AS SELECT id, title, aliases,"
            f" {packed.UNPACK_SQL}(body) AS body FROM {stored}"
        )
        tx.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {fts} USING fts5("
            f"title, aliases, body, content='{view}', content_rowid='id', tokenize='{TOKENIZER}')"
        )
        columns = ", ".join(f"{c} {'TEXT UNIQUE NOT NULL' if c == 'path' else ''}" for c in ROW_COLUMNS)
        tx.execute(f"CREATE TABLE IF NOT EXISTS {rows} (rowid INTEGER PRIMARY KEY, {columns})")
        tx.execute(f"CREATE INDEX IF NOT EXISTS {rows}_id ON {rows}(id)")
        if not history:
            index = exceptions_index(scope)
            tx.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {rows}(eligible) WHERE {EXCEPTIONS}")
            for name, columns in FACETS.items():
                tx.execute(
                    f"CREATE INDEX IF NOT EXISTS {rows}_by_{name} ON {rows}"
                    f"({columns}, eligible, active_from, active_until)"
                )
    tx.execute(
        f"CREATE TABLE IF NOT EXISTS {tags_table(scope)} (tag TEXT NOT NULL, rowid INTEGER NOT NULL,"
        " PRIMARY KEY (tag, rowid)) WITHOUT ROWID"
    )
    weights.ensure(tx, scope)
    tx.execute(
        "INSERT OR IGNORE INTO keyword_state_v1(scope, generation, indexed_at, scanned_at)"
        " VALUES (?, 0, NULL, NULL)",
        (scope,),
    )


def remove(tx: Tx, scope: str, path: str, changes: weights.Changes) -> None:
    """Drop a file's rows; a current record's term weights go with them (`changes`)."""
    for history in (False, True):
        fts, rows = tables(scope, history)
        stored, _ = text_tables(scope, history)
        found = tx.execute(f"SELECT rowid, tags FROM {rows} WHERE path=?", (path,)).fetchone()
        if found:
            text = None
            if not history:
                tx.executemany(
                    f"DELETE FROM {tags_table(scope)} WHERE tag=? AND rowid=?",
                    [(t, found[0]) for t in set(json.loads(found[1] or "[]"))],
                )
                text = tx.execute(
                    f"SELECT t.title, t.aliases, {packed.UNPACK_SQL}(t.body), d.sz FROM {stored} t"
                    f" JOIN {fts}_docsize d ON d.id = t.id WHERE t.id=?",
                    (found[0],),
                ).fetchone()
                if text is not None:
                    changes.drop(found[0], (text[0], text[1], text[2]), terms.varints(text[3]))
            if text is not None:  # the text at hand: FTS5 need not read it back
                tx.execute(
                    f"INSERT INTO {fts}({fts}, rowid, title, aliases, body) VALUES ('delete', ?, ?, ?, ?)",
                    (found[0], *text[:3]),
                )
            else:  # FTS5 reads the row's text through the view to delete its terms
                tx.execute(f"DELETE FROM {fts} WHERE rowid=?", (found[0],))
            tx.execute(f"DELETE FROM {stored} WHERE id=?", (found[0],))
            tx.execute(f"DELETE FROM {rows} WHERE rowid=?", (found[0],))


flag: Flag = TEXT


def index(tx: Tx, update: Update) -> bool:
    """Queue the text of changed files for the next `sync`, and refresh on indexed rows
    what other files decide. The text itself waits: see the module docstring."""
    have = {s for (s,) in tx.execute("SELECT scope FROM keyword_state_v1")}
    for scope in {scope for scope, _, _ in update.content if scope} - have:
        ensure(tx, scope)
    queued = {(scope, path) for scope, path, kind in update.content if scope and kind == "markdown"}
    queued |= {(p.split("/", 1)[0], p) for p in update.gone if "/" in p}
    mark(tx, queued)
    scopes = {scope for scope, _ in queued} | refresh(tx, update.graph, update.paths)
    bump(tx, scopes, utc_now_text())
    return bool(scopes)


def mark(tx: Tx, items: Iterable[tuple[str, str]]) -> None:
    """Queue (scope, path) pairs whose text the next search must (re)index or drop."""
    tx.executemany("INSERT OR IGNORE INTO keyword_pending_v1(scope, path) VALUES (?, ?)", list(items))


def pending(conn: Tx | sqlite3.Connection, scopes: Iterable[str]) -> int:
    """How many queued files of these partitions wait for their text to be (re)indexed."""
    scopes = list(scopes)
    if not scopes:
        return 0
    marks = ",".join("?" * len(scopes))
    found = conn.execute(f"SELECT count(*) FROM keyword_pending_v1 WHERE scope IN ({marks})", scopes)
    return int(found.fetchone()[0])


def sync(
    tx: Tx,
    root: Path,
    scope: str,
    *,
    after: str = "",
    limit: int | None = None,
    nodes: Mapping[str, RecordNode] | None = None,
    texts: dict[str, keyword_text.RecordText] | None = None,
) -> tuple[int, bool, str]:
    """Index up to `limit` queued files of one partition, in path order after `after`.

    Returns (settled, lag, last path looked at). Only queued paths are looked
    at, so a search after one outside edit costs one file, not a pass over the
    partition; a file that changed again since its scan (lag) stays queued for
    the next reconcile, and `after` lets a caller working in chunks step past it.
    `nodes` (a reconcile's graph, details still held): each record's values are
    taken from its node when the hashes agree, rather than decoded again from
    the parse cache. `texts` (a reconcile's reads): each record's text as its reader
    worked it out (`keyword_text`), used when the hashes agree rather than reading the
    file again; each is let go once used.
    """
    ensure(tx, scope)
    empty = all(
        tx.execute(f"SELECT 1 FROM {tables(scope, h)[1]} LIMIT 1").fetchone() is None for h in (False, True)
    )
    queued = [
        p
        for (p,) in tx.execute(
            "SELECT path FROM keyword_pending_v1 WHERE scope=? AND path>? ORDER BY path LIMIT ?",
            (scope, after, -1 if limit is None else limit),
        )
    ]
    if empty or (len(queued) >= BATCH and not _any_indexed(tx, scope, queued)):
        # A first build, or new files only (a cold scan's later chunks): nothing to
        # remove, rows written a batch at a time
        done, lag, changes = _bulk(tx, root, scope, queued, nodes, texts)
    else:
        done, lag, changes = _one_by_one(tx, root, scope, queued, nodes, texts)
    tx.executemany("DELETE FROM keyword_pending_v1 WHERE path=?", done)
    weights.apply(tx, scope, changes)
    return len(done), lag, queued[-1] if queued else after


CATALOG = (
    "sha256, lifecycle, status, NULL, type, valid AND NOT duplicate AND deps_ok, active_from, active_until"
)
"""What indexing reads of a file's catalog row: its hash and lifecycle (is it indexed, and
where), then the values `_prepare` takes as `catalog`."""


def _one_by_one(
    tx: Tx,
    root: Path,
    scope: str,
    queued: list[str],
    nodes: Mapping[str, RecordNode] | None,
    texts: dict[str, keyword_text.RecordText] | None,
) -> tuple[list[tuple[str]], bool, weights.Changes]:
    """Index queued files into a partition that has rows: each replaces its old row."""
    lag = False
    done: list[tuple[str]] = []
    changes = weights.Changes()
    for path in queued:
        row = tx.execute(f"SELECT {CATALOG} FROM catalog WHERE path=?", (path,)).fetchone()
        if row is None or row[2] != "record" or row[1] not in ("active", "superseded"):
            remove(tx, scope, path, changes)
            done.append((path,))
            continue
        _, rows = tables(scope, row[1] == "superseded")
        known = tx.execute(f"SELECT sha256 FROM {rows} WHERE path=?", (path,)).fetchone()
        if known is not None and known[0] == row[0]:
            done.append((path,))
            continue
        node = nodes.get(path) if nodes is not None else None
        text = texts.pop(path, None) if texts is not None else None
        rowid = _index_one(tx, root, scope, path, row[0], row[1], changes, node, catalog=row[3:], text=text)
        if rowid is None:
            lag = True
            continue
        done.append((path,))
        if row[1] == "active":
            changes.added.append(rowid)
            if len(changes.added) + len(changes.gone) > weights.BLOCK:
                changes = weights.apply_complete(tx, scope, changes)  # (memory stays bounded)
    return done, lag, changes


BATCH = 256
"""Files a first build reads the catalog for, and writes rows of, at a time; a queue this
long of files none of which has rows yet is written the same way."""


def _any_indexed(tx: Tx, scope: str, paths: list[str]) -> bool:
    """Whether any of `paths` has a row in the partition's text (current or history)."""
    for history in (False, True):
        rows = tables(scope, history)[1]
        for start in range(0, len(paths), 10_000):
            found = tx.execute(
                f"SELECT 1 FROM {rows} WHERE path IN (SELECT value FROM json_each(?)) LIMIT 1",
                (json.dumps(paths[start : start + 10_000]),),
            ).fetchone()
            if found is not None:
                return True
    return False


def _bulk(
    tx: Tx,
    root: Path,
    scope: str,
    queued: list[str],
    nodes: Mapping[str, RecordNode] | None,
    texts: dict[str, keyword_text.RecordText] | None,
) -> tuple[list[tuple[str]], bool, weights.Changes]:
    """Index queued files none of which has rows yet (a cold scan, the first search, a cold
    scan's later chunks).

    The rows are those `_one_by_one` would write, rowids included: each table's next rowid
    is the one SQLite would give, handed out in path order. Written a batch at a time, one
    statement per table, with the catalog read once a batch: no statement per record."""
    lag = False
    done: list[tuple[str]] = []
    changes = weights.Changes()
    next_rowid = {
        history: int(
            tx.execute(f"SELECT coalesce(max(rowid), 0) + 1 FROM {tables(scope, history)[1]}").fetchone()[0]
        )
        for history in (False, True)
    }
    for start in range(0, len(queued), BATCH):
        batch = queued[start : start + BATCH]
        found = {
            r[0]: r[1:]
            for r in tx.execute(
                f"SELECT path, {CATALOG} FROM catalog WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(batch),),
            )
        }
        written: dict[bool, list[tuple[int, _Prepared]]] = {False: [], True: []}
        for path in batch:
            row = found.get(path)
            if row is None or row[2] != "record" or row[1] not in ("active", "superseded"):
                done.append((path,))
                continue
            node = nodes.get(path) if nodes is not None else None
            text = texts.pop(path, None) if texts is not None else None
            prepared = _prepare(tx, root, scope, path, row[0], row[1], node, catalog=row[3:], text=text)
            if prepared is None:
                lag = True
                continue
            done.append((path,))
            history = row[1] == "superseded"
            written[history].append((next_rowid[history], prepared))
            next_rowid[history] += 1
        for history, items in written.items():
            if items:
                _write_batch(tx, scope, history, items, changes)
        if len(changes.added) + len(changes.gone) > weights.BLOCK:
            changes = weights.apply_complete(tx, scope, changes)  # (memory stays bounded)
    return done, lag, changes


def _write_batch(
    tx: Tx, scope: str, history: bool, items: list[tuple[int, _Prepared]], changes: weights.Changes
) -> None:
    """Insert prepared rows under the rowids given, one statement per table; note the
    current ones' terms in `changes`."""
    fts, rows = tables(scope, history)
    stored, _ = text_tables(scope, history)
    tx.executemany(
        f"INSERT INTO {rows}(rowid, {', '.join(ROW_COLUMNS)}) VALUES ({_MARKS})",
        [(r, *p.values) for r, p in items],
    )
    tx.executemany(
        f"INSERT INTO {stored}(id, title, aliases, body) VALUES (?,?,?,?)", [(r, *p.stored) for r, p in items]
    )
    tx.executemany(
        f"INSERT INTO {fts}(rowid, title, aliases, body) VALUES (?,?,?,?)", [(r, *p.texts) for r, p in items]
    )
    if history:
        return
    unsure = [r for r, p in items if p.check]
    sizes: dict[int, list[int]] = {}
    if unsure:
        sizes = {
            i: terms.varints(sz)
            for i, sz in tx.execute(
                f"SELECT id, sz FROM {fts}_docsize WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(unsure),),
            )
        }
    for rowid, prepared in items:
        changes.added.append(rowid)
        changes.tokens[rowid] = prepared.checked(sizes.get(rowid, []))
    tx.executemany(
        f"INSERT OR IGNORE INTO {tags_table(scope)}(tag, rowid) VALUES (?, ?)",
        [(t, rowid) for rowid, p in items for t in set(p.tags)],
    )


_MARKS = ",".join("?" * (len(ROW_COLUMNS) + 1))


@dataclass(slots=True)
class _Prepared:
    """One record's rows as `_prepare` worked them out, before they have a rowid."""

    history: bool
    values: tuple[Any, ...]
    """The rows table's values, in `ROW_COLUMNS` order."""
    stored: tuple[str, str, str | bytes]
    """Title, aliases and the body as stored (`packed.pack`)."""
    texts: tuple[str, str, str]
    """Title, aliases and body, as FTS5 indexes them."""
    tags: list[str]
    tokens: weights.Tokens | None
    check: bool
    """The terms are to be checked against FTS5's column sizes (or, without `tokens`,
    worked out from `texts` and them) once the row is in FTS5."""
    from_text: bool
    """The terms came as the reader worked them out (else they are worked out here)."""

    def checked(self, sizes: list[int]) -> weights.Tokens | None:
        """The record's terms for the weights, given FTS5's column sizes when `check`."""
        if not self.check:
            return self.tokens
        if not self.from_text:
            return weights.record_terms(self.texts, sizes)
        if self.tokens is not None and list(self.tokens.sizes) != sizes:
            return None
        return self.tokens


def _index_one(
    tx: Tx,
    root: Path,
    scope: str,
    path: str,
    sha: str,
    lifecycle: str,
    changes: weights.Changes,
    node: RecordNode | None = None,
    *,
    catalog: tuple[Any, ...] = (),
    text: keyword_text.RecordText | None = None,
) -> int | None:
    """Replace one file's rows; its new rowid, or None when it could not be read as scanned."""
    remove(tx, scope, path, changes)
    prepared = _prepare(tx, root, scope, path, sha, lifecycle, node, catalog=catalog, text=text)
    if prepared is None:
        return None
    fts, rows = tables(scope, prepared.history)
    stored, _ = text_tables(scope, prepared.history)
    cursor = tx.execute(
        f"INSERT INTO {rows}({', '.join(ROW_COLUMNS)}) VALUES ({_MARKS[2:]})", prepared.values
    )
    rowid = cursor.lastrowid or 0
    tx.execute(f"INSERT INTO {stored}(id, title, aliases, body) VALUES (?,?,?,?)", (rowid, *prepared.stored))
    tx.execute(f"INSERT INTO {fts}(rowid, title, aliases, body) VALUES (?,?,?,?)", (rowid, *prepared.texts))
    if not prepared.history:
        sizes: list[int] = []
        if prepared.check:
            size = tx.execute(f"SELECT sz FROM {fts}_docsize WHERE id=?", (rowid,)).fetchone()
            sizes = terms.varints(size[0]) if size is not None else []
        changes.tokens[rowid] = prepared.checked(sizes)
        tx.executemany(
            f"INSERT OR IGNORE INTO {tags_table(scope)}(tag, rowid) VALUES (?, ?)",
            [(t, rowid) for t in set(prepared.tags)],
        )
    return rowid


def _prepare(
    tx: Tx,
    root: Path,
    scope: str,
    path: str,
    sha: str,
    lifecycle: str,
    node: RecordNode | None = None,
    *,
    catalog: tuple[Any, ...] = (),
    text: keyword_text.RecordText | None = None,
) -> _Prepared | None:
    """One file's rows, or None when it could not be read as scanned.

    `lifecycle` is the catalog's: a durable guard may hold the record at less
    than its file says (`graph/guards.py`), and then names its replacement.
    `node`: the record as parsed, if at hand (used when its hash is `sha`).
    `catalog`: (None, type, eligible, active_from, active_until) as the caller read them
    with the hash and lifecycle, used with `node`. `text`: the record's text as its reader
    worked it out, used when its hash is `sha`."""
    if node is not None and node.sha256 != sha:
        node = None
    if text is not None and text.sha256 == sha:
        body = packed.unpack(text.body) or ""
        stored_body = text.body
    else:
        text = None
        try:
            data = read_file(str(root / path), MAX_FILE_BYTES).data
        except OSError:
            return None
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            return None  # changed again since the scan: the next reconcile catches up
        split = frontmatter.split(data.decode("utf-8").removeprefix("\ufeff"))
        body = split.body if split is not None else ""
        stored_body = packed.pack(body)
    if node is None:
        row = tx.execute(
            "SELECT f.node, c.type, c.valid AND NOT c.duplicate AND c.deps_ok, c.active_from,"
            " c.active_until, c.size FROM files f JOIN catalog c ON c.path = f.path WHERE f.path=?",
            (path,),
        ).fetchone()
        if row is None or not row[0]:
            return None
        node = RecordNode(codec.decode(path, scope, sha, int(row[5]), row[0]))
    elif catalog:
        row = catalog
    else:
        row = tx.execute(
            "SELECT NULL, type, valid AND NOT duplicate AND deps_ok, active_from, active_until"
            " FROM catalog WHERE path=?",
            (path,),
        ).fetchone()
        if row is None:
            return None
    superseded_by = _text(node.value("superseded_by"))
    if lifecycle != node.lifecycle:
        held = guards.of_record(tx, scope, node.id or "")
        superseded_by = held.by_id if held is not None else superseded_by
    aliases = [a for a in node.value("aliases") or [] if isinstance(a, str)]
    tokens = None
    if text is not None:
        spans, tokens = text.unpacked()
    else:
        times = record_times(node)
        spans = tuple(v for name in TIME_FIELDS for v in times[name])
    tags = [t for t in node.value("tags") or [] if isinstance(t, str)]
    title = _text(node.value("title"))
    revision = node.value("revision")
    values = (
        path,
        node.id,
        node.kind,
        row[1],
        title,
        revision if isinstance(revision, int) else None,
        sha,
        lifecycle,
        json.dumps(tags),
        node.body_line,
        node.body_chars,
        superseded_by,
        int(bool(row[2])),
        row[3],
        row[4],
        *spans,
    )
    texts = (title or "", "\n".join(aliases), body)
    # The terms for the weights, from the text at hand (read back from FTS5, a bulk
    # index spent as long again re-reading what it had just written), or as the reader
    # worked them out: on ASCII text they are FTS5's by construction.
    check = text is None or (tokens is not None and not text.exact)
    return _Prepared(
        lifecycle == "superseded",
        values,
        (texts[0], texts[1], stored_body),
        texts,
        tags,
        tokens,
        check,
        text is not None,
    )


def refresh(tx: Tx, graph: VaultGraph, paths: Iterable[str]) -> set[str]:
    """Update what other files decide (eligibility, type, window, dates) on indexed rows."""
    touched: set[str] = set()
    by_table: dict[str, list[str]] = {}
    for path in paths:
        node = graph.nodes.get(path)
        if node is None or not node.is_record or node.lifecycle not in ("active", "superseded"):
            continue
        by_table.setdefault(tables(node.scope or "", node.lifecycle == "superseded")[1], []).append(path)
    for rows, candidates in by_table.items():
        # Only rows that exist: after a first scan none do (text is indexed by the
        # first search), and working out dates for every record is not free.
        present = _present(tx, rows, candidates)
        for path in candidates:
            scope = _refresh_one(tx, graph, rows, path) if path in present else None
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


def _refresh_one(tx: Tx, graph: VaultGraph, rows: str, path: str) -> str | None:
    """Rewrite one row's derived columns; the row's scope, None without derived state."""
    node = graph.nodes[path]
    derived = graph.derived.get(path)
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


def record_times(node: RecordNode) -> dict[str, tuple[str | None, str | None]]:
    return times_of(node.kind, node.value)


def times_of(kind: str | None, value: Callable[[str], Any]) -> dict[str, tuple[str | None, str | None]]:
    """Each date field of a record as a half-open UTC span (a date covers its whole day).

    Meetings and other dated pages carry occurred_at among their fields
    (spec: Dates and Chronicle); claims carry it directly. Unknown dates stay
    absent: recording time never stands in for occurrence.
    """
    occurred = value("occurred_at") if kind == "claim" else None
    fields = value("fields")
    if kind == "page" and isinstance(fields, dict):
        occurred = fields.get("occurred_at")
    due = value("due_at") if kind == "claim" else None
    return {
        "occurred_at": span(occurred),
        "recorded_at": span(value("recorded_at")),
        "updated_at": span(value("updated_at")),
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
