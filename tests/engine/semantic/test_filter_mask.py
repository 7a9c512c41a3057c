"""The first stage of search by meaning keeps exactly the files grep's filters keep
(issue 27 §3: filters apply to both halves), now from one mask over the held files
(`semantic_filter`) instead of asking the rows table about each candidate."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from knowledge_desktop.engine.query import semantic_filter, semantic_held
from knowledge_desktop.engine.query.grep_query import GrepQuery, filter_parts
from knowledge_desktop.engine.store.projections import keyword
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path

NOW = "2026-06-01T00:00:00Z"
QUERIES = [
    GrepQuery("x"),
    GrepQuery("x", kind="claim"),
    GrepQuery("x", kind="page", types=frozenset({"person", "company"})),
    GrepQuery("x", tag="studio"),
    GrepQuery("x", at="2020-01-01T00:00:00Z"),
    GrepQuery("x", at="2031-01-01T00:00:00Z"),
    GrepQuery("x", time_field="occurred_at", since="2025-01-01", until="2026-12-31"),
    GrepQuery("x", within=("r.kind = ?", ("relationship",))),
]


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    copy = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(demo_vault_path(), copy, ignore=shutil.ignore_patterns(".knowledge"))
    semantic_held.forget()
    with Vault.open(copy) as vault:
        vault.reconcile()
        vault.index_keywords()
        vault.index_meaning()
        yield vault
    semantic_held.forget()


def reference(vault: Vault, q: GrepQuery) -> set[str]:
    """The files grep's WHERE clause keeps, asked of the rows table directly."""
    rows = keyword.tables("private")[1]
    parts = filter_parts(q, "r", q.at or NOW, current=True, tags=keyword.tags_table("private"))
    where = " AND ".join(p.sql for p in parts)
    values = [v for p in parts for v in p.values]
    return {p for (p,) in vault.store.reader().execute(f"SELECT r.path FROM {rows} r WHERE {where}", values)}


def dated(q: GrepQuery) -> GrepQuery:
    """`q` at a fixed time when it names none, so the reference reads the same window."""
    return q if q.at else replace(q, at=NOW)


@pytest.mark.parametrize("q", QUERIES, ids=[str(i) for i in range(len(QUERIES))])
def test_the_mask_keeps_what_the_rows_table_keeps(vault: Vault, q: GrepQuery) -> None:
    conn = vault.store.reader()
    held = semantic_held.held(conn, str(vault.store.path), "private", 256)
    when = dated(q)
    mask = semantic_filter.passing(conn, "private", held, when)
    kept = {p for p, ok in zip(held.paths, mask.tolist(), strict=True) if ok}
    assert kept == reference(vault, when) & set(held.paths)
    assert len(held.paths) > 0
    # asked again (kept listings), the same answer
    assert np.array_equal(semantic_filter.passing(conn, "private", held, when), mask)


def test_the_filters_leave_something_out(vault: Vault) -> None:
    """The queries above are worth asking: each leaves out some files and keeps some."""
    conn = vault.store.reader()
    held = semantic_held.held(conn, str(vault.store.path), "private", 256)
    for q in QUERIES[1:]:
        when = dated(q)
        kept = reference(vault, when) & set(held.paths)
        assert 0 < len(kept) < len(held.paths), q
