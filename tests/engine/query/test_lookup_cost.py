"""A lookup by name reads the few records of that name, not the partition (issue 28 §3): the
SQLite steps it takes are counted (a progress handler), never timed, on a partition four
times larger. Written as `path IN (SELECT … FROM catalog_names …)` SQLite chose the
partition's index and stepped through every record in it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.query.lookup import lookup
from tests.vaultkit import VaultKit

STEP = 100
"""SQLite virtual machine instructions between two calls of the counting handler."""


def steps_of_a_lookup(root: Path, people: int) -> int:
    kit = VaultKit(root)
    for n in range(people):
        kit.page(f"private/people/p{n:04}.md", f"pg_{n:04}", f"Person {n:04}", type="person")
    kit.scan()
    kit.close()
    conn = sqlite3.connect(root / ".knowledge" / "state.sqlite")
    try:
        counted = [0]

        def count() -> int:
            counted[0] += 1
            return 0

        conn.set_progress_handler(count, STEP)
        found = lookup(conn, "person 0007", RecordFilter(scope="private"))
        assert found["status"] == "found"
        assert found["record"]["id"] == "pg_0007"
        return counted[0]
    finally:
        conn.close()


def test_a_lookup_by_name_does_not_read_the_whole_partition(tmp_path: Path) -> None:
    small = steps_of_a_lookup(tmp_path / "small", 50)
    large = steps_of_a_lookup(tmp_path / "large", 200)
    assert large <= small + 2, f"{small} × {STEP} steps for 50 people, {large} × {STEP} for 200"
