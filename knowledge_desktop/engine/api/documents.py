"""Documents: pages in collections, written idempotently by key (spec:
facts-entities-collections-api, Search and documents; docs/decisions.md).

A document is a page of the partition inside a collection folder: its title, its Markdown
body, `meta` as a `meta:` frontmatter mapping, and for a keyed one `document_key:
{collection, key}`. A keyed document's record id is derived from its collection's id and key
(`keyed_id`), so `get_by_key` is one catalog lookup by id wherever a person moved the file.
The diary holds one entry per day, `diary/YYYY-MM-DD.md` of page type `diary`, its key the
date; a person's own entry at that path is found by key too.

Every write goes through the session's publish path as a journaled change in its run
(`document-create`, `document-update`, `document-delete`), after the single-write limits and
the daily quota; an upsert whose title, body and meta are as they are writes nothing,
charges nothing and rebuilds nothing (`unchanged`). Overwriting or deleting a document the
extension did not create needs `changes.manage` (spec: Search and documents). Each operation's
undo is registered with `undo.register_undo`, so `changes.revert` undoes documents whoever
reverts: the reading helpers take any `Where` (a session, or the partition an undo names).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api.collections import Collection, CollectionIndex
from knowledge_desktop.engine.api.quotas import check_single_write, json_size
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.api.undo import Changer, NothingToUndo, UndoStep, marked, register_undo
from knowledge_desktop.engine.api.visibility import Visibility
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.query.mentions import partition_names
from knowledge_desktop.engine.records.parse import parse_bytes, sha256_hex
from knowledge_desktop.engine.records.roundtrip import replace_body, update_frontmatter
from knowledge_desktop.engine.semantic.chunks import chunks_of
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.journal import Entry
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.plan import FileWrite, Plan, WriteRejected

CREATE, UPDATE, DELETE = "document-create", "document-update", "document-delete"
FORMAT = "knowledge-record-v1"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
MANAGE = "changes.manage"


class NoDocument(ApiError):
    """A document ref that stands for no document the extension can reach."""


@dataclass(frozen=True, slots=True)
class Document:
    ref: str
    title: str
    body: str
    meta: dict[str, Any]
    collection: str
    key: str | None
    updated_at: str | None
    chunks: int | None = None
    """With a `range`: how many chunks the whole body has (`body` then holds the range's)."""
    range: tuple[int, int] | None = None
    mentions: list[dict[str, Any]] | None = None
    """People and companies the body names (`mentioned`), from `get` and `get_by_key`."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ref": self.ref,
            "title": self.title,
            "body": self.body,
            "meta": self.meta,
            "collection": self.collection,
            "key": self.key,
            "updatedAt": self.updated_at,
        }
        if self.range is not None:
            out["range"] = {"from": self.range[0], "to": self.range[1]}
            out["chunks"] = self.chunks
        if self.mentions is not None:
            out["mentions"] = self.mentions
        return out


def in_chunks(doc: Document, start: int, stop: int) -> Document:
    """`doc` with only chunks `start` (inclusive) to `stop` (exclusive), counted from 0, as a
    slice counts; a range past the end gives what there is (nothing, past the last)."""
    if start < 0 or stop < start:
        raise ApiError(
            f"a range runs from a chunk to a later one (0-based, `to` exclusive), not {start}..{stop}"
        )
    parts = chunks_of(doc.body)
    body = "\n\n".join(parts[start:stop]) + ("\n" if parts[start:stop] else "")
    return replace(doc, body=body, chunks=len(parts), range=(start, min(stop, len(parts))))


@dataclass(frozen=True, slots=True)
class Upserted:
    status: str
    """created | updated | unchanged"""
    ref: str

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status, "ref": self.ref}


@dataclass(frozen=True, slots=True)
class Found:
    """A document file as it is now."""

    record_id: str
    path: str
    data: bytes
    fields: dict[str, Any]
    body: str

    @property
    def sha256(self) -> str:
        return sha256_hex(self.data)


def keyed_id(collection_id: str, key: str) -> str:
    """The record id of the document `key` of collection `collection_id`: the same on every
    call, so the key finds it by id wherever the file was moved."""
    digest = int.from_bytes(hashlib.sha256(f"{collection_id}\0{key}".encode()).digest()[:13], "big")
    return "pg_" + "".join(_CROCKFORD[(digest >> (5 * n)) & 31] for n in range(20))


class Where(Protocol):
    """A partition of a vault, as the file helpers need it: a `Session`, or a `Place` an undo
    makes from the journal entry (the person reverting has no session)."""

    @property
    def store(self) -> Store: ...
    @property
    def root(self) -> Path: ...
    @property
    def scope(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Place:
    store: Store
    root: Path
    scope: str


# -- reading files -------------------------------------------------------------------------
def _paths(where: Where, record_id: str) -> list[str]:
    rows = where.store.reader().execute(
        "SELECT path FROM catalog WHERE scope=? AND id=? AND +kind='page'", (where.scope, record_id)
    )
    return [str(r[0]) for r in rows]


def _load(where: Where, path: str) -> Found | None:
    try:
        data = (where.root / path).read_bytes()
    except OSError:
        return None
    parsed = parse_bytes(path, where.scope, data)
    fields = parsed.data or {}
    if parsed.status != "record" or not isinstance(fields.get("id"), str):
        return None
    text = data.decode("utf-8", "replace")
    body = text.split("\n---\n", 1)[1] if text.startswith("---\n") and "\n---\n" in text else text
    return Found(str(fields["id"]), path, data, fields, body)


def by_id(where: Where, record_id: str) -> Found | None:
    """The document (any page) `record_id` of the partition as its file is now, or None."""
    for path in _paths(where, record_id):
        found = _load(where, path)
        if found is not None and found.record_id == record_id:
            return found
    return None


def _doc(session: Session, found: Found, index: CollectionIndex) -> Document:
    rel = found.path.split("/", 1)[1]
    around = index.around(rel.rsplit("/", 1)[0]) if "/" in rel else []
    col_ref = cols.ref_of(session, around[0]) if around else ""
    meta = found.fields.get("meta")
    key = found.fields.get("document_key")
    return Document(
        session.refs.issue("document", [found.record_id])[0],
        str(found.fields.get("title") or ""),
        found.body,
        dict(meta) if isinstance(meta, dict) else {},
        col_ref,
        str(key["key"]) if isinstance(key, dict) and "key" in key else None,
        str(found.fields["updated_at"]) if found.fields.get("updated_at") else None,
    )


def _find_keyed(session: Session, col: Collection, key: str) -> Found | None:
    found = by_id(session, keyed_id(col.id, key))
    if found is None and col.builtin == cols.DIARY:
        found = _load(session, f"{session.scope}/{cols.DIARY}/{key}.md")
    return found


def get(session: Session, ref: str, range: tuple[int, int] | None = None) -> Document:
    """The document behind `ref`, if the extension may read it where it is now; with `range`
    (`from`, `to`), only those chunks of its body (`chunks_of`), and how many there are."""
    first_check(session, None, "read")
    record_id = session.refs.lookup(ref, "document")
    found = by_id(session, record_id) if record_id is not None else None
    if found is None:
        raise NoDocument(f"no document for ref {ref}: it was deleted, or the ref is not yours")
    index = CollectionIndex(session.folder)
    _check(session, index, found.path, "read")
    doc = mentioned(session, _doc(session, found, index), found)
    return in_chunks(doc, *range) if range is not None else doc


def mentioned(session: Session, doc: Document, found: Found) -> Document:
    """`doc` with the person and company pages its body names (`query/mentions.py`), each
    as `{entity, names, lines}` (lines of the body, one-based, the first 20), counting only
    pages the extension may see: a hidden page and no page read alike."""
    conn = session.store.reader()
    types = frozenset().union(*session.entity_types.values())
    seen = Visibility(conn, session, types)
    found_names: dict[str, tuple[set[str], list[int]]] = {}
    for m in partition_names(conn, session.scope, types).find(found.body):
        if m.path == found.path or not seen.visible(m.path):
            continue
        names, lines = found_names.setdefault(m.id, (set(), []))
        names.add(m.name)
        if m.line not in lines:
            lines.append(m.line)
    ids = sorted(found_names)
    refs = session.refs.issue("entity", ids) if ids else []
    mentions = [
        {"entity": ref, "names": sorted(found_names[rid][0]), "lines": found_names[rid][1][:20]}
        for ref, rid in zip(refs, ids, strict=True)
    ]
    return replace(doc, mentions=mentions)


def get_by_key(session: Session, collection: str, key: str) -> Document | None:
    """The keyed document of `collection`, wherever it has been moved; None when there is none."""
    first_check(session, collection, "read")
    index = CollectionIndex(session.folder)
    col = cols.resolve(session, collection, index)
    cols.check_collection(session, index, col, "read")
    found = _find_keyed(session, col, key)
    if found is None:
        return None
    _check(session, index, found.path, "read")
    return mentioned(session, _doc(session, found, index), found)


def list_documents(session: Session, collection: str) -> list[Document]:
    """The documents placed directly in `collection` (not in its subfolders), newest first."""
    first_check(session, collection, "read")
    index = CollectionIndex(session.folder)
    col = cols.resolve(session, collection, index)
    cols.check_collection(session, index, col, "read")
    prefix = f"{session.scope}/{col.folder}/"
    rows = session.store.reader().execute(
        "SELECT path FROM catalog WHERE scope=? AND kind='page' AND substr(path, 1, ?)=?",
        (session.scope, len(prefix), prefix),
    )
    out = []
    for (path,) in rows:
        if "/" in str(path)[len(prefix) :]:
            continue
        found = _load(session, str(path))
        if found is not None:
            out.append(_doc(session, found, index))
    out.sort(key=lambda d: d.updated_at or "", reverse=True)
    return out


def first_check(session: Session, collection: str | None, action: str) -> None:
    """The permission check a documents method makes before it looks anything up: the diary
    and keep by their own grant, any other collection (or a document by ref) by some grant
    that can reach one — `collections.<action>` of any target, or `collections.create`, whose
    collections are their creator's."""
    if collection in cols.BUILTINS:
        session.check(f"collections.{action}:{collection}")
    else:
        session.gate(f"collections.{action}:user-selected", (f"collections.{action}", "collections.create"))


def check_one_line(label: str, text: object) -> None:
    """`ApiError` when a title-like string holds a line break or another control character: a
    title is one line wherever it is shown (docs/decisions.md, "An extension's text is data")."""
    if isinstance(text, str) and any(not c.isprintable() and c != " " for c in text):
        raise ApiError(f"the {label} is one line of text, without line breaks or control characters")


def _check(session: Session, index: CollectionIndex, path: str, action: str) -> None:
    rel = path.split("/", 1)[1].rsplit("/", 1)[0] if path.count("/") > 1 else ""
    if not cols.can(session, index, rel, action):
        session.check(cols.refusal(session, index, rel, action))


def _created_by_self(session: Session, record_id: str) -> bool:
    row = (
        session.store.reader()
        .execute(
            "SELECT agent_id FROM provenance WHERE scope=? AND record_id=? ORDER BY revision LIMIT 1",
            (session.scope, record_id),
        )
        .fetchone()
    )
    return row is not None and row[0] == session.actor


# -- writing ---------------------------------------------------------------------------------
def upsert(
    session: Session,
    collection: str,
    *,
    title: str,
    body: str,
    meta: dict[str, Any] | None = None,
    key: str | None = None,
    ref: str | None = None,
) -> Upserted:
    """Write a document: by `key` (created, or updated in place wherever it is), by `ref`
    (updated), or new. `unchanged` when title, body and meta are as they are: nothing written.
    Permission comes first: `diary` and `keep` need their own `collections.write`, and a
    collection ref some grant that can write one (`first_check`)."""
    first_check(session, collection, "write")
    meta = dict(meta or {})
    check_single_write(title=title, body=body, meta=meta)
    check_one_line("title", title)
    index = CollectionIndex(session.folder)
    col = cols.resolve(session, collection, index)
    if col.builtin == cols.DIARY:
        key = key or str(meta.get("date") or "")
        if not _DATE.match(key):
            raise ApiError("a diary entry's key is its date, YYYY-MM-DD")
        meta.setdefault("date", key)
    current: Found | None = None
    if ref is not None:
        record_id = session.refs.lookup(ref, "document")
        current = by_id(session, record_id) if record_id else None
        if current is None:
            raise NoDocument(f"no document for ref {ref}")
    elif key is not None:
        current = _find_keyed(session, col, key)
    if current is None:
        cols.check_collection(session, index, col, "write")
        record_id = keyed_id(col.id, key) if key is not None else _new_doc_id()
        session.charge(len(title) + len(body) + json_size(meta))
        _publish(session, CREATE, record_id, _create_planner(session, col, record_id, title, body, meta, key))
        return Upserted("created", session.refs.issue("document", [record_id])[0])
    _check(session, index, current.path, "write")
    doc_ref = session.refs.issue("document", [current.record_id])[0]
    if (current.fields.get("title"), current.body, current.fields.get("meta") or {}) == (title, body, meta):
        return Upserted("unchanged", doc_ref)
    if not _created_by_self(session, current.record_id):
        session.check(MANAGE)
    session.charge(len(title) + len(body) + json_size(meta))
    _publish(session, UPDATE, current.record_id, _update_planner(current, title, body, meta))
    return Upserted("updated", doc_ref)


def delete(session: Session, ref: str) -> None:
    """Delete the document behind `ref` (undoable: the journal keeps its bytes)."""
    first_check(session, None, "write")
    record_id = session.refs.lookup(ref, "document")
    found = by_id(session, record_id) if record_id is not None else None
    if found is None:
        raise NoDocument(f"no document for ref {ref}: it was deleted, or the ref is not yours")
    _check(session, CollectionIndex(session.folder), found.path, "write")
    if not _created_by_self(session, found.record_id):
        session.check(MANAGE)
    session.charge(0)
    _publish(session, DELETE, found.record_id, lambda ctx: deletion(found))


def deletion(found: Found, reason: str | None = None) -> Plan:
    """The plan that deletes document `found` (the journal keeps its bytes for the undo)."""
    write = FileWrite(found.path, None, found.sha256, found.record_id, int(found.fields.get("revision") or 0))
    return Plan(DELETE, found.record_id, reason, [write])


def _new_doc_id() -> str:
    return new_id("page")


def _publish(
    session: Session, operation: str, record_id: str, planner: Callable[[WriteContext], Plan]
) -> None:
    """One journaled change of the session's run (a fresh request id each time)."""
    session.write(session.request(operation, {"id": record_id}), planner)


def _create_planner(
    session: Session,
    col: Collection,
    record_id: str,
    title: str,
    body: str,
    meta: dict[str, Any],
    key: str | None,
) -> Callable[[WriteContext], Plan]:
    def planner(ctx: WriteContext) -> Plan:
        fields: dict[str, Any] = {
            "format": FORMAT,
            "id": record_id,
            "revision": 1,
            "kind": "page",
            "type": "diary" if col.builtin == cols.DIARY else "note",
            "title": title,
            "recorded_at": ctx.now,
            "updated_at": ctx.now,
            "scope": session.scope,
            "lifecycle": "active",
        }
        if meta:
            fields["meta"] = meta
        if key is not None:
            fields["document_key"] = {"collection": col.id, "key": key}
        text = _text(fields, body)
        if col.builtin == cols.DIARY:
            path = f"{session.scope}/{cols.DIARY}/{key}.md"
        else:
            path = ctx.new_path(session.scope, col.folder, title, record_id)
        data = text.encode("utf-8")
        ctx.validate(path, session.scope, data)
        return Plan(CREATE, record_id, None, [FileWrite(path, data, None, record_id, 1)])

    return planner


def _update_planner(
    current: Found, title: str, body: str, meta: dict[str, Any]
) -> Callable[[WriteContext], Plan]:
    def planner(ctx: WriteContext) -> Plan:
        revision = int(current.fields.get("revision") or 0) + 1
        changes: dict[str, Any] = {"revision": revision, "updated_at": ctx.now, "title": title, "meta": meta}
        try:
            text = update_frontmatter(current.data.decode("utf-8"), changes)
        except (ValueError, UnicodeDecodeError) as exc:
            raise WriteRejected("invalid-record", str(exc), {}) from None
        data = replace_body(text, body).encode("utf-8")
        ctx.validate(current.path, current.path.split("/", 1)[0], data, old=current.fields)
        write = FileWrite(current.path, data, current.sha256, current.record_id, revision)
        return Plan(UPDATE, current.record_id, None, [write])

    return planner


def _text(fields: dict[str, Any], body: str) -> str:
    try:
        return replace_body(update_frontmatter("---\n---\n", fields), body)
    except ValueError as exc:
        raise WriteRejected("invalid-record", str(exc), {}) from None


# -- undo --------------------------------------------------------------------------------------
def _entry_file(who: Changer, entry: Entry) -> tuple[Place, journal.JournalFile]:
    files = journal.files(who.store.reader(), entry.seq)
    if len(files) != 1:
        raise NothingToUndo(f"change {entry.seq} names no one document file")
    return Place(who.store, who.root, files[0].path.split("/", 1)[0]), files[0]


def _step(who: Changer, entry: Entry, note: str, write: Callable[[], FileWrite]) -> UndoStep:
    def planner(ctx: WriteContext) -> Plan:
        w = write()
        return marked(Plan("", w.record_id, f"reverted by {who.actor}", [w]), entry)

    return UndoStep(note, planner)


@register_undo(CREATE)
def _undo_create(who: Changer, entry: Entry) -> UndoStep:
    """Delete a created document, if it still holds the bytes written (wherever it is now)."""
    place, f = _entry_file(who, entry)

    def write() -> FileWrite:
        found = by_id(place, f.record_id or "")
        if found is None:
            raise NothingToUndo("the document is gone already")
        if found.sha256 != f.new_sha256:
            raise NothingToUndo("the document changed since; it is kept")
        return FileWrite(found.path, None, found.sha256, found.record_id, 0)

    return _step(who, entry, "the document was deleted", write)


@register_undo(UPDATE)
def _undo_update(who: Changer, entry: Entry) -> UndoStep:
    """Put a document's earlier bytes back, if it is as the update left it (wherever it is)."""
    place, f = _entry_file(who, entry)

    def write() -> FileWrite:
        found = by_id(place, f.record_id or "")
        if found is None or f.old_data is None:
            raise NothingToUndo("the document is gone")
        if found.sha256 != f.new_sha256:
            raise NothingToUndo("the document changed since; it is kept")
        return FileWrite(found.path, f.old_data, found.sha256, found.record_id, (f.revision or 1) - 1)

    return _step(who, entry, "the document is as it was before", write)


@register_undo(DELETE)
def _undo_delete(who: Changer, entry: Entry) -> UndoStep:
    """Write a deleted document back where it was, unless its id or its path is taken since."""
    place, f = _entry_file(who, entry)

    def write() -> FileWrite:
        if f.old_data is None or by_id(place, f.record_id or "") is not None:
            raise NothingToUndo("the document exists again")
        return FileWrite(f.path, f.old_data, None, f.record_id or "", f.revision or 1)

    return _step(who, entry, "the document was written back", write)
