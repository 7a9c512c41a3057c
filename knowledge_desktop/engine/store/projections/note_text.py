"""Notes' search text: one vault-wide FTS5 table beside the records' per-partition ones.

A note (issue 25: Markdown that is not a record and does not try to be one)
is searched by its title, aliases, tags and body. Its text is kept out of the
records' tables on purpose: record search ranks within a partition's records
only (spec: retrieval-and-dates, "Scope and filters are applied before corpus
statistics"), and `knowledge grep` without `--kind note` must answer exactly
as before. A note at the vault's root has no partition at all, so one table
for the whole vault is also the only place every note fits.

- `note_text_fts_v1`: title, aliases, tags, body (the keyword tokenizer);
- `note_text_rows_v1`: per indexed note its path, partition (NULL at the
  root), title, tags and the hash of the bytes indexed;
- `note_text_pending_v1`: notes whose text the next search must (re)index or
  drop;
- `note_names_v1`: the normalised names each note answers to (file name,
  title, aliases), kept at reconcile like the catalog's names: the quick
  switcher and lookup read them.

Like the records' text it is indexed in two stages (docs/decisions.md, "The
search text: one projection, indexed in a second stage"): reconcile only
queues changed Markdown (`index`); `sync`, run by a notes search, by
`knowledge scan --index-text` or by the window's background indexer, reads
the queued files. The catalog row (status "note", written by the catalog
projection) supplies the title, aliases and tags, so they are read exactly
as the catalog and the switcher show them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from knowledge_desktop.engine.changes import TEXT
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.fs.read import read_file
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.records import frontmatter
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES
from knowledge_desktop.engine.store import packed
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Update

FTS = "note_text_fts_v1"
STORE = "note_text_store_v1"
"""The text FTS5 indexes, the body packed (`store/packed.py`): FTS5 reads it through a view."""
ROWS = "note_text_rows_v1"
PENDING = "note_text_pending_v1"
NAMES = "note_names_v1"
GENERATION_KEY = "note_text_generation"
"""`projection_meta` key: bumped whenever indexed note text changes (a search's snapshot)."""

WEIGHTS = (8.0, 6.0, 6.0, 1.0)
"""bm25() column weights: title and aliases as for records (spec: retrieval-and-dates),
tags as strong as aliases (a tag names what a note is about), body 1."""

TABLES = (FTS, STORE, ROWS, PENDING, NAMES)
"""Created and dropped with the other projections (`store/schema.py`, which spells the
keyword tokenizer, `terms.TOKENIZER`, for the FTS table)."""

flag: Flag = TEXT


def index(tx: Tx, update: Update) -> bool:
    """Queue the changed notes, and the files that were notes and changed or went away.

    Runs after the catalog projection (`reconcile.PROJECTIONS`), so the catalog
    already says which changed files are notes; a records-only vault queues
    nothing. Many changes at once (a scan) queue every note: unchanged ones are
    settled by their hash without being read."""
    names(tx, update.paths, update.gone)
    markdown = [path for _scope, path, kind in update.content if kind == "markdown"]
    before = pending(tx)
    if len(markdown) > BULK:
        tx.execute(
            f"INSERT OR IGNORE INTO {PENDING}(path) SELECT path FROM catalog WHERE status='note'"
            f" UNION ALL SELECT path FROM {ROWS}"
        )
    else:
        tx.executemany(
            f"INSERT OR IGNORE INTO {PENDING}(path) SELECT ?1 WHERE EXISTS"
            f" (SELECT 1 FROM catalog WHERE path=?1 AND status='note')"
            f" OR EXISTS (SELECT 1 FROM {ROWS} WHERE path=?1)",
            [(p,) for p in markdown],
        )
    tx.executemany(
        f"INSERT OR IGNORE INTO {PENDING}(path) SELECT path FROM {ROWS} WHERE path=?",
        [(p,) for p in update.gone],
    )
    return pending(tx) != before


BULK = 2000
"""Changed files past which every note is queued in one statement instead of one by one."""


def names(tx: Tx, paths: list[str], gone: list[str]) -> None:
    """Rewrite the names of the recomputed notes (`NAMES`) from their catalog rows.

    The catalog's own name index lists records' names only (they resolve links
    inside a partition); the switcher and lookup find notes by these."""
    tx.executemany(f"DELETE FROM {NAMES} WHERE path=?", [(p,) for p in [*paths, *gone]])
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        rows = tx.execute(
            "SELECT path, title, aliases FROM catalog WHERE status='note'"
            f" AND path IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        tx.executemany(
            f"INSERT OR IGNORE INTO {NAMES}(name, path) VALUES (?, ?)",
            [(name, path) for path, title, aliases in rows for name in note_names(path, title, aliases)],
        )


def note_names(path: str, title: object, aliases: object) -> set[str]:
    """Every normalised name a note answers to: file name (with and without `.md`), title,
    aliases (`aliases` as the catalog stores them, a JSON list)."""
    name = path.rsplit("/", 1)[-1]
    found = {name, name[:-3] if name.lower().endswith(".md") else name}
    if isinstance(title, str):
        found.add(title)
    found.update(_strings(aliases))
    return {n for n in (normalise_name(x) for x in found) if n}


def pending(conn: Tx | sqlite3.Connection) -> int:
    """How many queued files wait for their note text to be (re)indexed or dropped."""
    return int(conn.execute(f"SELECT count(*) FROM {PENDING}").fetchone()[0])


def generation(conn: Tx | sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM projection_meta WHERE key=?", (GENERATION_KEY,)).fetchone()
    return int(row[0]) if row else 0


def sync(tx: Tx, root: Path, *, after: str = "", limit: int | None = None) -> tuple[int, bool, str]:
    """Index up to `limit` queued files in path order after `after`.

    Returns (settled, lag, last path looked at), as the records' `keyword.sync`
    does: a file that changed again since its scan stays queued (lag) for the
    next reconcile, and `after` lets a caller working in chunks step past it.
    """
    queued = [
        str(p)
        for (p,) in tx.execute(
            f"SELECT path FROM {PENDING} WHERE path>? ORDER BY path LIMIT ?",
            (after, -1 if limit is None else limit),
        )
    ]
    lag = False
    done: list[tuple[str]] = []
    moved = False
    for path in queued:
        row = tx.execute(
            "SELECT sha256, status, scope, title, aliases, tags FROM catalog WHERE path=?", (path,)
        ).fetchone()
        known = tx.execute(f"SELECT rowid, sha256 FROM {ROWS} WHERE path=?", (path,)).fetchone()
        if row is None or row[1] != "note":
            if known is not None:
                _remove(tx, int(known[0]))
                moved = True
            done.append((path,))
            continue
        if known is not None and known[1] == row[0]:
            done.append((path,))
            continue
        if known is not None:
            _remove(tx, int(known[0]))
            moved = True
        if not _index_one(tx, root, path, row):
            lag = True
            continue
        moved = True
        done.append((path,))
    tx.executemany(f"DELETE FROM {PENDING} WHERE path=?", done)
    if moved:
        tx.execute(
            "INSERT INTO projection_meta(key, value) VALUES (?, '1') ON CONFLICT(key)"
            " DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            (GENERATION_KEY,),
        )
    return len(done), lag, queued[-1] if queued else after


def _remove(tx: Tx, rowid: int) -> None:
    tx.execute(f"DELETE FROM {FTS} WHERE rowid=?", (rowid,))  # (FTS5 reads the text to drop)
    tx.execute(f"DELETE FROM {STORE} WHERE id=?", (rowid,))
    tx.execute(f"DELETE FROM {ROWS} WHERE rowid=?", (rowid,))


def _index_one(tx: Tx, root: Path, path: str, row: tuple[object, ...]) -> bool:
    """Index one note from its bytes on disk; False when they are not the bytes scanned."""
    sha, _status, scope, title, aliases_json, tags_json = row
    try:
        data = read_file(str(root / path), MAX_FILE_BYTES).data
    except OSError:
        return False
    if data is None or hashlib.sha256(data).hexdigest() != sha:
        return False  # changed again since the scan: the next reconcile catches up
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    body, body_line = _body(text)
    aliases = _strings(aliases_json)
    tags = _strings(tags_json)
    cursor = tx.execute(
        f"INSERT INTO {ROWS}(path, scope, title, tags, body_line, sha256) VALUES (?,?,?,?,?,?)",
        (path, scope, title, json.dumps(tags), body_line, sha),
    )
    texts = (title if isinstance(title, str) else "", "\n".join(aliases), " ".join(tags))
    tx.execute(
        f"INSERT INTO {STORE}(id, title, aliases, tags, body) VALUES (?,?,?,?,?)",
        (cursor.lastrowid, *texts, packed.pack(body)),
    )
    tx.execute(
        f"INSERT INTO {FTS}(rowid, title, aliases, tags, body) VALUES (?,?,?,?,?)",
        (cursor.lastrowid, *texts, body),
    )
    return True


def _body(text: str) -> tuple[str, int]:
    """The body after the frontmatter and its first line; a note whose frontmatter never
    closes (or is too large) is all body, as a reader of the file sees it."""
    try:
        split = frontmatter.split(text)
    except frontmatter.FrontmatterError:
        split = None
    if split is None:
        return text, 1
    return split.body, split.body_first_line


def _strings(value: object) -> list[str]:
    try:
        items = json.loads(value) if isinstance(value, str) else []
    except ValueError:
        return []
    return [v for v in items if isinstance(v, str)] if isinstance(items, list) else []
