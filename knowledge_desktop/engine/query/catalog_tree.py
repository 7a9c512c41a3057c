"""The catalog pane's view of the vault: a counts tree and paged branches.

The pane shows every file the scan found, not only current records, because
a catalog that hides broken or superseded files cannot be trusted to be
complete; facets narrow it on request. The tree is partition → kind → type
with counts, plus per partition an "invalid" branch (records with
`valid=0`, also listed under their type) and an "unrecognized" branch
(files that are not records). Notes (issue 25) are one more section, by
folder: `notes` counts them per folder (the vault root is folder ""), and a
`note` branch lists one folder's notes. Only branches whose children are
files are paged: the rest of the tree is small enough to send whole.

Everything is one or two aggregate queries over `catalog`, so a
100,000-record vault answers in tens of milliseconds; pages use
`LIMIT/OFFSET` over the same filter, and `locate` counts the rows sorting
before a file so the pane can fetch exactly as far as it needs.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.graph.keys import normalise_name
from knowledge_desktop.engine.query.inventory import CURRENT_AT, now_text
from knowledge_desktop.engine.store.schema import CATALOG_LABEL

LIFECYCLES = ("all", "active", "superseded", "withdrawn", "merged")
VALIDITIES = ("all", "valid", "invalid", "current", "outside")
"""`current`: eligible and inside its validity window now; `outside`: a record
whose window has not started yet or has ended (expired, ended, not yet valid)."""
SORTS = ("title", "updated", "type")
GROUPS = ("type", "invalid", "unrecognized", "note")
MAX_LIMIT = 5000

_TITLE = CATALOG_LABEL
"""The label a row shows: its title, else its file name. The index `catalog_label` covers
a type branch in this order, so a page deep in a large branch is read from the index
instead of sorting the branch (issue 26 §3)."""

_SORT_KEYS: dict[str, tuple[tuple[str, bool], ...]] = {
    "title": ((_TITLE, False), ("path", False)),
    "updated": (("coalesce(updated_at, '')", True), (_TITLE, False), ("path", False)),
    "type": (("coalesce(kind, '')", False), ("coalesce(type, '')", False), (_TITLE, False), ("path", False)),
}
"""Sort keys as (SQL expression, descending); each ends with the path so the order is total."""


@dataclass(frozen=True, slots=True)
class CatalogQuery:
    """What the user asked the catalog to show: filter text, facets and sort order."""

    text: str = ""
    tag: str | None = None
    lifecycle: str = "all"
    validity: str = "all"
    sort: str = "title"
    at: str | None = None
    """The instant the `current`/`outside` facets judge windows at; None: now."""

    def checked(self) -> CatalogQuery:
        if self.lifecycle not in LIFECYCLES:
            raise QueryError(f"lifecycle must be one of {', '.join(LIFECYCLES)}")
        if self.validity not in VALIDITIES:
            raise QueryError(f"validity must be one of {', '.join(VALIDITIES)}")
        if self.sort not in SORTS:
            raise QueryError(f"sort must be one of {', '.join(SORTS)}")
        return self

    @property
    def shows_unrecognized(self) -> bool:
        """Facets about record fields exclude files that are not records at all."""
        return self.tag is None and self.lifecycle == "all" and self.validity in ("all", "invalid")

    @property
    def shows_notes(self) -> bool:
        """Notes have tags but no lifecycle or validity: those facets leave them out."""
        return self.lifecycle == "all" and self.validity == "all"


@dataclass(frozen=True, slots=True)
class Branch:
    """A tree node whose children are files: one type, or a partition's problem group."""

    group: str
    scope: str | None
    kind: str | None = None
    type: str | None = None
    folder: str | None = None
    """For a `note` branch: the folder whose notes it lists ("" for the vault root)."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "scope": self.scope, "kind": self.kind, "type": self.type}
        if self.group == "note":
            out["folder"] = self.folder
        return out


def note_folder(path: str) -> str:
    """The folder a note is listed under: its parent folder, "" at the vault root."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _text_clause(text: str) -> tuple[list[str], list[object]]:
    """Title and aliases through their normalised names; id and path as written."""
    text = text.strip()
    if not text:
        return [], []
    name = _like(normalise_name(text))
    raw = _like(text)
    clause = (
        "(path IN (SELECT path FROM catalog_names WHERE name LIKE ? ESCAPE '\\')"
        " OR id LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')"
    )
    return [clause], [name, raw, raw]


def _record_clause(q: CatalogQuery) -> tuple[str, list[object]]:
    parts, params = _text_clause(q.text)
    parts.insert(0, "status='record'")
    if q.tag:
        parts.append("EXISTS (SELECT 1 FROM json_each(catalog.tags) WHERE value=?)")
        params.append(q.tag)
    if q.lifecycle != "all":
        parts.append("lifecycle=?")
        params.append(q.lifecycle)
    at = q.at or now_text()
    if q.validity == "valid":
        parts.append("valid=1")
    elif q.validity == "invalid":
        parts.append("valid=0")
    elif q.validity == "current":
        parts.append(f"eligible=1 AND {CURRENT_AT}")
        params.extend([at, at])
    elif q.validity == "outside":
        parts.append("(active_from > ? OR active_until <= ?)")  # NULL bounds never match
        params.extend([at, at])
    return " AND ".join(parts), params


def _unrecognized_clause(q: CatalogQuery) -> tuple[str, list[object]]:
    parts, params = _text_clause(q.text)
    parts.insert(0, "status='unrecognized'")
    return " AND ".join(parts), params


def _note_clause(q: CatalogQuery) -> tuple[str, list[object]]:
    parts, params = _text_clause(q.text)
    parts.insert(0, "status='note'")
    if q.tag:
        parts.append("EXISTS (SELECT 1 FROM json_each(catalog.tags) WHERE value=?)")
        params.append(q.tag)
    return " AND ".join(parts), params


def _folder_clause(folder: str | None) -> tuple[str, list[object]]:
    """Files directly in `folder` (not in its subfolders); compared exactly, as LIKE would
    fold the case of ASCII letters."""
    if not folder:
        return "instr(path, '/')=0", []
    head = folder + "/"
    return "substr(path, 1, ?)=? AND instr(substr(path, ?), '/')=0", [len(head), head, len(head) + 1]


def _branch_clause(q: CatalogQuery, branch: Branch) -> tuple[str, list[object]]:
    if branch.group not in GROUPS:
        raise QueryError(f"branch group must be one of {', '.join(GROUPS)}")
    if branch.group == "note":
        if not q.shows_notes:
            return "0", []
        where, params = _note_clause(q)
        folder_where, folder_params = _folder_clause(branch.folder)
        return f"{where} AND {folder_where}", [*params, *folder_params]
    if branch.group == "unrecognized":
        if not q.shows_unrecognized:
            return "0", []
        where, params = _unrecognized_clause(q)
    else:
        where, params = _record_clause(q)
    where += " AND scope IS ?"
    params.append(branch.scope)
    if branch.group == "type":
        where += " AND kind IS ? AND type IS ?"
        params.extend([branch.kind, branch.type])
    elif branch.group == "invalid":
        where += " AND valid=0"
    return where, params


def tree(conn: sqlite3.Connection, q: CatalogQuery) -> dict[str, Any]:
    """Partitions with counts per kind and type, and their invalid and unrecognized groups."""
    q = q.checked()
    where, params = _record_clause(q)
    partitions: dict[str | None, dict[str, Any]] = {}

    def partition(scope: str | None) -> dict[str, Any]:
        if scope not in partitions:
            partitions[scope] = {
                "scope": scope,
                "count": 0,
                "kinds": [],
                "invalid": 0,
                "unrecognized": 0,
                "invalidWhy": None,
                "unrecognizedWhy": None,
            }
        return partitions[scope]

    kinds: dict[tuple[str | None, str | None], dict[str, Any]] = {}
    for scope, kind, type_, count, invalid in conn.execute(
        f"SELECT scope, kind, type, count(*), sum(valid=0) FROM catalog WHERE {where}"
        " GROUP BY scope, kind, type ORDER BY scope, kind, type",
        params,
    ):
        part = partition(scope)
        part["count"] += count
        part["invalid"] += invalid
        node = kinds.get((scope, kind))
        if node is None:
            node = kinds[(scope, kind)] = {"kind": kind, "count": 0, "invalid": 0, "types": []}
            part["kinds"].append(node)
        node["count"] += count
        node["invalid"] += invalid
        node["types"].append({"type": type_, "count": count, "invalid": invalid})
    if q.shows_unrecognized:
        u_where, u_params = _unrecognized_clause(q)
        for scope, count in conn.execute(
            f"SELECT scope, count(*) FROM catalog WHERE {u_where} GROUP BY scope", u_params
        ):
            partition(scope)["unrecognized"] = count
    for part in partitions.values():
        if part["invalid"]:
            part["invalidWhy"] = _first_problem(conn, part["scope"], "c.status='record' AND c.valid=0")
        if part["unrecognized"]:
            part["unrecognizedWhy"] = _first_problem(conn, part["scope"], "c.status='unrecognized'")
    ordered = sorted(partitions.values(), key=lambda p: (p["scope"] is None, p["scope"] or ""))
    folders: dict[str, int] = {}
    if q.shows_notes:
        n_where, n_params = _note_clause(q)
        for (path,) in conn.execute(f"SELECT path FROM catalog WHERE {n_where}", n_params):
            folder = note_folder(path)
            folders[folder] = folders.get(folder, 0) + 1
    return {
        "partitions": ordered,
        "total": sum(p["count"] for p in ordered),
        "unrecognized": sum(p["unrecognized"] for p in ordered),
        "notes": {
            "count": sum(folders.values()),
            "folders": [
                {"folder": f, "count": folders[f]} for f in sorted(folders, key=lambda f: (f.casefold(), f))
            ],
        },
        "query": {"text": q.text, "tag": q.tag, "lifecycle": q.lifecycle, "validity": q.validity},
    }


def _first_problem(conn: sqlite3.Connection, scope: str | None, problem: str) -> str | None:
    """The first error of the first problem file in a partition: why the group exists."""
    row = conn.execute(
        "SELECT d.path, d.message FROM catalog c JOIN diagnostics d ON d.path=c.path"
        f" WHERE c.scope IS ? AND {problem}"
        " ORDER BY d.severity != 'error', c.path, d.line LIMIT 1",
        (scope,),
    ).fetchone()
    return f"{row[0]}: {row[1]}" if row else None


_ITEM_COLUMNS = (
    "path, scope, status, id, kind, type, title, lifecycle, valid, duplicate, eligible,"
    " active_from, active_until, updated_at, errors, warnings,"
    " (SELECT message FROM diagnostics d WHERE d.path=catalog.path"
    "  ORDER BY d.severity != 'error', d.line LIMIT 1)"
)


def _item(row: tuple[Any, ...], at: str) -> dict[str, Any]:
    (path, scope, status, id_, kind, type_, title, lifecycle, valid, duplicate, eligible) = row[:11]
    (active_from, active_until, updated_at, errors, warnings, problem) = row[11:]
    in_window = (active_from is None or active_from <= at) and (active_until is None or active_until > at)
    return {
        "path": path,
        "scope": scope,
        "status": status,
        "id": id_,
        "kind": kind,
        "type": type_,
        "title": title,
        "label": title or path.rsplit("/", 1)[-1],
        "lifecycle": lifecycle,
        "valid": bool(valid),
        "duplicate": bool(duplicate),
        "eligible": bool(eligible),
        "inWindow": in_window,
        "activeFrom": active_from,
        "activeUntil": active_until,
        "updatedAt": updated_at,
        "errors": errors,
        "warnings": warnings,
        "problem": problem,
    }


def _order(sort: str) -> str:
    return ", ".join(f"{expr}{' DESC' if desc else ''}" for expr, desc in _SORT_KEYS[sort])


def listing(
    conn: sqlite3.Connection, q: CatalogQuery, branch: Branch, offset: int = 0, limit: int = 200
) -> dict[str, Any]:
    """One page of a branch's files in the query's sort order, with the branch's total."""
    q = q.checked()
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
    if offset < 0:
        raise QueryError("offset must not be negative")
    where, params = _branch_clause(q, branch)
    total = conn.execute(f"SELECT count(*) FROM catalog WHERE {where}", params).fetchone()[0]
    at = q.at or now_text()
    rows = conn.execute(
        f"SELECT {_ITEM_COLUMNS} FROM catalog WHERE {where} ORDER BY {_order(q.sort)} LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    items = [_item(r, at) for r in rows]
    end = offset + len(items)
    return {
        "branch": branch.as_json(),
        "items": items,
        "offset": offset,
        "total": total,
        "nextOffset": end if end < total else None,
    }


def branch_of(conn: sqlite3.Connection, q: CatalogQuery, path: str) -> Branch | None:
    """The branch that lists a file under the query (its type, or its partition's
    unrecognized group); None when the filter or a facet hides it."""
    q = q.checked()
    row = conn.execute("SELECT status, scope, kind, type FROM catalog WHERE path=?", (path,)).fetchone()
    if row is None:
        return None
    status, scope, kind, type_ = row
    if status == "note":
        branch = Branch("note", None, folder=note_folder(path))
    elif status == "unrecognized":
        branch = Branch("unrecognized", scope)
    else:
        branch = Branch("type", scope, kind, type_)
    where, params = _branch_clause(q, branch)
    found = conn.execute(f"SELECT 1 FROM catalog WHERE path=? AND {where}", [path, *params]).fetchone()
    return branch if found else None


def locate(conn: sqlite3.Connection, q: CatalogQuery, path: str) -> dict[str, Any] | None:
    """Where a file sits in the tree: its branch and its row number there, or None if hidden."""
    branch = branch_of(conn, q, path)
    if branch is None:
        return None
    where, params = _branch_clause(q, branch)
    keys = _SORT_KEYS[q.sort]
    values = conn.execute(
        f"SELECT {', '.join(expr for expr, _ in keys)} FROM catalog WHERE path=?", (path,)
    ).fetchone()
    # Rows before this one: lexicographically smaller on the sort keys.
    before: list[str] = []
    before_params: list[object] = []
    for i, (expr, desc) in enumerate(keys):
        equal = [f"{e} = ?" for e, _ in keys[:i]]
        before.append("(" + " AND ".join([*equal, f"{expr} {'>' if desc else '<'} ?"]) + ")")
        before_params.extend([*values[:i], values[i]])
    offset = conn.execute(
        f"SELECT count(*) FROM catalog WHERE {where} AND ({' OR '.join(before)})",
        [*params, *before_params],
    ).fetchone()[0]
    return {"branch": branch.as_json(), "offset": offset, "path": path}


def branches_of(conn: sqlite3.Connection, q: CatalogQuery, paths: list[str]) -> list[dict[str, Any]]:
    """Every branch that may list any of these files now (for refreshing after a change)."""
    q = q.checked()
    out: dict[Branch, None] = {}
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for path, status, scope, kind, type_, valid in conn.execute(
            f"SELECT path, status, scope, kind, type, valid FROM catalog WHERE path IN ({marks})", chunk
        ):
            if status == "note":
                out[Branch("note", None, folder=note_folder(path))] = None
                continue
            if status == "unrecognized":
                out[Branch("unrecognized", scope)] = None
                continue
            out[Branch("type", scope, kind, type_)] = None
            if not valid:
                out[Branch("invalid", scope)] = None
    return [b.as_json() for b in out]


def tags(conn: sqlite3.Connection) -> list[str]:
    """Every tag some record or note carries, for the tag facet."""
    return [
        t
        for (t,) in conn.execute(
            "SELECT DISTINCT j.value FROM catalog, json_each(catalog.tags) AS j"
            " WHERE catalog.status IN ('record', 'note') AND catalog.tags != '[]' AND j.type='text'"
            " ORDER BY j.value COLLATE NOCASE"
        )
    ]
