"""Embedding projection: one vector per passage of every current record and note, for search
by meaning.

Like the keyword projection (`keyword.py`) it works in two stages. Reconcile's
transaction only queues the files whose bytes changed or went (`index`: one
row per file, so a cold scan pays next to nothing for it). `sync`, run by the
first search by meaning that needs it, embeds the queued files: it takes the
text the keyword projection already indexed (title, aliases, body; so the two
halves of a hybrid search always see the same version of a record), cuts the
body into the chunks `documents.get` pages by, and stores one float16 vector
per chunk, the title and aliases weighted in, and one more per file, the
normalised mean of its passages'. A file's vectors sit in one row
(`semantic_records_v1`), its passages' lines and text in `semantic_chunks_v1`:
the first stage of a search by meaning scans the files' own vectors, the
second the passages of the files it kept, both as held in memory
(`query/semantic_held.py`), and the few files it cannot rank from memory are
read again here, one row each (`query/hybrid.py`). A file still queued for its text stays queued here too.
Every change of a scope's vectors is stamped with a new generation and logs the files it
changed (`semantic_changes_v1`, `_stamp`), so that copy in memory is patched, not read again.

Notes (issue 25) are embedded the same way from the notes' text index
(`note_text.py`), their vectors stored under the scope `NOTES` rather than a
partition's: a partition's scan, the only one the knowledge API runs, never
meets a note.

The vectors are tied to the model that made them: `semantic_state_v1` keeps
the model's name and dimension (row scope ''), and a different model empties
the table and queues every indexed record again. The tables are projections:
dropped and rebuilt with the others, written in the caller's transaction, so a
kill leaves either the old rows and queue or the new ones.

Why float16 and a brute-force scan: docs/decisions.md ("Search by meaning"). The queue
reconcile writes lives in `semantic_queue.py`, which needs no numpy, so indexing a vault
loads neither numpy nor the model.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import numpy as np

from knowledge_desktop.engine.semantic.chunks import chunk_lines
from knowledge_desktop.engine.semantic.model import Embedder, normalise
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections import note_text
from knowledge_desktop.engine.store.projections.semantic_queue import NOTES
from knowledge_desktop.engine.store.schema import keyword_tables

STORED = np.float16
TITLE_WEIGHT = 0.5
"""How much of the title-and-aliases vector each passage's vector carries: enough that
"Tomas" finds Tomas's page by any of its paragraphs, not so much that every passage of a
page looks alike."""
SNIPPET_CHARS = 240
EMBED_BATCH = 512
LOGGED = 4096
"""Changed files a scope's log keeps (the newest generations'): a reader further behind
reads everything again, which costs about what patching that many files would."""


def model_of(conn: Tx | sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT model FROM semantic_state_v1 WHERE scope=''").fetchone()
    return str(row[0]) if row and row[0] else None


def model_key(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.dim}"


def adopt_model(tx: Tx, embedder: Embedder) -> bool:
    """Make the stored vectors the embedder's: when another model (or dimension) made
    them, drop them all and queue every indexed record again. Whether it did."""
    key = model_key(embedder)
    stored = model_of(tx)
    if stored == key:
        return False
    tx.execute("DELETE FROM semantic_chunks_v1")
    tx.execute("DELETE FROM semantic_records_v1")
    for (scope,) in tx.execute("SELECT scope FROM keyword_state_v1").fetchall():
        rows = keyword_tables(scope)[1]
        tx.execute(
            f"INSERT OR IGNORE INTO semantic_pending_v1(scope, path) SELECT ?, path FROM {rows}",
            (scope,),
        )
        _stamp(tx, scope, None)
    tx.execute(
        f"INSERT OR IGNORE INTO semantic_pending_v1(scope, path)"
        f" SELECT coalesce(scope, '{NOTES}'), path FROM {note_text.ROWS}"
    )
    _stamp(tx, NOTES, None)
    tx.execute(
        "INSERT INTO semantic_state_v1(scope, generation, model) VALUES ('', 0, ?)"
        " ON CONFLICT(scope) DO UPDATE SET model=excluded.model",
        (key,),
    )
    return stored is not None


def sync(tx: Tx, scope: str, embedder: Embedder, limit: int | None = None) -> int:
    """Embed up to `limit` queued files of one scope (all when None) from their indexed
    text, in path order; how many settled.

    A queued file is embedded as a record when its partition's text has it, else as a note
    when the notes' text has it (stored under `NOTES`), else its vectors go. A file whose
    text is still queued for the keyword or the notes' projection stays queued."""
    adopt_model(tx, embedder)
    fts, rows = keyword_tables(scope)[:2] if scope != NOTES else ("", "")
    have = {n for (n,) in tx.execute("SELECT name FROM sqlite_master WHERE name IN (?, ?)", (fts, rows))}
    queued = [
        p
        for (p,) in tx.execute(
            "SELECT path FROM semantic_pending_v1 WHERE scope=? AND path NOT IN"
            " (SELECT path FROM keyword_pending_v1) AND path NOT IN (SELECT path FROM note_text_pending_v1)"
            " ORDER BY path LIMIT ?",
            (scope, -1 if limit is None else limit),
        )
    ]
    if not queued:
        return 0
    work: list[tuple[str, str, str, int, str, str]] = []  # scope, path, sha, body_line, title, body
    for path in queued:
        found, home = None, scope
        if len(have) == 2:
            found = tx.execute(
                f"SELECT r.sha256, r.body_line, f.title, f.aliases, f.body FROM {rows} r"
                f" JOIN {fts} f ON f.rowid = r.rowid WHERE r.path=?",
                (path,),
            ).fetchone()
        if found is None:
            found, home = _note(tx, path), NOTES
        if found is None:
            _forget(tx, path)
            continue
        known = tx.execute(
            "SELECT sha256 FROM semantic_chunks_v1 WHERE path=? AND scope=? LIMIT 1", (path, home)
        ).fetchone()
        if known is not None and known[0] == found[0]:
            continue
        _forget(tx, path)
        title = "\n".join(t for t in (found[2], found[3]) if t)
        work.append((home, path, str(found[0]), int(found[1] or 1), title, str(found[4] or "")))
    for start in range(0, len(work), EMBED_BATCH):
        _embed_batch(tx, embedder, work[start : start + EMBED_BATCH])
    tx.executemany("DELETE FROM semantic_pending_v1 WHERE path=?", [(p,) for p in queued])
    _stamp(tx, scope, queued)
    if scope != NOTES:
        _stamp(tx, NOTES, queued)  # a partition's note may have gained or lost its vectors
    return len(queued)


def _forget(tx: Tx, path: str) -> None:
    tx.execute("DELETE FROM semantic_chunks_v1 WHERE path=?", (path,))
    tx.execute("DELETE FROM semantic_records_v1 WHERE path=?", (path,))


def _note(tx: Tx, path: str) -> Any:
    """A note's indexed text (sha, body line, title, aliases, body), as `sync` reads a record's."""
    return tx.execute(
        f"SELECT r.sha256, r.body_line, f.title, f.aliases, f.body FROM {note_text.ROWS} r"
        f" JOIN {note_text.FTS} f ON f.rowid = r.rowid WHERE r.path=?",
        (path,),
    ).fetchone()


def _stamp(tx: Tx, scope: str, changed: list[str] | None) -> None:
    """Give the partition's vectors a new generation, and log which files it changed
    (`changed`; None for all of them).

    A counter would start again at 1 after a rebuild, and a reader holding the old
    vectors in memory (`query/semantic_held.py`) would take them for current: the
    generation is the time of the change instead, with `+ 1` over the old value for a
    clock that went back. The log, written in the same transaction as the vectors,
    lets that reader patch its copy with the changed files' rows instead of listing
    every file again; `logged` says from which generation on it is complete, so a log
    that was cut, or a table made anew, sends the reader to a full read."""
    now = time.time_ns()
    tx.execute(
        "INSERT INTO semantic_state_v1(scope, generation, logged) VALUES (?, ?, ?)"
        " ON CONFLICT(scope) DO UPDATE SET generation=max(excluded.generation, generation + 1)",
        (scope, now, now),
    )
    (generation,) = tx.execute("SELECT generation FROM semantic_state_v1 WHERE scope=?", (scope,)).fetchone()
    if changed is None or len(changed) > LOGGED:
        tx.execute("DELETE FROM semantic_changes_v1 WHERE scope=?", (scope,))
        tx.execute("UPDATE semantic_state_v1 SET logged=generation WHERE scope=?", (scope,))
        return
    tx.executemany(
        "INSERT OR IGNORE INTO semantic_changes_v1(scope, generation, path) VALUES (?,?,?)",
        [(scope, generation, path) for path in changed],
    )
    cut = tx.execute(
        "SELECT generation FROM semantic_changes_v1 WHERE scope=? ORDER BY generation DESC LIMIT 1 OFFSET ?",
        (scope, LOGGED),
    ).fetchone()
    if cut is not None:
        tx.execute("DELETE FROM semantic_changes_v1 WHERE scope=? AND generation<=?", (scope, cut[0]))
        tx.execute(
            "UPDATE semantic_state_v1 SET logged=max(coalesce(logged, ?), ?) WHERE scope=?",
            (cut[0], cut[0], scope),
        )


def _embed_batch(tx: Tx, embedder: Embedder, work: list[tuple[str, str, str, int, str, str]]) -> None:
    passages: list[tuple[str, str, int, int, int, str]] = []  # path, sha, chunk, first, last, text
    scope_of = {path: scope for scope, path, *_rest in work}
    for _scope, path, sha, body_line, title, body in work:
        parts = chunk_lines(body)
        if not parts:
            passages.append((path, sha, 0, body_line, body_line, title))
        heading = ""
        for number, (text, first, last) in enumerate(parts):
            if _is_heading(text) and number + 1 < len(parts):
                heading += text + "\n"  # a lone heading is read with the block below it
                continue
            passages.append((path, sha, number, body_line + first, body_line + last, heading + text))
            heading = ""
    titles = embedder.embed([w[4] for w in work])
    title_of = {w[1]: titles[i] for i, w in enumerate(work)}
    texts = embedder.embed([p[5] for p in passages])
    mixed = texts + TITLE_WEIGHT * np.stack([title_of[p[0]] for p in passages])
    vectors = normalise(mixed.astype(np.float32)).astype(STORED)
    tx.executemany(
        "INSERT INTO semantic_chunks_v1(scope, path, sha256, chunk, line_start, line_end, text)"
        " VALUES (?,?,?,?,?,?,?)",
        [
            (scope_of[path], path, sha, number, first, last, text[:SNIPPET_CHARS])
            for path, sha, number, first, last, text in passages
        ],
    )
    # One vector per file from its stored (float16) passages, so the first stage's vector
    # depends on those alone, however the files were batched.
    paths = [p[0] for p in passages]
    starts = [i for i in range(len(paths)) if i == 0 or paths[i] != paths[i - 1]]
    means = np.add.reduceat(vectors.astype(np.float32), starts, axis=0)
    files = normalise(means).astype(STORED)
    ends = [*starts[1:], len(paths)]
    tx.executemany(
        "INSERT INTO semantic_records_v1(path, scope, vector, passages) VALUES (?,?,?,?)",
        [
            (paths[at], scope_of[paths[at]], files[i].tobytes(), vectors[at : ends[i]].tobytes())
            for i, at in enumerate(starts)
        ],
    )


def _is_heading(text: str) -> bool:
    return "\n" not in text.strip() and text.lstrip().startswith("#")


def generation(conn: sqlite3.Connection, scope: str) -> int:
    row = conn.execute("SELECT generation FROM semantic_state_v1 WHERE scope=?", (scope,)).fetchone()
    return int(row[0]) if row else 0
