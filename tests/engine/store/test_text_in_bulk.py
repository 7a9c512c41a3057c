"""A bulk reconcile (a cold scan) indexes the search text in its own transaction, so
the first search after it has nothing left to index (issue 26 §2); what it writes is
what the search's own indexing (`keyword.sync` after a plain scan) writes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from knowledge_desktop.engine import reconcile
from knowledge_desktop.engine.query.grep import GrepQuery
from knowledge_desktop.engine.store.projections import keyword, note_text, weights
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit


def mixed(kit: VaultKit) -> None:
    """Twelve records (ASCII, folded diacritics, aliases, one superseded) and a plain note."""
    kit.lantern_notes(10)
    kit.page(
        "private/notes/accents.md",
        "pg_acc",
        "Café Lantern",
        type="note",
        aliases=["Crème brûlée", "Lantern café"],
        body="Naïve façade of the lantern — déjà vu, Ærøskøbing.\n",
    )
    kit.page(
        "private/notes/old.md",
        "pg_old",
        "Old lantern",
        type="note",
        lifecycle="superseded",
        superseded_by="pg_0",
        body="The lantern as it was.\n",
    )
    kit.write("private/notes/plain.md", "# A plain note\n\nLantern without frontmatter.\n")


def weight_rows(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    names = ("keyword_weights_v1_private", "keyword_lengths_v1_private")
    return {name: sorted(map(tuple, conn.execute(f"SELECT * FROM {name}")), key=repr) for name in names}


def test_a_bulk_scan_leaves_no_text_for_the_first_search(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    mixed(kit)
    monkeypatch.setattr(reconcile, "BULK_ROWS", 5)  # 14 files: a bulk write
    vault = kit.scan()
    reader = vault.store.reader()
    assert keyword.pending(reader, vault.scopes()) == 0
    assert note_text.pending(reader) == 0
    assert reader.execute("SELECT count(*) FROM keyword_rows_v1_private").fetchone() == (11,)
    assert reader.execute("SELECT count(*) FROM keyword_history_rows_v1_private").fetchone() == (1,)
    result = vault.grep(GrepQuery("lantern"))
    assert result["index"]["state"] == "ready"
    assert result["total"] == 11


def test_the_bulk_text_is_what_a_search_indexes(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mixed(kit)
    twin = tmp_path / "twin"
    shutil.copytree(kit.root, twin)
    monkeypatch.setattr(weights, "BLOCK", 2)  # the bulk path applies blocks as it goes
    with Vault.open(twin) as queued:  # a small write: the text waits for the search
        queued.reconcile()
        assert keyword.pending(queued.store.reader(), queued.scopes()) == 13  # (the note too)
        queued.index_keywords()
        expected = weight_rows(queued.store.reader())
        expected_text = keyword_text(queued.store.reader())
    monkeypatch.setattr(reconcile, "BULK_ROWS", 5)
    vault = kit.scan()
    assert weight_rows(vault.store.reader()) == expected
    assert keyword_text(vault.store.reader()) == expected_text
    assert expected["keyword_weights_v1_private"]  # (not two empty tables)


def keyword_text(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    rows = []
    for table in ("keyword_rows_v1_private", "keyword_history_rows_v1_private"):
        fts = table.replace("rows", "fts")
        rows += conn.execute(
            f"SELECT r.*, f.title, f.aliases, f.body FROM {table} r JOIN {fts} f ON f.rowid = r.rowid"
        ).fetchall()
    return sorted(map(tuple, rows), key=repr)
