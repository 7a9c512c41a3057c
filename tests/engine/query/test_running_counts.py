"""The status bar's counts come from running counts the catalog's triggers keep
(`catalog_counts`, issue 26 §3): they must always equal counting the catalog itself, however
its rows were inserted, replaced, updated or deleted."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_desktop.engine.query import inventory
from knowledge_desktop.engine.store import schema
from tests.vaultkit import VaultKit

COUNTED = "coalesce(scope, ''), status, coalesce(kind, ''), valid, duplicate, eligible, windowed"


def _recount(conn: sqlite3.Connection) -> set[tuple[Any, ...]]:
    """The catalog grouped as the running counts group it, counted row by row."""
    return set(
        conn.execute(
            f"SELECT {COUNTED}, count(*) FROM (SELECT *,"
            " active_from IS NOT NULL OR active_until IS NOT NULL AS windowed FROM catalog)"
            f" GROUP BY {COUNTED}"
        )
    )


def _catalog() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(schema.PROJECTIONS_SQL)
    return conn


row = st.fixed_dictionaries(
    {
        "path": st.sampled_from([f"p{i}.md" for i in range(6)]),
        "scope": st.sampled_from([None, "private", "team"]),
        "status": st.sampled_from(["record", "unrecognized", "note"]),
        "kind": st.sampled_from([None, "page", "claim"]),
        "valid": st.integers(0, 1),
        "duplicate": st.integers(0, 1),
        "eligible": st.integers(0, 1),
        "active_from": st.sampled_from([None, "2020-01-01", "2999-01-01"]),
        "active_until": st.sampled_from([None, "2021-01-01", "2999-12-31"]),
    }
)
step = st.tuples(st.sampled_from(["replace", "delete", "update"]), row)


@settings(max_examples=200, deadline=None)
@given(st.lists(step, max_size=25))
def test_running_counts_equal_a_recount_after_any_writes(steps: list[tuple[str, dict[str, Any]]]) -> None:
    conn = _catalog()
    for action, values in steps:
        if action == "delete":
            conn.execute("DELETE FROM catalog WHERE path=?", (values["path"],))
        elif action == "update":
            conn.execute(
                "UPDATE catalog SET scope=:scope, status=:status, kind=:kind, valid=:valid,"
                " duplicate=:duplicate, eligible=:eligible, active_from=:active_from,"
                " active_until=:active_until WHERE path=:path",
                values,
            )
        else:
            conn.execute(
                "INSERT OR REPLACE INTO catalog(path, scope, status, kind, valid, duplicate, deps_ok,"
                " eligible, active_from, active_until, aliases, tags, sha256, size, errors, warnings)"
                " VALUES (:path, :scope, :status, :kind, :valid, :duplicate, 1, :eligible, :active_from,"
                " :active_until, '[]', '[]', 'x', 0, 0, 0)",
                values,
            )
    running = {r[:-1]: r[-1] for r in conn.execute("SELECT * FROM catalog_counts")}
    recount = {r[:-1]: r[-1] for r in _recount(conn)}
    assert running == recount  # no row left at 0 either: the table a fresh build makes


def _counted_in_full(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts as the status bar had them before the running counts: the whole catalog read."""
    now = inventory.now_text()
    row = conn.execute(
        "SELECT count(*), sum(status='record'), sum(status='record' AND valid=1),"
        " sum(status='record' AND valid=0), sum(status='unrecognized'),"
        f" sum(eligible AND {inventory.CURRENT_AT}), sum(duplicate), sum(status='note') FROM catalog",
        (now, now),
    ).fetchone()
    keys = ("files", "records", "valid", "invalid", "unrecognized", "eligible", "duplicateIds", "notes")
    out: dict[str, Any] = {k: v or 0 for k, v in zip(keys, row, strict=True)}
    out["byKind"] = dict(
        conn.execute("SELECT kind, count(*) FROM catalog WHERE status='record' GROUP BY kind")
    )
    out["scopes"] = [
        s
        for (s,) in conn.execute("SELECT DISTINCT scope FROM catalog WHERE scope IS NOT NULL ORDER BY scope")
    ]
    return out


def test_a_vaults_counts_equal_the_catalog_counted_in_full_through_edits(tmp_path: Path) -> None:
    kit = VaultKit(tmp_path / "v")
    kit.page("private/people/ada.md", "pg_ada", "Ada", "Hello.\n")
    kit.page("private/people/bob.md", "pg_bob", "Bob", "Hi.\n")
    kit.claim("private/claims/later.md", "cl_later", "Later", valid_from="2999-01-01T00:00:00Z")
    kit.claim("private/claims/over.md", "cl_over", "Over", valid_until="2020-01-01T00:00:00Z")
    kit.page("private/people/dup.md", "pg_ada", "Ada again", "Same id.\n")
    kit.write("private/notes/loose.md", "Just a note with [[Ada]].\n")
    kit.write("private/broken.md", "---\nformat: knowledge-record-v1\nid: [unclosed\n---\n")
    kit.write("readme.md", "# A note at the root\n")
    with kit.open() as vault:
        vault.reconcile()
        conn = vault.store.reader()
        first = vault.counts()
        _assert_same(first, _counted_in_full(conn))
        assert conn.execute("SELECT count(*) FROM catalog WHERE active_from IS NOT NULL").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM catalog WHERE active_until IS NOT NULL").fetchone() == (1,)
        (tmp_path / "v/private/people/dup.md").unlink()
        kit.write("private/people/ada.md", "not a record any more\n")
        kit.page("private/projects/apollo.md", "pj_apollo", "Apollo", "A project.\n", type="project")
        vault.reconcile()
        _assert_same(vault.counts(), _counted_in_full(conn))


def _assert_same(counts: dict[str, Any], full: dict[str, Any]) -> None:
    for key, value in full.items():
        assert counts[key] == value, key
