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
from dataclasses import dataclass
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


Work = tuple[str, str, str, int, str, str]
"""A file to embed: its home scope, path, sha256, body line, title and aliases, body."""
Outcome = tuple[str, str] | None
"""What a queued file's indexed text says: (home scope, sha256), or None when it has none."""


@dataclass(frozen=True, slots=True)
class Step:
    """Queued files of one scope and what their indexed text was when they were read
    (`plan`): the vectors are worked out from it outside any transaction, and only the
    files whose text is still the same when they are stored take them (`store`)."""

    scope: str
    outcomes: dict[str, Outcome]
    work: list[Work]


@dataclass(frozen=True, slots=True)
class Vectors:
    """A step's vectors as rows to insert, by path: passages (`semantic_chunks_v1`) and files
    (`semantic_records_v1`)."""

    chunks: dict[str, list[tuple[Any, ...]]]
    files: dict[str, tuple[Any, ...]]


def sync(tx: Tx, scope: str, embedder: Embedder, limit: int | None = None) -> int:
    """Embed up to `limit` queued files of one scope (all when None) from their indexed
    text, in path order, in this transaction; how many settled.

    A queued file is embedded as a record when its partition's text has it, else as a note
    when the notes' text has it (stored under `NOTES`), else its vectors go. A file whose
    text is still queued for the keyword or the notes' projection stays queued. A caller
    that must not hold the vault while the model works (`Vault.index_meaning`) runs the
    three halves apart: `plan` on a reader, `embed` outside, `store` in a short write."""
    adopt_model(tx, embedder)
    step = plan(tx, scope, limit)
    return store(tx, step, embed(embedder, step))


def plan(conn: Tx | sqlite3.Connection, scope: str, limit: int | None) -> Step:
    """Up to `limit` queued files of `scope`, in path order, with the text to embed."""
    have = _tables(conn, scope)
    queued = [
        p
        for (p,) in conn.execute(
            "SELECT path FROM semantic_pending_v1 WHERE scope=? AND path NOT IN"
            " (SELECT path FROM keyword_pending_v1) AND path NOT IN (SELECT path FROM note_text_pending_v1)"
            " ORDER BY path LIMIT ?",
            (scope, -1 if limit is None else limit),
        )
    ]
    outcomes: dict[str, Outcome] = {}
    work: list[Work] = []
    for path in queued:
        home, found = _text(conn, scope, have, path)
        outcomes[path] = None if found is None else (home, str(found[0]))
        if found is None:
            continue
        known = conn.execute(
            "SELECT sha256 FROM semantic_chunks_v1 WHERE path=? AND scope=? LIMIT 1", (path, home)
        ).fetchone()
        if known is not None and known[0] == found[0]:
            continue
        title = "\n".join(t for t in (found[2], found[3]) if t)
        work.append((home, path, str(found[0]), int(found[1] or 1), title, str(found[4] or "")))
    return Step(scope, outcomes, work)


def store(tx: Tx, step: Step, vectors: Vectors) -> int:
    """Store a step's vectors for the files whose indexed text is what `plan` read (still
    queued, not queued again for their text, the same hash) and take them off the queue;
    a file that changed meanwhile stays queued for the next step. How many settled."""
    have = _tables(tx, step.scope)
    settled: list[str] = []
    for path, outcome in step.outcomes.items():
        pending = tx.execute(
            "SELECT 1 FROM semantic_pending_v1 WHERE scope=? AND path=? AND path NOT IN"
            " (SELECT path FROM keyword_pending_v1) AND path NOT IN (SELECT path FROM note_text_pending_v1)",
            (step.scope, path),
        ).fetchone()
        if pending is None:
            continue
        home, found = _text(tx, step.scope, have, path)
        if (None if found is None else (home, str(found[0]))) != outcome:
            continue
        settled.append(path)
        if outcome is None or path in vectors.files:
            _forget(tx, path)
    chunks = [row for path in settled for row in vectors.chunks.get(path, ())]
    files = [vectors.files[path] for path in settled if path in vectors.files]
    tx.executemany(
        "INSERT INTO semantic_chunks_v1(scope, path, sha256, chunk, line_start, line_end, text)"
        " VALUES (?,?,?,?,?,?,?)",
        chunks,
    )
    tx.executemany("INSERT INTO semantic_records_v1(path, scope, vector, passages) VALUES (?,?,?,?)", files)
    if not settled:
        return 0
    tx.executemany(
        "DELETE FROM semantic_pending_v1 WHERE scope=? AND path=?", [(step.scope, p) for p in settled]
    )
    _stamp(tx, step.scope, settled)
    if step.scope != NOTES:
        _stamp(tx, NOTES, settled)  # a partition's note may have gained or lost its vectors
    return len(settled)


def _tables(conn: Tx | sqlite3.Connection, scope: str) -> tuple[str, str] | None:
    """The partition's text tables (FTS5 view, rows) when both exist."""
    if scope == NOTES:
        return None
    fts, rows = keyword_tables(scope)[:2]
    have = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE name IN (?, ?)", (fts, rows))}
    return (fts, rows) if len(have) == 2 else None


def _text(
    conn: Tx | sqlite3.Connection, scope: str, have: tuple[str, str] | None, path: str
) -> tuple[str, Any]:
    """A queued file's home scope and indexed text (sha, body line, title, aliases, body):
    its partition's record, else a note, else (scope, None)."""
    if have is not None:
        fts, rows = have
        found = conn.execute(
            f"SELECT r.sha256, r.body_line, f.title, f.aliases, f.body FROM {rows} r"
            f" JOIN {fts} f ON f.rowid = r.rowid WHERE r.path=?",
            (path,),
        ).fetchone()
        if found is not None:
            return scope, found
    found = _note(conn, path)
    return (NOTES, found) if found is not None else (scope, None)


def _forget(tx: Tx, path: str) -> None:
    tx.execute("DELETE FROM semantic_chunks_v1 WHERE path=?", (path,))
    tx.execute("DELETE FROM semantic_records_v1 WHERE path=?", (path,))


def _note(conn: Tx | sqlite3.Connection, path: str) -> Any:
    """A note's indexed text (sha, body line, title, aliases, body), as `sync` reads a record's."""
    return conn.execute(
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


def embed(embedder: Embedder, step: Step) -> Vectors:
    """The vectors of a step's files, as rows; touches no database."""
    out = Vectors({}, {})
    for start in range(0, len(step.work), EMBED_BATCH):
        _embed_batch(embedder, step.work[start : start + EMBED_BATCH], out)
    return out


def _embed_batch(embedder: Embedder, work: list[Work], out: Vectors) -> None:
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
    for path, sha, number, first, last, text in passages:
        out.chunks.setdefault(path, []).append(
            (scope_of[path], path, sha, number, first, last, text[:SNIPPET_CHARS])
        )
    # One vector per file from its stored (float16) passages, so the first stage's vector
    # depends on those alone, however the files were batched.
    paths = [p[0] for p in passages]
    starts = [i for i in range(len(paths)) if i == 0 or paths[i] != paths[i - 1]]
    means = np.add.reduceat(vectors.astype(np.float32), starts, axis=0)
    files = normalise(means).astype(STORED)
    ends = [*starts[1:], len(paths)]
    for i, at in enumerate(starts):
        path = paths[at]
        out.files[path] = (path, scope_of[path], files[i].tobytes(), vectors[at : ends[i]].tobytes())


def _is_heading(text: str) -> bool:
    return "\n" not in text.strip() and text.lstrip().startswith("#")


def generation(conn: sqlite3.Connection, scope: str) -> int:
    row = conn.execute("SELECT generation FROM semantic_state_v1 WHERE scope=?", (scope,)).fetchone()
    return int(row[0]) if row else 0
