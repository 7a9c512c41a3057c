"""Search by words, by meaning, or both fused (issue 27; spec: facts-entities-collections-api,
Search and documents, asks for the hybrid).

- *keyword*: BM25 over title, aliases and body (`grep`), any of the query's words;
- *semantic*: the query's vector against one vector per file of the partitions
  (`store/projections/semantic.py`), then against every passage of the files nearest,
  a record scoring as its best passage (`neighbours`);
- *hybrid*: both lists fused by reciprocal rank fusion (each list adds 1/(K + rank)),
  which needs no calibration between BM25 scores and cosines.

Both halves keep exactly the records the same filters keep: the semantic half
asks the keyword projection's rows table the same WHERE clause grep uses
(`filter_parts`: eligibility, validity window, kind, type, tag, dates), so a
filter can never let a record in through one half only. The snippet is the best
passage by meaning when the record has one, else grep's.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.query import grep as grep_module
from knowledge_desktop.engine.query import grep_notes, semantic_filter, semantic_held
from knowledge_desktop.engine.query.grep_query import GrepQuery, validate
from knowledge_desktop.engine.semantic.model import Embedder
from knowledge_desktop.engine.store.projections import keyword, note_text
from knowledge_desktop.engine.store.projections import semantic as projection
from knowledge_desktop.engine.store.projections.semantic_queue import NOTES

MODES = ("hybrid", "semantic", "keyword")
RRF_K = 60
"""The usual constant of reciprocal rank fusion (Cormack et al. 2009): ranks past the first
few still count, and no single list's top hit dominates."""
POOL = 50
"""How deep each half's list goes before fusion (grep's page limit)."""
MAX_LIMIT = 50


@dataclass(frozen=True, slots=True)
class Neighbour:
    scope: str
    path: str
    score: float
    chunk: int
    """The rowid of the best passage in `semantic_chunks_v1`."""


CANDIDATES = 1000
"""How many files the first stage (one vector a file) hands the second (their passages).
A trade measured at 10k (bench/RESULTS.md, "Search by meaning"): 300 keep about two
thirds of the exact scan's top 10 (most of the rest near-ties) for 29 ms; 1,000 keep
0.85-0.9 (0.74-0.8 at 100k). A result a person misses costs more than a few milliseconds
(with the passages held in memory, 1,000 candidates cost 18 ms p50 at 100k against 13 for
100), so 1,000; a vault of fewer files is searched exactly."""


RESCORE_MARGIN = 0.005
"""How far below the int8 estimate of the `limit`-th file's score a file is still scored
exactly. Measured on the 10k vault's 128k passages and four queries, the estimate's error
had a standard deviation of 4.8e-4 and at most 3.1e-3: a file of the exact top `limit`
falls this far behind the estimated `limit`-th only when two errors of opposite sign
add up to seven standard deviations of their sum."""


def neighbours(
    conn: sqlite3.Connection,
    db: str,
    scope: str,
    vector: NDArray[np.float32],
    q: GrepQuery,
    limit: int,
    keep: Callable[[str], bool] | None = None,
    candidates: int = CANDIDATES,
) -> list[Neighbour]:
    """The records of `scope` nearest `vector` that pass `q`'s filters (and `keep`, by
    path), best first, each scored as its best passage. Records left out are never
    counted in the ranks of the others.

    Two stages: the files' own vectors pick the `candidates` nearest files that pass the
    filters, then those files' passages are scored. Scanning every passage instead costs
    thirteen times more at 100k (1.3 M passages); what it would rank differently is
    measured in bench/RESULTS.md. Both stages read what `semantic_held` keeps in memory;
    the second scores the int8 copies of the passages, then reads from SQLite and scores
    exactly the files within `RESCORE_MARGIN` of the `limit`-th: the answer is what
    scoring every candidate's stored passages would give, for a few dozen rows read
    instead of a thousand."""
    kept_vectors = semantic_held.held(conn, db, scope, int(vector.shape[0]))
    if not kept_vectors.paths:
        return []
    wanted = max(candidates, limit)
    sims = _dot(kept_vectors.matrix, vector)
    passing = None
    if scope != NOTES:
        passing = semantic_filter.passing(conn, scope, kept_vectors, q)
    shown = kept_vectors.live if passing is None else passing & kept_vectors.live  # old rows of edited files
    if passing is not None or len(kept_vectors.where) < len(kept_vectors.paths):
        sims = np.where(shown, sims, np.float32(-np.inf))
    chosen: list[int] = []
    taken = 0
    step = wanted * 2
    total = int(np.count_nonzero(shown))
    while taken < total and len(chosen) < wanted:
        window = _top(sims, min(taken + step, total))[taken:]
        taken += len(window)
        if passing is not None and keep is None:  # the mask has said everything
            chosen += window[: wanted - len(chosen)].tolist()
            continue
        paths = [kept_vectors.paths[int(i)] for i in window]
        allowed = set(paths) if passing is not None else _passing_notes(conn, scope, paths, q)
        chosen += [
            int(i) for i, p in zip(window, paths, strict=True) if p in allowed and (keep is None or keep(p))
        ][: wanted - len(chosen)]
        step *= 4
    files = np.array(chosen, dtype=np.int64)
    counts = kept_vectors.starts[files + 1] - kept_vectors.starts[files]
    files = files[counts > 0]
    if not len(files):
        return []
    # second stage, estimated: the candidates' passages from memory (int8)
    rows = semantic_held.rows_of(kept_vectors.starts, files)
    estimate = _dot(kept_vectors.passages[rows].astype(np.float32), vector) * kept_vectors.scales[rows]
    firsts = np.concatenate(([0], np.cumsum(counts[counts > 0])[:-1]))
    best = np.maximum.reduceat(estimate, firsts)
    # ... then exactly, from the stored float16, for the files the estimate cannot rank
    order = np.argsort(-best, kind="stable")
    bar = float(best[order[min(limit, len(order)) - 1]]) - RESCORE_MARGIN
    close = [kept_vectors.paths[int(files[i])] for i in order if best[i] >= bar]
    matrix, found_files, starts = _passages(conn, close, int(vector.shape[0]))
    if not found_files:
        return []
    scores = _dot(matrix, vector)
    exact = np.maximum.reduceat(scores, starts)
    ends = [*starts[1:], len(scores)]
    ranked = sorted(range(len(found_files)), key=lambda i: (-float(exact[i]), found_files[i]))
    found: list[Neighbour] = []
    at = 0
    while len(found) < limit and at < len(ranked):
        batch = ranked[at : at + limit - len(found)]
        at += len(batch)
        places = {found_files[i]: int(np.argmax(scores[starts[i] : ends[i]])) for i in batch}
        rowids = _passage_rows(conn, places)
        found += [
            Neighbour(scope, found_files[i], float(exact[i]), rowids[found_files[i]])
            for i in batch
            if found_files[i] in rowids
        ]
    return found


def _dot(matrix: NDArray[np.float32], vector: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each row's dot product with `vector`, on this thread. `matrix @ vector` goes to
    OpenBLAS, which wakes its worker threads for it: on a busy machine that wait cost the
    second stage 50 ms for a product of 0.2 ms (bench/RESULTS.md)."""
    out: NDArray[np.float32] = np.einsum("ij,j->i", matrix, vector)
    return out


def _top(scores: NDArray[np.float32], count: int) -> NDArray[np.intp]:
    """Indexes of the `count` highest scores, best first (ties by index): a partition, then
    a sort of only those, instead of sorting every record per query."""
    if count >= len(scores):
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, count)[:count]
    return part[np.lexsort((part, -scores[part]))]


def _passing_notes(conn: sqlite3.Connection, _scope: str, paths: list[str], q: GrepQuery) -> set[str]:
    """Which of `paths` are indexed notes that pass `q`'s tag (the one filter notes have)."""
    kept: set[str] = set()
    tag = " AND EXISTS (SELECT 1 FROM json_each(r.tags) WHERE value = ?)" if q.tag else ""
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ",".join("?" * len(chunk))
        kept.update(
            p
            for (p,) in conn.execute(
                f"SELECT r.path FROM {note_text.ROWS} r WHERE r.path IN ({marks}){tag}",
                [*chunk, *([q.tag] if q.tag else [])],
            )
        )
    return kept


def search(
    conn: sqlite3.Connection,
    db: str,
    q: GrepQuery,
    scopes: list[str],
    mode: str,
    embedder: Embedder,
    *,
    notes: bool = False,
    scope: str | None = None,
) -> dict[str, Any]:
    """`q` (its words, filters and limit) answered in `mode`; see the module docstring.

    With `notes`, notes that `q` can match (`grep_notes.for_notes`) come too, without
    moving a record: the records are ranked and scored as without them, and each note
    is placed as if it stood in both of their lists: in the keyword list after every
    record hit (records first, as `Vault.search_text` lists them: BM25 scores of two
    indexes do not compare), in the list by meaning where its cosine puts it among the
    records' (one model made both). Its fused score then places it among the records,
    records first on a tie; in keyword mode notes come after every record. `scope`
    narrows the notes to one partition's."""
    if mode not in MODES:
        raise QueryError(f"mode must be one of {', '.join(MODES)}")
    if not 1 <= q.limit <= MAX_LIMIT:
        raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
    pool = replace(q, mode="any", limit=POOL, offset=0)
    with_notes = notes and grep_notes.for_notes(q)
    if q.kind == grep_notes.NOTE:
        if not notes:
            raise QueryError("kind 'note' is not searched here")
        grep_notes.check(pool)
        scopes = []
    else:
        validate(pool)
    vector = embedder.embed([q.query])[0] if mode != "keyword" else None
    results, words, cosines = _records(conn, db, pool, scopes, mode, vector) if scopes else ([], 0, [])
    if with_notes:
        found = _notes(conn, db, pool, mode, vector, scope, words, cosines)
        if mode == "keyword":
            results += found
        else:
            results = sorted([*results, *found], key=lambda e: -e["score"])  # stable: records first
    return {"mode": mode, "results": results[: q.limit]}


def _records(
    conn: sqlite3.Connection,
    db: str,
    pool: GrepQuery,
    scopes: list[str],
    mode: str,
    vector: NDArray[np.float32] | None,
) -> tuple[list[dict[str, Any]], int, list[float]]:
    """The records of a search, fused; with how many keyword hits and the cosines of the
    neighbours by meaning they were fused from (where notes stand among them)."""
    keyword_hits: list[dict[str, Any]] = []
    if mode != "semantic":
        found = grep_module.grep(conn, pool, scopes, lambda s: grep_module.scope_state(conn, s))
        if found["index"]["state"] == "unavailable":
            raise QueryError(f"the search index is unavailable: {found['index'].get('error')}")
        keyword_hits = found["hits"]
    else:
        validate(pool)
    near: list[Neighbour] = []
    if vector is not None and np.any(vector):
        for scope in scopes:
            near += neighbours(conn, db, scope, vector, pool, POOL)
        near.sort(key=lambda n: (-n.score, n.path))
        near = near[:POOL]
    return _fuse(conn, mode, keyword_hits, near), len(keyword_hits), [n.score for n in near]


def _notes(
    conn: sqlite3.Connection,
    db: str,
    pool: GrepQuery,
    mode: str,
    vector: NDArray[np.float32] | None,
    scope: str | None,
    words: int,
    cosines: list[float],
) -> list[dict[str, Any]]:
    """The notes of a search, fused with the ranks they would have in the records' lists:
    after the `words` record hits by keyword, among the records' `cosines` by meaning."""
    hits: list[dict[str, Any]] = []
    if mode != "semantic":
        found = grep_notes.grep_notes(conn, replace(pool, kind=grep_notes.NOTE), scope)
        if found["index"]["state"] == "unavailable":
            raise QueryError(f"the notes' search index is unavailable: {found['index'].get('error')}")
        hits = found["hits"]
    near: list[Neighbour] = []
    if vector is not None and np.any(vector):
        inside = None if scope is None else (lambda p: p.startswith(scope + "/"))
        near = neighbours(conn, db, NOTES, vector, pool, POOL, keep=inside)
    ahead = sorted(cosines)
    meaning = [i + 1 + len(ahead) - bisect.bisect_left(ahead, n.score) for i, n in enumerate(near)]
    return _fuse(conn, mode, hits, near, [words + i for i in range(1, len(hits) + 1)], meaning)


def _fuse(
    conn: sqlite3.Connection,
    mode: str,
    hits: list[dict[str, Any]],
    near: list[Neighbour],
    hit_ranks: list[int] | None = None,
    near_ranks: list[int] | None = None,
) -> list[dict[str, Any]]:
    """One list from a keyword and a meaning list, each ranked 1, 2, ... unless given ranks."""
    by_path: dict[str, dict[str, Any]] = {}
    for rank, hit in zip(hit_ranks or range(1, len(hits) + 1), hits, strict=True):
        snippet = hit.get("snippet") or {}
        by_path[str(hit["path"])] = {
            "id": hit["id"],
            "kind": hit["kind"],
            "type": hit["type"],
            "title": hit["title"],
            "path": hit["path"],
            "score": 0.0,
            "keywordRank": rank,
            "semanticRank": None,
            "snippet": {
                "text": snippet.get("text"),
                "lineStart": snippet.get("lineStart"),
                "lineEnd": snippet.get("lineEnd"),
            },
            "_keyword": float(hit.get("score") or 0.0),
            "_semantic": 0.0,
        }
    described = _describe_many(conn, [n for n in near if n.path not in by_path])
    passages = _chunk_texts(conn, [n.chunk for n in near])
    for rank, n in zip(near_ranks or range(1, len(near) + 1), near, strict=True):
        entry = by_path.get(n.path)
        if entry is None:
            entry = described.get(n.path)
            if entry is None:
                continue
            by_path[n.path] = entry
        entry["semanticRank"] = rank
        entry["_semantic"] = n.score
        passage = passages.get(n.chunk)
        if passage is not None:
            entry["snippet"] = {"text": passage[0], "lineStart": passage[1], "lineEnd": passage[2]}
    for entry in by_path.values():
        if mode == "keyword":
            entry["score"] = entry["_keyword"]
        elif mode == "semantic":
            entry["score"] = entry["_semantic"]
        else:
            entry["score"] = sum(
                1.0 / (RRF_K + r) for r in (entry["keywordRank"], entry["semanticRank"]) if r is not None
            )
        entry["score"] = round(entry["score"], 6)
    ordered = sorted(by_path.values(), key=lambda e: (-e["score"], str(e["id"] or e["path"])))
    return [{k: v for k, v in e.items() if not k.startswith("_")} for e in ordered]


def _describe_many(conn: sqlite3.Connection, near: list[Neighbour]) -> dict[str, dict[str, Any]]:
    """Each neighbour's record or note as a result entry not yet ranked, by path; one
    query per scope (a file with no current row is left out)."""
    out: dict[str, dict[str, Any]] = {}
    by_scope: dict[str, list[str]] = {}
    for n in near:
        by_scope.setdefault(n.scope, []).append(n.path)
    for scope, paths in by_scope.items():
        if scope == NOTES:
            sql = f"SELECT path, NULL, '{grep_notes.NOTE}', NULL, title FROM {note_text.ROWS}"
        else:
            sql = f"SELECT path, id, kind, type, title FROM {keyword.tables(scope)[1]}"
        for start in range(0, len(paths), 500):
            some = paths[start : start + 500]
            for path, rid, kind, type_, title in conn.execute(
                f"{sql} WHERE path IN ({','.join('?' * len(some))})", some
            ):
                out[path] = {
                    "id": rid,
                    "kind": kind,
                    "type": type_,
                    "title": title,
                    "path": path,
                    "score": 0.0,
                    "keywordRank": None,
                    "semanticRank": None,
                    "snippet": None,
                    "_keyword": 0.0,
                    "_semantic": 0.0,
                }
    return out


def _chunk_texts(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, tuple[str, int, int]]:
    """Passages' snippet text and lines by rowid in `semantic_chunks_v1`, in one query."""
    out: dict[int, tuple[str, int, int]] = {}
    for start in range(0, len(rowids), 500):
        some = rowids[start : start + 500]
        for rowid, text, first, last in conn.execute(
            "SELECT rowid, text, line_start, line_end FROM semantic_chunks_v1"
            f" WHERE rowid IN ({','.join('?' * len(some))})",
            some,
        ):
            out[int(rowid)] = (text, first, last)
    return out


def related(
    conn: sqlite3.Connection, db: str, path: str, limit: int = 5, scopes: list[str] | None = None
) -> list[dict[str, Any]]:
    """The current records and notes nearest by meaning to the record or note at `path`
    (the mean of its passage vectors), leaving out itself and every file it links or refers
    to or that links or refers to it: those the backlinks pane already shows. `scopes`:
    where to look (the record's partition and the notes by default)."""
    if scopes is None:
        scopes = [path.split("/", 1)[0], NOTES] if "/" in path else [NOTES]
    own = conn.execute("SELECT vector FROM semantic_records_v1 WHERE path=?", (path,)).fetchone()
    if own is None:
        return []
    centre = np.frombuffer(own[0], dtype=projection.STORED).astype(np.float32)
    norm = float(np.linalg.norm(centre))
    if norm == 0:
        return []
    linked = _linked(conn, path) | {path}
    near = [
        n
        for scope in scopes
        for n in neighbours(
            conn, db, scope, centre / norm, GrepQuery("related"), limit, keep=lambda p: p not in linked
        )
    ]
    near = sorted(near, key=lambda n: (-n.score, n.path))[:limit]
    described = _describe_many(conn, near)
    out = []
    for n in near:
        entry = described.get(n.path)
        if entry is not None:
            out.append(
                {k: entry[k] for k in ("id", "kind", "type", "title", "path")} | {"score": round(n.score, 4)}
            )
    return out


def _linked(conn: sqlite3.Connection, path: str) -> set[str]:
    """Paths of the records `path` links or refers to, and of those linking or referring to it."""
    row = conn.execute("SELECT id, scope FROM catalog WHERE path=?", (path,)).fetchone()
    rid, scope = (row[0], row[1]) if row else (None, None)
    found = {
        str(p)
        for (p,) in conn.execute(
            "SELECT target_path FROM links WHERE src_path=? AND target_path IS NOT NULL", (path,)
        )
    }
    targets = [
        str(t)
        for (t,) in conn.execute(
            "SELECT resolved_id FROM refs WHERE src_path=? AND resolved_id IS NOT NULL", (path,)
        )
    ]
    targets += [
        str(t)
        for (t,) in conn.execute(
            "SELECT target_id FROM links WHERE src_path=? AND target_id IS NOT NULL", (path,)
        )
    ]
    for start in range(0, len(targets), 500):
        chunk = targets[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(
            str(p)
            for (p,) in conn.execute(
                f"SELECT path FROM catalog WHERE scope=? AND id IN ({marks})", (scope, *chunk)
            )
        )
    if rid is not None:
        found.update(
            str(p)
            for (p,) in conn.execute("SELECT src_path FROM links WHERE scope=? AND target_id=?", (scope, rid))
        )
        found.update(
            str(p)
            for (p,) in conn.execute(
                "SELECT src_path FROM refs WHERE scope=? AND resolved_id=?", (scope, rid)
            )
        )
    return found


# -- reading the projection's vectors ------------------------------------------------


def _passages(
    conn: sqlite3.Connection, paths: list[str], dim: int
) -> tuple[NDArray[np.float32], list[str], list[int]]:
    """The passage vectors of `paths` (the second stage) as one matrix, a file's rows
    together: the files found, and the row each one's passages start at."""
    files: list[str] = []
    starts: list[int] = []
    blobs: list[bytes] = []
    rows = 0
    for start in range(0, len(paths), 500):
        some = paths[start : start + 500]
        marks = ",".join("?" * len(some))
        for path, blob in conn.execute(
            f"SELECT path, passages FROM semantic_records_v1 WHERE path IN ({marks})", some
        ):
            count = len(blob) // (dim * projection.STORED().itemsize)
            if count:
                files.append(path)
                starts.append(rows)
                blobs.append(blob)
                rows += count
    matrix = np.frombuffer(b"".join(blobs), dtype=projection.STORED).reshape(-1, dim).astype(np.float32)
    return matrix, files, starts


def _passage_rows(conn: sqlite3.Connection, places: dict[str, int]) -> dict[str, int]:
    """Per file, the rowid in `semantic_chunks_v1` of its passage number `places[path]`
    (in chunk order), in one query; a file whose passage is gone is left out."""
    out: dict[str, int] = {}
    paths = list(places)
    for start in range(0, len(paths), 500):
        some = paths[start : start + 500]
        seen: dict[str, int] = {}
        for path, rowid in conn.execute(
            "SELECT path, rowid FROM semantic_chunks_v1"
            f" WHERE path IN ({','.join('?' * len(some))}) ORDER BY path, chunk",
            some,
        ):
            number = seen.get(path, 0)
            seen[path] = number + 1
            if number == places[path]:
                out[path] = int(rowid)
    return out
