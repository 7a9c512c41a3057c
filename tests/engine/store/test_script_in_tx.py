"""A schema script runs statement by statement inside the open transaction; a `;` inside a
comment, a string or a trigger's body must not cut a statement in two (a comment in the
projections' schema once broke every store that way)."""

from __future__ import annotations

import sqlite3

from knowledge_desktop.engine.store.db import Tx

SCRIPT = """
-- the first table; its comment holds a semicolon
CREATE TABLE a (x TEXT DEFAULT 'one;two');
CREATE TABLE log (n INTEGER);
CREATE TRIGGER a_added AFTER INSERT ON a BEGIN
    INSERT INTO log VALUES (1);
    INSERT INTO log VALUES (2);
END;
-- a last comment; nothing after it
"""


def test_semicolons_in_comments_strings_and_triggers_keep_statements_whole() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("BEGIN")
    Tx(conn).executescript_in_tx(SCRIPT)
    conn.execute("INSERT INTO a DEFAULT VALUES")
    assert conn.in_transaction
    conn.execute("COMMIT")
    assert conn.execute("SELECT x FROM a").fetchall() == [("one;two",)]
    assert conn.execute("SELECT n FROM log ORDER BY n").fetchall() == [(1,), (2,)]


def test_a_script_without_a_final_semicolon_runs_its_last_statement() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    Tx(conn).executescript_in_tx("CREATE TABLE b (y); CREATE TABLE c (z)")
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert names == {"b", "c"}
