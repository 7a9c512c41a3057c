"""Questions by name read the few records of that name, not the partition (issue 28 §3): the
SQLite steps they take are counted (a progress handler), never timed, on a partition four
times larger. Written as `path IN (SELECT … FROM catalog_names …)` (a lookup) or as a plain
join from several names (a record's backlinks, `link_view.extra_backlinks`), SQLite chose the
partition's index and stepped through every record in it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from knowledge_desktop.engine.api.link_view import extra_backlinks
from knowledge_desktop.engine.api.visibility import Visibility
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.query.lookup import lookup
from tests.vaultkit import VaultKit

STEP = 100
"""SQLite virtual machine instructions between two calls of the counting handler."""


class SeesAll:
    """A reader that may see every record (the partition holds no link to judge anyway)."""

    def visible(self, path: str | None) -> bool:
        return path is not None


def steps(root: Path, people: int, question: Callable[[sqlite3.Connection], Any]) -> int:
    """How many times `STEP` SQLite steps `question` took, on a partition of `people` people
    (each with two aliases) written under `root`."""
    kit = VaultKit(root)
    for n in range(people):
        aliases = [f"P. {n:04}", f"Per {n:04}"]
        kit.page(f"private/people/p{n:04}.md", f"pg_{n:04}", f"Person {n:04}", type="person", aliases=aliases)
    kit.scan()
    kit.close()
    conn = sqlite3.connect(root / ".knowledge" / "state.sqlite")
    try:
        counted = [0]

        def count() -> int:
            counted[0] += 1
            return 0

        conn.set_progress_handler(count, STEP)
        question(conn)
        return counted[0]
    finally:
        conn.close()


def a_lookup(conn: sqlite3.Connection) -> None:
    found = lookup(conn, "person 0007", RecordFilter(scope="private"))
    assert found["status"] == "found"
    assert found["record"]["id"] == "pg_0007"


def backlinks_of_a_person(conn: sqlite3.Connection) -> None:
    row = {"scope": "private", "path": "private/people/p0007.md"}
    names = ["Person 0007", "P. 0007", "Per 0007"]
    assert extra_backlinks(conn, row, names, cast(Visibility, SeesAll())) == []


def test_a_lookup_by_name_does_not_read_the_whole_partition(tmp_path: Path) -> None:
    small = steps(tmp_path / "small", 50, a_lookup)
    large = steps(tmp_path / "large", 200, a_lookup)
    assert large <= small + 2, f"{small} × {STEP} steps for 50 people, {large} × {STEP} for 200"


def test_a_records_backlinks_by_name_do_not_read_the_whole_partition(tmp_path: Path) -> None:
    small = steps(tmp_path / "small", 50, backlinks_of_a_person)
    large = steps(tmp_path / "large", 200, backlinks_of_a_person)
    assert large <= small + 2, f"{small} × {STEP} steps for 50 people, {large} × {STEP} for 200"
