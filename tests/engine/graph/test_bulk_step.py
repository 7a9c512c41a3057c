"""A step that derives many files at once (a cold scan) ends where files applied one at a
time end: the same watched keys, dependencies, link rows and dates (issue 26 §2 made the
bulk step file its indexes in one pass and format each date once)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from knowledge_desktop.engine.graph import detail as detail_module
from knowledge_desktop.engine.graph.indexes import Index
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.records import dates
from knowledge_desktop.engine.records.parse import parse_bytes
from knowledge_desktop.engine.store.db import Tx
from knowledge_desktop.engine.store.projections import links, temporal
from knowledge_desktop.engine.store.projections.base import delete_rows
from knowledge_desktop.engine.store.projections.keyword import stamp
from tests.vaultkit import CLAIM_FIELDS, GraphKit, envelope, record_text


def _files() -> dict[str, str]:
    """Pages, claims naming them, a relationship and notes of links by name and path."""
    out: dict[str, str] = {}

    def page(rel: str, record_id: str, title: str, body: str = "", **extra: Any) -> None:
        out[f"private/{rel}"] = record_text(envelope(record_id, "page", title, **extra), body)

    page("people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["The Countess"])
    page("people/bob.md", "pg_bob", "Bob", type="person", body="[[Ada Lovelace]] and [x](ada.md)\n")
    page("projects/engine.md", "pg_eng", "Engine", type="project", body="[[Bob]] [[Nobody]]\n")
    for n in range(6):
        fields = {**CLAIM_FIELDS, "entities": ["pg_ada", "pg_bob"], "dependencies": ["pg_eng"]}
        fields["occurred_at"] = f"2026-0{n + 1}-0{n + 1}"
        body = f"[[The Countess]] [[Engine]] [up](../people/bob.md) {n}\n"
        claim = envelope(f"cl_{n}", "claim", f"Claim {n}", **fields)
        out[f"private/claims/c{n}.md"] = record_text(claim, body)
    rel = {**CLAIM_FIELDS, "from": "pg_ada", "to": "pg_eng", "label": "works_on"}
    rel.pop("claim_kind")
    rel.pop("assertion_origin")
    out["private/relationships/r.md"] = record_text(envelope("rl_1", "relationship", "r", **rel))
    return out


def _graph(files: dict[str, str], *, at_once: bool) -> VaultGraph:
    kit = GraphKit()
    parsed = {p: parse_bytes(p, "private", t.encode()) for p, t in files.items()}
    if at_once:
        kit.graph.apply(parsed)
    else:
        for path, one in parsed.items():
            kit.graph.apply({path: one})
    return kit.graph


def _entries(index: Index[Any]) -> dict[tuple[object, str], list[str]]:
    out: dict[tuple[object, str], list[str]] = {}
    for group in index.groups():
        for value in index._groups[group]:
            out[(group, value)] = sorted(index.get(group, value))
    return out


def test_deriving_every_file_in_one_step_files_what_one_at_a_time_files() -> None:
    bulk = _graph(_files(), at_once=True)
    single = _graph(_files(), at_once=False)
    assert _entries(bulk.watchers) == _entries(single.watchers)
    assert _entries(bulk.dependents) == _entries(single.dependents)
    assert _entries(bulk.dependents)  # (claims depend on the engine page: not vacuous)
    for path in single.nodes:
        ours, theirs = bulk.derived[path], single.derived[path]
        assert sorted(zip(ours.watched_kinds, ours.watched, strict=True)) == sorted(
            zip(theirs.watched_kinds, theirs.watched, strict=True)
        )
    # A later change finds its watchers among those the bulk step filed.
    files = _files()
    files["private/people/ada.md"] = files["private/people/ada.md"].replace("The Countess", "Countess Ada")
    parsed = parse_bytes("private/people/ada.md", "private", files["private/people/ada.md"].encode())
    redone = bulk.apply({"private/people/ada.md": parsed})
    assert {f"private/claims/c{n}.md" for n in range(6)} <= redone


def test_link_rows_are_each_link_with_how_it_resolved() -> None:
    graph = _graph(_files(), at_once=True)
    paths = sorted(graph.nodes)
    expected = [
        (
            path,
            graph.nodes[path].scope,
            graph.nodes[path].body_line + link.raw.line,
            link.raw.kind,
            link.raw.target,
            link.raw.label,
            link.status,
            link.target_id,
            link.target_path,
        )
        for path in paths
        for link in graph.derived[path].resolved_links(graph.nodes[path])
    ]
    assert list(links._link_rows(graph, paths)) == expected
    assert {row[6] for row in expected} == {"resolved", "missing"}


@pytest.mark.parametrize(
    "value",
    [
        "2026-09-28",
        "0999-01-02",  # strftime writes the year unpadded
        "2026-09-28T18:30:00Z",
        "2026-09-28T18:30:00.954+02:00",
        "0001-01-01T00:30:00+01:00",  # before year 1 in UTC: no date
        "9999-12-31T23:59:59.999999Z",
        "28 September",
    ],
)
def test_a_dates_row_values_are_what_parsing_and_stamping_it_give(value: str) -> None:
    try:
        instant = dates.parse_date_or_timestamp(value)
    except (dates.DateFormatError, OverflowError):
        expected = None
    else:
        expected = (stamp(instant.start), stamp(instant.end), int(instant.date_only))
    try:
        found = temporal.span(value)
    except OverflowError:
        found = None
    assert found == expected


def test_fast_stamp_is_stamp() -> None:
    moments = [
        datetime(2026, 9, 28, 18, 30, tzinfo=UTC),
        datetime(2026, 9, 28, 18, 30, 0, 7, tzinfo=UTC),
        datetime(999, 1, 2, tzinfo=UTC),
        datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))),
    ]
    assert [temporal.fast_stamp(m) for m in moments] == [stamp(m) for m in moments]


def test_key_lines_are_the_same_whether_their_keys_were_judged_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = {"format": 2, "id": 3, "title": 4, "fields.x": 5, "evidence.0": 6, "evidence.0.path": 7, "": 8}
    first = detail_module.KeyLines.keep(lines)
    assert first == ("id", 3, "fields.x", 5, "evidence.0", 6)
    assert detail_module.KeyLines.keep(lines) == first
    monkeypatch.setattr(detail_module, "_KEPT_KEYS", {})
    monkeypatch.setattr(detail_module, "_KEPT_KEYS_MAX", 0)  # nothing remembered
    assert detail_module.KeyLines.keep(lines) == first
    assert detail_module._KEPT_KEYS == {}


def test_deleting_rows_runs_no_delete_on_an_empty_table_and_every_one_on_another() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (path TEXT NOT NULL, n INTEGER)")
    ran: list[str] = []
    conn.set_trace_callback(ran.append)
    delete_rows(Tx(conn), "t", "path", ["a", "b"])
    assert not [sql for sql in ran if sql.startswith("DELETE")]
    conn.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("a", 2), ("b", 3), ("c", 4)])
    delete_rows(Tx(conn), "t", "path", ["a", "b"])
    assert conn.execute("SELECT path, n FROM t").fetchall() == [("c", 4)]
