"""Facts projection: one row per claim that carries a `fact:` mapping (issue 16).

The knowledge API keeps a fact as a claim (docs/decisions.md, "The knowledge
API mapped onto the vault"); `facts.lookup` must answer from an index
rather than a walk of every claim (issue 16 §5: p95 ≤ 5 ms at 100k facts).
This table is that index: disposable like every projection, rebuilt from the
Markdown, keyed on (scope, subject, predicate). The subject is the claim's
first entity followed through merges, so an absorbed page's facts are found
under the page that was kept. Whether a row is current is decided as the
catalog decides it (`eligible` and the validity window), so a withdrawn or
superseded claim is still here, only not current.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.changes import CATALOG
from knowledge_desktop.engine.changes import Projection as Flag
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections.base import Owned, Update, rewrite

flag: Flag = CATALOG
"""Facts show on the record pane with the catalog's other fields."""
OWNED = (Owned("facts_v1", "path"),)
COLUMNS = (
    "path",
    "scope",
    "claim_id",
    "subject_id",
    "predicate",
    "value",
    "object_id",
    "origin",
    "valid_from",
    "lifecycle",
    "eligible",
    "active_from",
    "active_until",
)


def index(tx: Tx, update: Update) -> bool:
    return rewrite(tx, OWNED, update.paths, lambda: _write(tx, update.graph, update.paths))


def _write(tx: Tx, graph: VaultGraph, paths: list[str]) -> None:
    tx.executemany("DELETE FROM facts_v1 WHERE path=?", ((p,) for p in paths))
    marks = ",".join("?" * len(COLUMNS))
    tx.executemany(f"INSERT INTO facts_v1({','.join(COLUMNS)}) VALUES ({marks})", _rows(graph, paths))


def _rows(graph: VaultGraph, paths: list[str]) -> Iterator[tuple[object, ...]]:
    for path in paths:
        node = graph.nodes.get(path)
        derived = graph.derived.get(path)
        if node is None or derived is None or not node.is_record or node.kind != "claim":
            continue
        fact = node.value("fact")
        if not isinstance(fact, dict) or not isinstance(fact.get("predicate"), str):
            continue
        first = next((target for name, target in node.refs if name == "entities"), None)
        if first is None:
            continue
        scope = node.scope or ""
        subject, _, status = graph.follow_merges(scope, first, set())
        obj = fact.get("object")
        if isinstance(obj, str):
            final, _, obj_status = graph.follow_merges(scope, obj, set())
            obj = final if obj_status == "resolved" and final else obj
        try:
            value = json.dumps(fact.get("value"), ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError):  # YAML can hold what JSON cannot (dates): not a fact then
            continue
        valid_from = node.value("valid_from")
        origin = fact.get("origin")
        yield (
            path,
            node.scope,
            node.id,
            subject if status == "resolved" and subject else first,
            fact["predicate"],
            value,
            obj if isinstance(obj, str) else None,
            origin if isinstance(origin, str) else None,
            valid_from if isinstance(valid_from, str) else None,
            node.lifecycle,
            int(derived.base_ok(node.lifecycle) and derived.deps_ok),
            derived.window[0],
            derived.window[1],
        )


# -- read view -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FactRow:
    """One fact as the projection holds it; `value` is the decoded JSON."""

    path: str
    scope: str
    claim_id: str
    subject_id: str
    predicate: str
    value: Any
    object_id: str | None
    origin: str | None
    valid_from: str | None
    lifecycle: str

    @property
    def value_json(self) -> str:
        return json.dumps(self.value, ensure_ascii=False, sort_keys=True)


_SELECT = (
    "SELECT path, scope, claim_id, subject_id, predicate, value, object_id, origin, valid_from, lifecycle"
)


def _fact(row: tuple[Any, ...]) -> FactRow:
    return FactRow(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], row[7], row[8], row[9])


def current(
    conn: sqlite3.Connection | Tx, scope: str, subject_id: str, now: str, prefix: str | None = None
) -> list[FactRow]:
    """The facts about a subject current at `now` (eligible and inside their window), those of
    predicate `prefix` or below it when given, ordered by predicate then claim id."""
    where = "scope=? AND subject_id=? AND eligible=1"
    args: list[Any] = [scope, subject_id]
    if prefix:
        where += " AND (predicate=? OR (predicate>? AND predicate<?))"
        args += [prefix, prefix + ".", prefix + "/"]  # '/' sorts right after '.'
    where += " AND (active_from IS NULL OR active_from<=?) AND (active_until IS NULL OR active_until>?)"
    args += [now, now]
    rows = conn.execute(f"{_SELECT} FROM facts_v1 WHERE {where} ORDER BY predicate, claim_id", args)
    return [_fact(r) for r in rows]


def by_claim(conn: sqlite3.Connection | Tx, scope: str, claim_id: str) -> FactRow | None:
    """A fact by its claim id, current or not."""
    row = conn.execute(f"{_SELECT} FROM facts_v1 WHERE scope=? AND claim_id=?", (scope, claim_id)).fetchone()
    return _fact(row) if row is not None else None


def claim_ids(conn: sqlite3.Connection | Tx, scope: str) -> list[str]:
    """Every fact claim id of a partition (the candidates a fact ref is looked for among)."""
    return [str(r[0]) for r in conn.execute("SELECT claim_id FROM facts_v1 WHERE scope=?", (scope,))]
