"""What an extension may see of its partition when it reads records (issue 16 §3; spec:
facts-entities-collections-api, "Permission strings"; docs/decisions.md, "The knowledge API
mapped onto the vault").

The read tools of retrieval-and-dates (grep, lookup, record, timeline,
chronicle) answer an extension only with records it could also reach through
the knowledge API's own methods. A record of the extension's partition is
visible when one of these holds:

- it is an entity page (its type has the `entity` primitive) of a kind the
  extension holds `entities.read:<kind>` for;
- it is a claim that is a fact (a `fact:` mapping naming a predicate) whose
  subject and predicate a `facts.read:<subject>:<prefix>` grant covers, the
  subject being `self` for the page aliased `knowledge:self`, else the entity
  kind of the page the claim is about (`entities[0]`);
- it lies in a folder the extension may read as a collection
  (`path_in_readable_collection`).

Everything else (other partitions, notes, claims that are not facts,
relationships) is invisible. The callers filter results and their counts with
this rule, so an invisible record lends nothing — no title, path, snippet or
count — to an answer. One `Visibility` serves one call: it remembers its
answers for that call only, since grants are read afresh on every call.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from typing import Any

from knowledge_desktop.engine.api import collections
from knowledge_desktop.engine.api.identifiers import SELF_ALIAS, kind_for_page_type
from knowledge_desktop.engine.api.permissions import (
    Permission,
    kind_problem,
    needed_for_fact,
    predicate_problem,
)
from knowledge_desktop.engine.api.session import Session


def path_in_readable_collection(
    session: Session, path: str, index: collections.CollectionIndex | None = None
) -> bool:
    """Whether the vault-relative `path` lies in a collection folder the extension may read
    (`collections.read:diary|keep|user-selected`, or one it created), judged by the folder the
    file is in now: a file moved into such a folder becomes visible, one moved out does not
    (spec: facts-entities-collections-api, Collections). `index` saves reading the partition's
    collection markers again when one call judges many paths."""
    return collections.readable(session, path, index)


class Visibility:
    """The rule above for one extension, over one read connection, for one call."""

    def __init__(self, conn: sqlite3.Connection, reader: Session, entity_types: Collection[str]) -> None:
        self.conn = conn
        self.reader = reader
        self.entity_types = frozenset(entity_types)
        self._seen: dict[str, bool] = {}
        self._allowed: dict[Permission, bool] = {}
        self._folders: dict[str, bool] = {}
        self._index: collections.CollectionIndex | None = None

    def visible(self, path: str | None) -> bool:
        """Whether the record file at `path` may be shown to the extension."""
        if not path:
            return False
        if path not in self._seen:
            self._seen[path] = self._judge(path)
        return self._seen[path]

    def _may(self, needed: Permission) -> bool:
        if needed not in self._allowed:
            self._allowed[needed] = self.reader.allowed(needed)
        return self._allowed[needed]

    def _judge(self, path: str) -> bool:
        row = self.conn.execute(
            "SELECT scope, kind, type FROM catalog WHERE path=? AND status='record'", (path,)
        ).fetchone()
        if row is None or row[0] != self.reader.scope:
            return False
        _scope, kind, page_type = row
        if kind == "page" and page_type in self.entity_types and self._entity_readable(page_type):
            return True
        if kind == "claim" and self._fact_readable(path):
            return True
        return self._in_readable_collection(path)

    def sql(self) -> tuple[tuple[str, tuple[object, ...]], tuple[str, tuple[object, ...]] | None]:
        """The rule as SQL conditions on a keyword rows table `r` of the reader's partition,
        so that a search ranks and counts only what the reader may see (issue 28 §2).

        First, the records the rule admits whole: entity pages of a readable kind, and every
        record in a readable collection folder (with its subfolders). Second, or None when
        the partition holds no fact: its fact claims (the facts projection's rows), which
        are only candidates, since whether a fact is visible depends on its subject and
        predicate; `visible` judges those one by one. The two may overlap."""
        readable = sorted(t for t in self.entity_types if self._entity_readable(t))
        clauses: list[str] = []
        values: list[object] = []
        if readable:
            clauses.append(f"(r.kind='page' AND r.type IN ({','.join('?' * len(readable))}))")
            values += readable
        self.read_collections()
        assert self._index is not None
        index = self._index
        folders = sorted(
            c.folder
            for c in index.by_folder.values()
            if collections.can(self.reader, index, c.folder, "read")
        )
        for folder in folders:
            # every path under `scope/folder/`: '0' is the character after '/'
            clauses.append("(r.path >= ? AND r.path < ?)")
            values += [f"{self.reader.scope}/{folder}/", f"{self.reader.scope}/{folder}0"]
        whole = (" OR ".join(clauses) or "0", tuple(values))
        has_facts = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM facts_v1 WHERE scope=?)", (self.reader.scope,)
        ).fetchone()[0]
        if not has_facts:
            return whole, None
        facts = "r.kind='claim' AND r.path IN (SELECT path FROM facts_v1 WHERE scope=?)"
        return whole, (facts, (self.reader.scope,))

    def read_collections(self) -> None:
        """Read the partition's collection markers now, whatever the call goes on to judge:
        a reader that pays for it only when it meets a record outside its grants would take
        longer to say "no record" for a hidden one than for none (issue 32 §1). A live
        reader keeps them between calls until its watcher reports a change to them."""
        if self._index is None:
            self._index = collections.current_index(self.reader)

    def _in_readable_collection(self, path: str) -> bool:
        """`path_in_readable_collection`, asked once per folder and over one reading of the
        partition's collection markers for the whole call."""
        folder = path.rsplit("/", 1)[0]
        if folder not in self._folders:
            self.read_collections()
            self._folders[folder] = path_in_readable_collection(self.reader, path, self._index)
        return self._folders[folder]

    def _entity_readable(self, page_type: str) -> bool:
        kind = kind_for_page_type(page_type)
        if kind_problem(kind) is not None:
            return False
        return self._may(Permission("entities", "read", kind))

    def _fact_readable(self, path: str) -> bool:
        data = frontmatter_of(self.conn, path)
        fact = data.get("fact")
        if not isinstance(fact, dict):
            return False
        predicate = fact.get("predicate")
        if not isinstance(predicate, str) or predicate_problem(predicate) is not None:
            return False
        subject = self._subject_kind(path, data)
        if subject is None:
            return False
        return self._may(needed_for_fact("read", subject, predicate))

    def _subject_kind(self, path: str, data: dict[str, Any]) -> str | None:
        """`self`, or the entity kind of the page the claim is about; None when it is about no
        entity page of the partition."""
        entities = data.get("entities")
        if not isinstance(entities, list) or not entities or not isinstance(entities[0], str):
            return None
        first = entities[0]
        resolved = self.conn.execute(
            "SELECT resolved_id FROM refs WHERE src_path=? AND target_id=? AND resolved_id IS NOT NULL",
            (path, first),
        ).fetchone()
        subject_id = resolved[0] if resolved else first
        row = self.conn.execute(
            "SELECT type, aliases FROM catalog WHERE scope=? AND id=? AND status='record' AND +kind='page'"
            " ORDER BY duplicate, path LIMIT 1",
            (self.reader.scope, subject_id),
        ).fetchone()
        if row is None or row[0] not in self.entity_types:
            return None
        if SELF_ALIAS in json.loads(row[1] or "[]"):
            return "self"
        kind = kind_for_page_type(row[0])
        return kind if kind_problem(kind) is None else None


def frontmatter_of(conn: sqlite3.Connection, path: str) -> dict[str, Any]:
    """The frontmatter mapping the last scan parsed for `path` (empty when there is none)."""
    row = conn.execute("SELECT node FROM files WHERE path=?", (path,)).fetchone()
    if row is None or not row[0]:
        return {}
    node = json.loads(row[0])
    data = node.get("data") if isinstance(node, dict) else None
    return data if isinstance(data, dict) else {}
