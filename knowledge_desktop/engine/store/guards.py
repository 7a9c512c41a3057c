"""Durable lifecycle guards: what a published withdrawal or supersession keeps true.

Markdown is authoritative, except here: once a request withdrew or superseded
a record, a restored backup or a stale copy of its file saying `active` must
not bring it back (spec: corrections-and-merges, Recovery and safeguards;
retrieval-and-dates, What is rebuildable). So each published withdrawal and
supersession also writes a row to a durable table, which no projection
rebuild drops:

- `keyword_withdrawals_v1`: one row per withdrawn record (with its request,
  reason and time); `lifecycle_guards_v1` holds a `withdrawn` row too;
- `lifecycle_guards_v1`: `superseded` rows, with the replacing record.

Withdrawal outranks supersession. Only a published supersede undo lifts a
supersession guard (`lift`); nothing lifts a withdrawal.

Every change bumps `guards_version` in `store_identity` in the same
transaction (triggers in `schema.DURABLE_SQL`, so whoever writes a guard
row bumps it), and the reconciler tells with one row whether the guards it
applied are still the ones on disk (`reconcile.Reconciler._guard_nodes`).

The same triggers log each change, with the version it bumped to, in
`guard_changes_v1` (durable migration 8), so a reconciler that follows a
known version reads only the records changed since (`changed_paths`) rather
than the thousands of guards a busy vault holds. The log is bounded
(`prune`): `guard_changes_floor` in `store_identity` says the log holds
every change of a version above it; a reader following an older version
reads every guard, as before the log.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from knowledge_desktop.engine.graph.guards import Guard, GuardMap, stronger
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.store.db import Tx

VERSION_KEY = "guards_version"
"""`store_identity` key: bumped by every guard change."""
REFLECTED_KEY = "guards_version"
"""`projection_meta` key: the guard version the projections were written with."""
FLOOR_KEY = "guard_changes_floor"
"""`store_identity` key: the log holds every guard change of a version above this one."""
KEEP = 10_000
"""Versions of guard changes the log keeps: a reader further behind reads every guard."""
FEW = 256
"""Above this many changed records, one read of every guard beats a read per record."""
_SET_IDENTITY = (
    "INSERT INTO store_identity(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value"
)


def version(conn: sqlite3.Connection | Tx) -> int:
    row = conn.execute("SELECT value FROM store_identity WHERE key=?", (VERSION_KEY,)).fetchone()
    return int(row[0]) if row else 0


def reflected(conn: sqlite3.Connection | Tx) -> int | None:
    """The guard version the projections were last written with (None: unknown)."""
    row = conn.execute("SELECT value FROM projection_meta WHERE key=?", (REFLECTED_KEY,)).fetchone()
    return int(row[0]) if row else None


def record_reflected(tx: Tx, guard_version: int | None) -> None:
    """In a reconcile's write: these projections follow the guards of `guard_version`
    (None: unknown, nothing recorded)."""
    if guard_version is not None:
        tx.execute(
            "INSERT OR REPLACE INTO projection_meta(key, value) VALUES (?, ?)",
            (REFLECTED_KEY, str(guard_version)),
        )


def moved(conn: sqlite3.Connection, followed: int | None, *, loaded: bool) -> bool:
    """Whether the guards on disk differ from the version a loaded graph follows
    (`followed`, None: unknown) or, before the graph is loaded, the projections do.
    One row read (two before the graph is loaded): every reconcile asks."""
    known = followed if loaded else reflected(conn)
    return known is None or known != version(conn)


def load(graph: VaultGraph, conn: sqlite3.Connection) -> int | None:
    """Give a graph being loaded the guards on disk; the version it and the projections
    follow (None when the projections followed another: `changed_paths` then redoes all)."""
    on_disk, graph.guards, followed = current(conn)
    return on_disk if followed == on_disk else None


def changed_paths(graph: VaultGraph, conn: sqlite3.Connection, followed: int | None) -> tuple[list[str], int]:
    """The files of records whose guard changed since `followed` (None: of every guarded
    record), the new map now the graph's; and its version. The reconciler enters those
    records again: their files need not change (a stale copy, an undo).

    When the log reaches back to `followed`, only the logged records are read and
    updated in place; otherwise every guard is read and compared (same outcome)."""
    logged = changes_since(conn, followed) if followed is not None else None
    if logged is not None:
        on_disk, now = logged
        keys = {k for k, g in now.items() if graph.guards.get(k) != g}
        for key in keys:
            held = now[key]
            if held is None:
                graph.guards.pop(key, None)
            else:
                graph.guards[key] = held
        return sorted({p for scope, record_id in keys for p in graph.ids.get(scope, record_id)}), on_disk
    on_disk, fresh, _ = current(conn)
    if followed is None:
        keys = set(fresh) | set(graph.guards)
        keys |= {(graph.nodes[p].scope or "", graph.nodes[p].id or "") for p in graph.guarded}
    else:
        keys = {k for k in set(fresh) | set(graph.guards) if fresh.get(k) != graph.guards.get(k)}
    graph.guards = fresh
    return sorted({p for scope, record_id in keys for p in graph.ids.get(scope, record_id)}), on_disk


def current(conn: sqlite3.Connection) -> tuple[int, GuardMap, int | None]:
    """(version, every guard, the version the projections follow), the map being the one of
    that version: read again when a writer moved the version meanwhile (no explicit
    transaction, so a caller's open statement on this connection is no obstacle)."""
    while True:
        before = version(conn)
        found = read(conn)
        if version(conn) == before:
            return before, found, reflected(conn)


def changes_since(
    conn: sqlite3.Connection, followed: int
) -> tuple[int, dict[tuple[str, str], Guard | None]] | None:
    """(version on disk, the strongest guard now of every record whose guards changed
    after `followed`, None where it holds none), from the log; None when the log does
    not reach back to `followed` (pruned, or older than the log).

    Like `current`, no explicit transaction: read again when the version moved
    meanwhile; and since pruning raises the floor in the transaction that deletes the
    rows, a floor still at most `followed` after the read means none it needed went."""
    while True:
        before = version(conn)
        if followed > before or floor(conn) > followed:
            return None
        keys = {
            (scope, record_id)
            for scope, record_id in conn.execute(
                "SELECT DISTINCT scope, record_id FROM guard_changes_v1 WHERE version > ? AND version <= ?",
                (followed, before),
            )
        }
        if len(keys) > FEW:
            every = read(conn)
            now = {k: every.get(k) for k in keys}
        else:
            now = {k: _strongest(conn, *k) for k in keys}
        if version(conn) == before and floor(conn) <= followed:
            return before, now


def floor(conn: sqlite3.Connection | Tx) -> int:
    """The log holds every guard change of a version above this one (a database without
    the marker: no version is covered)."""
    row = conn.execute("SELECT value FROM store_identity WHERE key=?", (FLOOR_KEY,)).fetchone()
    return int(row[0]) if row else version(conn) + 1


def prune(tx: Tx, keep: int = KEEP) -> None:
    """Drop the log's rows of versions more than `keep` below the version now, raising
    the floor with them (same transaction: a reader never sees the one without the other)."""
    limit = version(tx) - keep
    if limit <= floor(tx):
        return
    tx.execute("DELETE FROM guard_changes_v1 WHERE version <= ?", (limit,))
    tx.execute(
        _SET_IDENTITY,
        (FLOOR_KEY, str(limit)),
    )


def restart_log(tx: Tx, copied: int | None) -> None:
    """Trust the log from the version now on only (a database put together from the
    rows of a damaged one, whose guard version was `copied`: `recovery.salvage`). The
    rows copying the guards logged go (the floor covers them): the log copied as it was."""
    if copied is not None:
        tx.execute("DELETE FROM guard_changes_v1 WHERE version > ?", (copied,))
    tx.execute(
        _SET_IDENTITY,
        (FLOOR_KEY, str(version(tx))),
    )


_GUARD_ROWS = (
    "SELECT scope, record_id, guard, by_id FROM lifecycle_guards_v1{where}"
    " UNION ALL SELECT scope, record_id, 'withdrawn', NULL FROM keyword_withdrawals_v1{where}"
)


def _fold(rows: Iterable[tuple[str, str, str, str | None]]) -> GuardMap:
    out: GuardMap = {}
    for scope, record_id, guard, by_id in rows:
        key = (scope, record_id)
        out[key] = stronger(out.get(key), Guard(guard, by_id))
    return out


def _strongest(conn: sqlite3.Connection, scope: str, record_id: str) -> Guard | None:
    """One record's guard exactly as `read` folds it (same rows, same order)."""
    query = _GUARD_ROWS.format(where=" WHERE scope=? AND record_id=?")
    return _fold(conn.execute(query, (scope, record_id, scope, record_id))).get((scope, record_id))


def read(conn: sqlite3.Connection | Tx) -> GuardMap:
    """Every guard, the strongest per record (withdrawal outranks supersession)."""
    return _fold(conn.execute(_GUARD_ROWS.format(where="")))


def of_record(conn: sqlite3.Connection | Tx, scope: str, record_id: str) -> Guard | None:
    """The strongest guard on one record."""
    withdrawn = conn.execute(
        "SELECT 1 FROM keyword_withdrawals_v1 WHERE scope=? AND record_id=?"
        " UNION ALL SELECT 1 FROM lifecycle_guards_v1 WHERE scope=? AND record_id=? AND guard='withdrawn'",
        (scope, record_id, scope, record_id),
    ).fetchone()
    if withdrawn:
        return Guard("withdrawn", None)
    row = conn.execute(
        "SELECT by_id FROM lifecycle_guards_v1 WHERE scope=? AND record_id=? AND guard='superseded'",
        (scope, record_id),
    ).fetchone()
    return Guard("superseded", row[0]) if row else None


def set_guard(
    tx: Tx,
    *,
    scope: str,
    record_id: str,
    guard: str,
    by_id: str | None,
    request_id: str,
    reason: str,
    at: str,
    lift: bool = False,
) -> None:
    """Add (or, with `lift`, remove) one guard (the version moves with it).

    Lifting applies to supersessions only: a withdrawal is never undone
    (spec: corrections-and-merges, Withdraw a record)."""
    if guard not in ("withdrawn", "superseded"):
        raise ValueError(f"no such guard: {guard!r}")
    if lift:
        if guard != "superseded":
            raise ValueError("only a supersession guard can be lifted")
        tx.execute(
            "DELETE FROM lifecycle_guards_v1 WHERE scope=? AND record_id=? AND guard='superseded'",
            (scope, record_id),
        )
    else:
        tx.execute(
            "INSERT OR REPLACE INTO lifecycle_guards_v1(scope, record_id, guard, by_id, request_id,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (scope, record_id, guard, by_id, request_id, at),
        )
        if guard == "withdrawn":
            tx.execute(
                "INSERT OR IGNORE INTO keyword_withdrawals_v1(scope, record_id, request_id, reason,"
                " withdrawn_at) VALUES (?, ?, ?, ?, ?)",
                (scope, record_id, request_id, reason, at),
            )
    prune(tx)
