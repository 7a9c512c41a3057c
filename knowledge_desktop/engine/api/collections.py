"""Collections: folders of the extension's partition, and who may read or write what is in them
(spec: facts-entities-collections-api, Collections; docs/decisions.md, "The knowledge API
mapped onto the vault").

- `diary/` and `keep/` are the built-in collections; `diary/` holds one entry per day and
  nothing can be created inside it.
- A created collection is a folder holding a hidden `.collection.json` (`{id, name,
  created_by, created_at}`), made under `collections/`, inside `keep/` or inside another
  created one, at most 5 levels deep (the top level is 1). The marker moves with the folder
  whatever tool moves it, so a collection is *found* by walking the partition for markers
  (`CollectionIndex`), never remembered by path: a person moving a folder moves its
  readability with it, and its ref stays.
- A folder a person ticked for an extension (`collections.read|write:user-selected`) is made a
  collection too (a marker by `user`, if it had none) and its id kept in the durable table
  `extension_selected_v1`, so the tick also follows the folder.

What an extension may read or write is decided by where a file is *now*: `readable` and
`writable` look at every folder above it; a grant on a collection covers its subfolders.
The marker is not Markdown, so it is not written by the publish path: the creation is
journaled first (a `collection-create` entry with no files, in the session's run, so that
`changes.revert` finds it), and the marker is then written with `fs/atomic.write_atomic`
(temp file, fsync, rename). A crash in between leaves an entry whose folder never appeared;
its undo finds nothing to remove.

Undoing a creation journals its own entry with no files (`collection-create-undo`, naming the
creation in `extra.reverts`) and only then removes the marker and the folder, which must hold
nothing else; so the creation lists as reverted and is never undone twice. A collection is
deleted (at an uninstall's Delete) as one `collection-delete` entry that deletes every record
inside it through the publish path, keeping their bytes, and names the markers and folders it
then removes in its plan, so that its undo writes the files, folders and markers back.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.quotas import MAX_TITLE_CHARS, check_single_write
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.api.undo import (
    Changer,
    NothingToUndo,
    UndoStep,
    entry_scope,
    marked,
    register_undo,
)
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.fs.atomic import write_atomic
from knowledge_desktop.engine.fs.walk import is_hidden
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.records.parse import parse_bytes, sha256_hex
from knowledge_desktop.engine.store.db import Store
from knowledge_desktop.engine.write import journal
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.journal import Entry
from knowledge_desktop.engine.write.naming import new_id, slug
from knowledge_desktop.engine.write.plan import FileWrite, Plan

MARKER = ".collection.json"
DIARY, KEEP, CREATED_ROOT = "diary", "keep", "collections"
BUILTINS = (DIARY, KEEP)
MAX_DEPTH = 5
CREATE_OP, DELETE_OP = "collection-create", "collection-delete"


class NoCollection(ApiError):
    """A collection ref or name that stands for no collection the extension can reach."""


@dataclass(frozen=True, slots=True)
class Collection:
    """One collection as found on disk now."""

    id: str
    """`diary`, `keep`, or the marker's id."""
    folder: str
    """Partition-relative, `/`-separated (`diary`, `collections/recipes`)."""
    name: str
    builtin: str | None
    created_by: str | None

    @property
    def depth(self) -> int:
        """Levels from the top (a top-level collection is 1; `collections/` itself is not one)."""
        parts = self.folder.split("/")
        return len(parts) - 1 if parts[0] == CREATED_ROOT else len(parts)


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    """What `collections.list` and `create` answer."""

    ref: str
    name: str
    builtin: str | None
    can_write: bool
    parent: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "name": self.name,
            "builtin": self.builtin,
            "kind": "builtin" if self.builtin else "folder",
            "canWrite": self.can_write,
            "parent": self.parent,
        }


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of `folder`, or None (absent, unreadable, or not the marker's shape)."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        return None
    return data


class CollectionIndex:
    """Every collection of a partition, as the folders are now (one walk per call)."""

    def __init__(self, partition: Path) -> None:
        self.partition = partition
        self.by_folder: dict[str, Collection] = {}
        for name in BUILTINS:
            self.by_folder[name] = Collection(name, name, name, name, None)
        for dirpath, dirnames, filenames in os.walk(partition):
            dirnames[:] = [d for d in dirnames if not is_hidden(d)]
            if MARKER not in filenames:
                continue
            marker = read_marker(Path(dirpath))
            if marker is None:
                continue
            rel = Path(dirpath).relative_to(partition).as_posix()
            if rel in BUILTINS or rel in (".", DIARY) or rel.startswith(f"{DIARY}/"):
                continue  # nothing is a collection inside the diary
            self.by_folder[rel] = Collection(
                str(marker["id"]),
                rel,
                str(marker.get("name") or Path(rel).name),
                None,
                str(marker["created_by"]) if marker.get("created_by") else None,
            )
        self.by_id = {c.id: c for c in self.by_folder.values()}

    def around(self, rel: str) -> list[Collection]:
        """The collections a partition-relative path is in, innermost first."""
        parts = rel.split("/")
        out = []
        for n in range(len(parts), 0, -1):
            found = self.by_folder.get("/".join(parts[:n]))
            if found is not None:
                out.append(found)
        return out

    def parent_of(self, col: Collection) -> Collection | None:
        folder = col.folder.rsplit("/", 1)[0] if "/" in col.folder else ""
        outer = self.around(folder) if folder else []
        return outer[0] if outer else None


def may_change_collections(rel: str, is_directory: bool) -> bool:
    """Whether a change at the vault-relative `rel` can change what `CollectionIndex` finds: a
    marker, or a folder (made, removed or moved, it carries the markers inside it), outside
    the hidden folders the index never walks. The live reader asks its watcher to report
    these too, though the walk rules drop them (`engine/live_vault.py`)."""
    parts = rel.split("/")
    if any(is_hidden(part) for part in parts[:-1]):
        return False
    return parts[-1] == MARKER or (is_directory and not is_hidden(parts[-1]))


class CollectionCache:
    """Each partition's `CollectionIndex`, kept between calls by a reader whose watcher
    reports every change that `may_change_collections` (the MCP server, issue 28 §3): walking
    a partition's folders for markers cost more than the rest of a read call. `forget()` is
    the watcher's to call, before the call that follows the change answers (the live vault's
    sync delivers the change first), so a cached index is never older than the call. Safe
    across threads: an index read while a change is forgotten is used once and not kept."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._held: dict[Path, CollectionIndex] = {}

    def forget(self) -> None:
        """Something a partition's collections depend on changed: read them again."""
        with self._lock:
            self._generation += 1
            self._held.clear()

    def index(self, partition: Path) -> CollectionIndex:
        """The collections of `partition`, read now unless nothing changed since the last read."""
        with self._lock:
            generation = self._generation
            held = self._held.get(partition)
        if held is not None:
            return held
        index = CollectionIndex(partition)
        with self._lock:
            if self._generation == generation:
                self._held[partition] = index
        return index


def current_index(session: Session) -> CollectionIndex:
    """The collections of the session's partition as they are now: from the session's cache
    when its vault is kept live, else read afresh."""
    cache = session.collection_cache
    return CollectionIndex(session.folder) if cache is None else cache.index(session.folder)


# -- who may read or write ---------------------------------------------------------------
def selected(store: Store, name: str) -> set[str]:
    """Ids of the collections a person ticked for extension `name`."""
    rows = store.reader().execute("SELECT collection_id FROM extension_selected_v1 WHERE name=?", (name,))
    return {str(r[0]) for r in rows}


def _grants(session: Session, col: Collection, action: str, ticked: set[str]) -> bool:
    if col.builtin is not None:
        return session.allowed(f"collections.{action}:{col.builtin}")
    if col.created_by == session.actor:
        return True
    return col.id in ticked and session.allowed(f"collections.{action}:user-selected")


def can(session: Session, index: CollectionIndex, rel: str, action: str) -> bool:
    """Whether the extension may `action` (`read`|`write`) what is at partition-relative `rel`
    now: some collection it is in grants it (a grant covers subfolders)."""
    ticked = selected(session.store, session.name)
    return any(_grants(session, col, action, ticked) for col in index.around(rel))


def refusal(session: Session, index: CollectionIndex, rel: str, action: str) -> str:
    """The permission to name when `action` on `rel` is refused: the innermost collection's."""
    cols = index.around(rel)
    if not cols:
        return f"collections.{action}:user-selected"
    builtin = next((c.builtin for c in cols if c.builtin), None)
    return f"collections.{action}:{builtin or 'user-selected'}"


def readable(session: Session, path: str, index: CollectionIndex | None = None) -> bool:
    """Whether the extension may read the vault-relative `path` where it is now."""
    return _decide(session, path, "read", index)


def writable(session: Session, path: str, index: CollectionIndex | None = None) -> bool:
    """Whether the extension may write the vault-relative `path` where it is now."""
    return _decide(session, path, "write", index)


def _decide(session: Session, path: str, action: str, index: CollectionIndex | None) -> bool:
    scope, _, rel = path.partition("/")
    if scope != session.scope or not rel:
        return False
    return can(session, index or CollectionIndex(session.folder), rel.rsplit("/", 1)[0], action)


def check_collection(session: Session, index: CollectionIndex, col: Collection, action: str) -> None:
    """`PermissionRefused` unless `action` on `col` is granted (single-object methods)."""
    if not can(session, index, col.folder, action):
        session.check(refusal(session, index, col.folder, action))


# -- naming a collection -----------------------------------------------------------------
def resolve(session: Session, collection: str, index: CollectionIndex | None = None) -> Collection:
    """The collection a call names: `diary`, `keep` or a collection ref (`NoCollection`)."""
    index = index or CollectionIndex(session.folder)
    if collection in BUILTINS:
        return index.by_folder[collection]
    found = session.refs.lookup(collection, "collection", lambda: list(index.by_id))
    if found is None or found not in index.by_id:
        raise NoCollection(f"no collection for {collection!r}: it was removed, or the ref is not yours")
    return index.by_id[found]


def ref_of(session: Session, col: Collection) -> str:
    return session.refs.issue("collection", [col.id])[0]


def list_collections(session: Session) -> list[CollectionInfo]:
    """Every collection the extension can read or write (others left out); a parent it cannot
    see is None."""
    index = CollectionIndex(session.folder)
    ticked = selected(session.store, session.name)
    visible: dict[str, tuple[Collection, bool]] = {}
    for col in index.by_folder.values():
        cols = index.around(col.folder)
        can_write = any(_grants(session, c, "write", ticked) for c in cols)
        if can_write or any(_grants(session, c, "read", ticked) for c in cols):
            visible[col.folder] = (col, can_write)
    refs = dict(
        zip(visible, session.refs.issue("collection", [c.id for c, _ in visible.values()]), strict=True)
    )
    out = []
    for folder, (col, can_write) in sorted(visible.items()):
        parent = index.parent_of(col)
        out.append(
            CollectionInfo(
                refs[folder],
                col.name,
                col.builtin,
                can_write,
                refs.get(parent.folder) if parent is not None else None,
            )
        )
    return out


# -- creating ----------------------------------------------------------------------------
def create_collection(session: Session, name: str, parent: str | None = None) -> CollectionInfo:
    """A new collection `name` under `collections/`, or inside `parent` (`keep` or a ref, which
    the extension must be able to write); `collections.create` is needed either way."""
    session.check("collections.create")
    if not name.strip():
        raise ApiError("a collection needs a name")
    check_single_write(name=name)
    if any(not c.isprintable() and c != " " for c in name):
        raise ApiError("a collection's name is one line of text, without line breaks or control characters")
    index = CollectionIndex(session.folder)
    if parent is None:
        base, depth = CREATED_ROOT, 0
    else:
        par = resolve(session, parent, index)
        if par.builtin == DIARY:
            raise ApiError("nothing can be created inside the diary")
        check_collection(session, index, par, "write")
        base, depth = par.folder, par.depth
    if depth + 1 > MAX_DEPTH:
        raise ApiError(f"collections nest at most {MAX_DEPTH} levels; {name!r} would be level {depth + 1}")
    session.charge(len(name))
    folder = _free_folder(session.folder, base, name)
    col_id = new_id("page").replace("pg_", "col_", 1)
    marker = {"id": col_id, "name": name[:MAX_TITLE_CHARS], "created_by": session.actor}

    def planner(ctx: WriteContext) -> Plan:
        marker["created_at"] = ctx.now
        extra = {"scope": session.scope, "collection": {"id": col_id, "folder": folder}}
        return Plan(CREATE_OP, col_id, None, [], extra=extra)

    payload = {"collection": col_id, "folder": folder, "name": name}
    session.write(session.request(CREATE_OP, payload), planner)
    target = session.folder / folder
    write_atomic(target / MARKER, (json.dumps(marker, ensure_ascii=False, indent=2) + "\n").encode())
    col = Collection(col_id, folder, name, None, session.actor)
    parent_col = index.by_folder.get(base)
    return CollectionInfo(
        ref_of(session, col), name, None, True, ref_of(session, parent_col) if parent_col else None
    )


def _free_folder(partition: Path, base: str, name: str) -> str:
    stem = slug(name) or "collection"
    for n in range(1000):
        candidate = f"{base}/{stem}" if n == 0 else f"{base}/{stem}-{n + 1}"
        if not (partition / candidate).exists():
            return candidate
    raise ApiError(f"no free folder name for {name!r} in {base}")


# -- undoing a creation, deleting, undoing a deletion ------------------------------------
def _find(root: Path, scope: str | None, col_id: str) -> tuple[str, Collection] | None:
    """Collection `col_id` wherever it is now, in `scope` (every partition when the entry,
    journaled before entries named theirs, does not say)."""
    scopes = (
        [scope] if scope else sorted(p.name for p in root.iterdir() if p.is_dir() and not is_hidden(p.name))
    )
    for name in scopes:
        col = CollectionIndex(root / name).by_id.get(col_id)
        if col is not None:
            return name, col
    return None


@register_undo(CREATE_OP)
def _undo_create(who: Changer, entry: Entry) -> UndoStep:
    """Remove a created collection's folder (wherever it is now) if it holds nothing but its
    marker; a collection with content is left alone."""
    col_id = entry.target_id or ""
    scope = (entry.plan.get("extra") or {}).get("scope")
    found = _find(who.root, scope if isinstance(scope, str) else None, col_id)
    if found is None:
        raise NothingToUndo("the collection is gone already")
    scope, col = found
    target = who.root / scope / col.folder
    if [p.name for p in target.iterdir()] != [MARKER]:
        raise NothingToUndo(f"{col.folder} is not empty; it is kept")

    def planner(ctx: WriteContext) -> Plan:
        extra = {"scope": scope, "collection": {"id": col_id, "folder": col.folder}}
        return marked(Plan("", col_id, f"reverted by {who.actor}", [], extra=extra), entry)

    def remove() -> None:
        (target / MARKER).unlink(missing_ok=True)
        target.rmdir()

    return UndoStep(f"removed {col.folder}", planner, remove)


def deletion(root: Path, scope: str, col: Collection, reason: str) -> tuple[Plan, list[str]]:
    """The plan deleting collection `col` with everything in it: each Markdown record through
    the publish path, and in `extra` the markers and folders to remove once it is published
    (`remove_folders`). Also the files it cannot delete (not records): they and their folders
    stay."""
    base = root / scope / col.folder
    writes: list[FileWrite] = []
    markers: dict[str, str] = {}
    folders: list[str] = []
    kept: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden(d))
        here = Path(dirpath)
        rel = here.relative_to(root / scope).as_posix()
        folders.append(rel)
        for name in sorted(filenames):
            path = f"{scope}/{rel}/{name}"
            if name == MARKER:
                markers[rel] = (here / name).read_text(encoding="utf-8")
                continue
            data = (here / name).read_bytes()
            parsed = parse_bytes(path, scope, data) if name.lower().endswith(".md") else None
            fields = (parsed.data or {}) if parsed is not None and parsed.status == "record" else {}
            if is_hidden(name) or not isinstance(fields.get("id"), str):
                kept.append(path)
                continue
            revision = fields.get("revision")
            writes.append(
                FileWrite(
                    path, None, sha256_hex(data), fields["id"], revision if isinstance(revision, int) else 0
                )
            )
    extra = {"scope": scope, "collection": {"id": col.id, "folder": col.folder}, "markers": markers}
    extra["folders"] = folders
    return Plan(DELETE_OP, col.id, reason, writes, extra=extra), kept


def remove_folders(root: Path, plan: Plan) -> None:
    """After a deletion is published: remove the markers it names and each folder left empty,
    innermost first (a folder holding a file it could not delete stays)."""
    scope = str(plan.extra["scope"])
    for rel in plan.extra.get("markers", {}):
        (root / scope / rel / MARKER).unlink(missing_ok=True)
    for rel in sorted(plan.extra.get("folders", []), key=lambda f: f.count("/"), reverse=True):
        with contextlib.suppress(OSError):
            (root / scope / rel).rmdir()


@register_undo(DELETE_OP)
def _undo_delete(who: Changer, entry: Entry) -> UndoStep:
    """Write a deleted collection back: its records where they were, then its folders and
    markers (a marker written since in the same folder is left as it is)."""
    scope = entry_scope(who.store, entry)
    extra = entry.plan.get("extra") or {}
    files = journal.files(who.store.reader(), entry.seq)

    def planner(ctx: WriteContext) -> Plan:
        writes = []
        for f in files:
            if f.old_data is None:
                continue
            if ctx.sha_on_disk(f.path) is not None:
                raise NothingToUndo(f"{f.path} exists again; the collection is not written back")
            writes.append(FileWrite(f.path, f.old_data, None, f.record_id or "", f.revision or 1))
        plan = Plan("", entry.target_id, f"reverted by {who.actor}", writes, extra={"scope": scope})
        return marked(plan, entry)

    def restore() -> None:
        for rel in extra.get("folders", []):
            (who.root / scope / rel).mkdir(parents=True, exist_ok=True)
        for rel, text in extra.get("markers", {}).items():
            target = who.root / scope / rel / MARKER
            if not target.exists():
                write_atomic(target, str(text).encode("utf-8"))

    return UndoStep("the collection was written back with what was in it", planner, restore)


# -- a person's ticks (for the window) -----------------------------------------------------
def select_folder(store: Store, root: Path, name: str, scope: str, folder: str) -> str:
    """Tick partition folder `folder` for extension `name`: it becomes a collection (a marker
    by `user` is written if it had none) that `collections.*:user-selected` reaches. Its id."""
    target = root / scope / folder
    if not target.is_dir() or any(is_hidden(p) for p in folder.split("/")):
        raise ApiError(f"{scope}/{folder} is not a folder of the partition")
    if folder in BUILTINS or folder == DIARY or folder.startswith(f"{DIARY}/"):
        raise ApiError("the diary and keep are granted by their own permissions")
    marker = read_marker(target)
    if marker is None:
        marker = {"id": new_id("page").replace("pg_", "col_", 1), "name": target.name}
        marker.update({"created_by": "user", "created_at": utc_now_text()})
        write_atomic(target / MARKER, (json.dumps(marker, ensure_ascii=False, indent=2) + "\n").encode())
    with store.write() as w:
        w.execute(
            "INSERT OR IGNORE INTO extension_selected_v1(name, collection_id) VALUES (?, ?)",
            (name, marker["id"]),
        )
    return str(marker["id"])


def unselect_folder(store: Store, root: Path, name: str, scope: str, folder: str) -> None:
    """Untick a folder for extension `name` (its marker stays: other ticks may use it)."""
    marker = read_marker(root / scope / folder)
    if marker is not None:
        with store.write() as w:
            w.execute(
                "DELETE FROM extension_selected_v1 WHERE name=? AND collection_id=?", (name, marker["id"])
            )
