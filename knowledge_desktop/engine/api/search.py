"""`search` for extensions: the vault's keyword search, kept to what the extension may read
(spec: facts-entities-collections-api, Search and documents; docs/decisions.md).

The spec's search is hybrid, and so is ours (`mode: "hybrid"`): the keyword ranking
(`query/grep.py`, BM25 over title, aliases and body) and the nearest passages by meaning
(`query/hybrid.py`), fused by reciprocal rank, each ranked only among what the extension
may read. What is searched:

- pages in collection folders the extension can read *now* (`collections.can`); with
  `collections`, only inside those (their subfolders included);
- `time_range` (`{from, to}`, each milliseconds or an ISO date or time; a date alone is the
  whole day) on `meta.date`, read from the frontmatter the catalog keeps; a document without
  one is left out when a range is asked;
- `entities` (entity refs): only documents that link or refer to one of those pages, or
  name it in their text (its title or an alias, `query/mentions.py`);
- an empty query lists the documents newest first (by `meta.date`, then `updated_at`).

A search never waits for a whole partition to be embedded (minutes at 10k pages the
first time): the session's `prepare_search` embeds a bounded chunk of the queue per
call (`vault_api.EMBED_PER_CALL`) and says how many files are left; the answer then
fuses the keyword ranking of every page with the neighbours among those embedded, and
its `index` says `{"state": "partial", "pending": N}`, as grep's does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api.collections import CollectionIndex
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.errors import ApiError, QueryError
from knowledge_desktop.engine.query import grep as grep_module
from knowledge_desktop.engine.query import hybrid
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.query.mentions import partition_names
from knowledge_desktop.engine.semantic.model import embedder
from knowledge_desktop.engine.store.schema import keyword_tables

MODE = "hybrid"
MAX_LIMIT = 100
_GREP_PAGE = 50


@dataclass(frozen=True, slots=True)
class SearchHit:
    document: str
    title: str
    collection: str | None
    text: str
    locator: dict[str, Any]
    meta: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "title": self.title,
            "collection": self.collection,
            "text": self.text,
            "locator": self.locator,
            "meta": self.meta,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit] = field(default_factory=list)
    mode: str = MODE
    pending: int = 0
    """Files whose passages were not embedded yet when it answered (their words were
    searched, their meaning not): the index is "partial" while any are."""

    def as_json(self) -> dict[str, Any]:
        index: dict[str, Any] = (
            {"state": "partial", "pending": self.pending} if self.pending else {"state": "ready"}
        )
        return {"mode": self.mode, "hits": [h.as_json() for h in self.hits], "index": index}


def _moment(value: Any, end: bool) -> datetime:
    """A bound of a time range as UTC: milliseconds, an ISO time, or a date (its whole day)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC)
    if not isinstance(value, str):
        raise ApiError(f"a time range bound is milliseconds or an ISO date, not {value!r}")
    try:
        if len(value) == 10:
            day = datetime.fromisoformat(value).replace(tzinfo=UTC)
            return day + timedelta(days=1) - timedelta(microseconds=1) if end else day
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(f"{value!r} is not an ISO date or time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def in_range(date: Any, time_range: dict[str, Any] | None) -> bool:
    """Whether a document's `meta.date` falls in `time_range` (bounds inclusive)."""
    if not time_range:
        return True
    if date is None:
        return False
    try:
        start, stop = _moment(date, False), _moment(date, True)
    except ApiError:
        return False
    low = time_range.get("from")
    high = time_range.get("to")
    return (low is None or stop >= _moment(low, False)) and (high is None or start <= _moment(high, True))


def search(
    session: Session,
    query: str = "",
    *,
    collections: list[str] | None = None,
    time_range: dict[str, Any] | None = None,
    entities: list[str] | None = None,
    limit: int = 10,
) -> SearchResult:
    """Hybrid search over what the extension may read; see the module docstring."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(f"limit is between 1 and {MAX_LIMIT}")
    index = CollectionIndex(session.folder)
    folders = None
    if collections is not None:
        folders = [cols.resolve(session, c, index).folder for c in collections]
    mentioned = _mentioning(session, entities) if entities is not None else None
    conn = session.store.reader()
    readable: dict[str, bool] = {}

    def wanted(path: str) -> bool:
        rel = path.split("/", 1)[1] if "/" in path else ""
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if folders is not None and not any(folder == f or folder.startswith(f + "/") for f in folders):
            return False
        if mentioned is not None and path not in mentioned:
            return False
        if folder not in readable:
            readable[folder] = bool(folder) and cols.can(session, index, folder, "read")
        return readable[folder]

    found: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = []
    pending = 0
    if query.strip():
        if session.prepare_search is not None:
            left = session.prepare_search([session.scope])
            pending = left if isinstance(left, int) else 0
        found = _hybrid(session, conn, query, wanted, time_range)[:limit]
    else:
        rows = conn.execute(
            "SELECT c.id, c.title, c.path, f.node FROM catalog c LEFT JOIN files f ON f.path=c.path"
            " WHERE c.scope=? AND c.kind='page' AND c.status='record'",
            (session.scope,),
        )
        listed = []
        for rid, title, path, node in rows:
            if not wanted(str(path)):
                continue
            data = _data(node)
            meta = _meta(data)
            if not in_range(meta.get("date"), time_range):
                continue
            order = (str(meta.get("date") or ""), str(data.get("updated_at") or ""))
            listed.append((order, str(rid), str(title or ""), data))
        listed.sort(key=lambda row: row[0], reverse=True)
        for _, rid, title, data in listed[:limit]:
            found.append((rid, title, "", {}, data))
    refs = session.refs.issue("document", [f[0] for f in found])
    hits = [
        SearchHit(ref, title, _collection_ref(session, index, data), text, locator, _meta(data))
        for ref, (_, title, text, locator, data) in zip(refs, found, strict=True)
    ]
    return SearchResult(hits, pending=pending)


def _hybrid(
    session: Session, conn: Any, query: str, wanted: Callable[[str], bool], time_range: dict[str, Any] | None
) -> list[tuple[str, str, str, dict[str, Any], dict[str, Any]]]:
    """The keyword and the semantic ranking of the pages the extension may read, fused
    (`query/hybrid.py`). Each half is ranked only among pages that pass `wanted` and the
    time range, so a page it cannot read never moves another page's rank."""
    frontmatter: dict[str, dict[str, Any]] = {}

    def keep(path: str) -> bool:
        if not wanted(path):
            return False
        if path not in frontmatter:
            frontmatter[path] = _frontmatter(conn, path)
        return in_range(_meta(frontmatter[path]).get("date"), time_range)

    words: list[tuple[str, dict[str, Any]]] = []
    for hit in _grep_hits(conn, session.scope, query):
        path = str(hit["path"])
        if hit.get("scope") == session.scope and keep(path):
            words.append((path, hit))
            if len(words) >= hybrid.POOL:
                break
    vector = embedder().embed([query])[0]
    near = []
    if np.any(vector):
        page = GrepQuery(query, kind="page", mode="any")
        db = str(session.store.path)
        near = hybrid.neighbours(conn, db, session.scope, vector, page, hybrid.POOL, keep)
    fused: dict[str, float] = {}
    for ranked in ([path for path, _ in words], [n.path for n in near]):
        for rank, path in enumerate(ranked, 1):
            fused[path] = fused.get(path, 0.0) + 1.0 / (hybrid.RRF_K + rank)
    by_path = dict(words)
    passages = {n.path: n.chunk for n in near}
    out = []
    for path in sorted(fused, key=lambda p: (-fused[p], p)):
        text, locator, rid, title = "", {}, None, ""
        if path in passages:
            row = conn.execute(
                "SELECT text, line_start, line_end FROM semantic_chunks_v1 WHERE rowid=?", (passages[path],)
            ).fetchone()
            if row is not None:
                text, locator = str(row[0]), {"lineStart": row[1], "lineEnd": row[2]}
        if path in by_path:
            hit = by_path[path]
            rid, title = hit["id"], str(hit["title"] or "")
            if not locator:
                snippet = hit.get("snippet") or {}
                text = str(snippet.get("text") or "")
                locator = {"lineStart": snippet.get("lineStart"), "lineEnd": snippet.get("lineEnd")}
        else:
            row = conn.execute("SELECT id, title FROM catalog WHERE path=?", (path,)).fetchone()
            if row is None:
                continue
            rid, title = row[0], str(row[1] or "")
        out.append((str(rid), title, text, locator, frontmatter.get(path) or _frontmatter(conn, path)))
    return out


def _grep_hits(conn: Any, scope: str, query: str) -> Iterator[dict[str, Any]]:
    """The keyword hits of `query` in `scope`, page by page (the query layer's pages are
    short and stop at its deepest offset)."""
    offset: int | None = 0
    while offset is not None:
        result = grep_module.grep(
            conn,
            GrepQuery(query, kind="page", limit=_GREP_PAGE, offset=offset),
            [scope],
            lambda s: grep_module.scope_state(conn, s),
        )
        yield from result["hits"]
        offset = result["nextOffset"]


def _data(node: Any) -> dict[str, Any]:
    try:
        data = json.loads(node).get("data") if node else None
    except (TypeError, ValueError, AttributeError):
        return {}
    return data if isinstance(data, dict) else {}


def _frontmatter(conn: Any, path: str) -> dict[str, Any]:
    row = conn.execute("SELECT node FROM files WHERE path=?", (path,)).fetchone()
    return _data(row[0] if row else None)


def _meta(data: dict[str, Any]) -> dict[str, Any]:
    meta = data.get("meta")
    return dict(meta) if isinstance(meta, dict) else {}


def _collection_ref(session: Session, index: CollectionIndex, data: dict[str, Any]) -> str | None:
    """The ref of the innermost collection the document is in (by its catalog path)."""
    rid = data.get("id")
    row = (
        session.store.reader()
        .execute("SELECT path FROM catalog WHERE scope=? AND id=?", (session.scope, rid))
        .fetchone()
    )
    if row is None:
        return None
    rel = str(row[0]).split("/", 1)[1]
    around = index.around(rel.rsplit("/", 1)[0]) if "/" in rel else []
    return cols.ref_of(session, around[0]) if around else None


def _mentioning(session: Session, entities: list[str]) -> set[str]:
    """Paths of the pages that link or refer to any of the entities behind these refs."""
    ids = [session.refs.entity(ref) for ref in entities]
    if not ids:
        return set()
    conn = session.store.reader()
    marks = ",".join("?" * len(ids))
    linked = conn.execute(
        f"SELECT src_path FROM links WHERE scope=? AND target_id IN ({marks})", (session.scope, *ids)
    )
    referred = conn.execute(
        f"SELECT src_path FROM refs WHERE scope=? AND resolved_id IN ({marks})", (session.scope, *ids)
    )
    return {str(r[0]) for r in linked} | {str(r[0]) for r in referred} | _naming(session, ids)


def _naming(session: Session, ids: list[str]) -> set[str]:
    """Paths of the pages whose body names one of these entities (`query/mentions.py`): a
    phrase search per name finds the candidates, the matcher keeps exact, word-bounded,
    case-aware ones."""
    conn = session.store.reader()
    types = frozenset().union(*session.entity_types.values())
    names = partition_names(conn, session.scope, types, ids=set(ids))
    wanted = set(ids)
    if names.empty:
        return set()
    if session.prepare_search is not None:
        session.prepare_search([session.scope])
    fts, rows = keyword_tables(session.scope)[:2]
    found: set[str] = set()
    for name in sorted(set(names.automaton.keys())):
        try:
            hits = grep_module.grep(
                conn,
                GrepQuery(name, mode="phrase", kind="page", limit=50),
                [session.scope],
                lambda s: grep_module.scope_state(conn, s),
            )["hits"]
        except QueryError:
            continue  # a name the search cannot take (no word in it)
        for hit in hits:
            path = str(hit["path"])
            if path in found:
                continue
            row = conn.execute(
                f"SELECT f.body FROM {rows} r JOIN {fts} f ON f.rowid = r.rowid WHERE r.path=?", (path,)
            ).fetchone()
            if row is not None and any(m.id in wanted for m in names.find(str(row[0] or ""))):
                found.add(path)
    return found
