"""A bulk reconcile (a cold scan) indexes the search text in its own transaction, so
the first search after it has nothing left to index (issue 26 §2); what it writes is
what the search's own indexing (`keyword.sync` after a plain scan) writes."""

from __future__ import annotations

import functools
import shutil
import sqlite3
from pathlib import Path

import pytest

from knowledge_desktop.engine import reading, reconcile
from knowledge_desktop.engine.query.grep import GrepQuery
from knowledge_desktop.engine.records import frontmatter
from knowledge_desktop.engine.records.parse import parse_with_body
from knowledge_desktop.engine.store.projections import keyword, note_text, weights
from knowledge_desktop.engine.store.projections import keyword_text as keyword_text_module
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


def test_a_bulk_write_indexes_the_text_its_readers_worked_out_without_reading_again(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers of a cold scan hand over each record's packed body, terms and dates
    (`keyword_text`); the write indexes them as a search would, and reads no file again."""
    mixed(kit)
    twin = tmp_path / "twin"
    shutil.copytree(kit.root, twin)
    monkeypatch.setattr(weights, "BLOCK", 2)
    with Vault.open(twin) as queued:
        queued.reconcile()
        queued.index_keywords()
        expected = weight_rows(queued.store.reader()), keyword_text(queued.store.reader())
    monkeypatch.setattr(reconcile, "BULK_ROWS", 5)
    # what the workers run (`read_batch_encoded`), here in this process, so that it is seen
    monkeypatch.setattr(reconcile, "read_batch", functools.partial(reading.read_batch, with_text=True))

    def no_second_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("a record's file was read again to index its text")

    monkeypatch.setattr(keyword, "read_file", no_second_read)
    vault = kit.scan()
    reader = vault.store.reader()
    assert keyword.pending(reader, vault.scopes()) == 0
    assert (weight_rows(reader), keyword_text(reader)) == expected


def test_the_body_is_stored_once_packed_and_read_back_whole(kit: VaultKit) -> None:
    """FTS5 keeps no copy of the text (an external content table): the body is stored once,
    zlib-packed when that is smaller, and every read of it (grep's snippet) gets it back."""
    long_body = "The lantern guild met at dawn to review the harbour lights. " * 40
    kit.page("private/notes/long.md", "pg_long", "Long lantern", type="note", body=long_body)
    kit.page("private/notes/short.md", "pg_short", "Short", type="note", body="Lantern.\n")
    vault = kit.scan()
    vault.index_keywords()
    reader = vault.store.reader()
    tables = {name for (name,) in reader.execute("SELECT name FROM sqlite_master")}
    assert "keyword_fts_v1_private_content" not in tables
    stored = dict(
        reader.execute(
            "SELECT r.path, t.body FROM keyword_text_v1_private t JOIN keyword_rows_v1_private r"
            " ON r.rowid = t.id"
        )
    )
    assert isinstance(stored["private/notes/long.md"], bytes)
    assert len(stored["private/notes/long.md"]) < len(long_body) // 4
    assert stored["private/notes/short.md"] == "Lantern.\n"  # packing would not make it smaller
    bodies = dict(
        reader.execute(
            "SELECT r.path, f.body FROM keyword_fts_v1_private f JOIN keyword_rows_v1_private r"
            " ON r.rowid = f.rowid"
        )
    )
    assert bodies["private/notes/long.md"] == long_body
    hits = {h["id"]: h for h in vault.grep(GrepQuery("harbour lights", mode="phrase"))["hits"]}
    assert hits["pg_long"]["snippet"]["text"].startswith("The lantern guild met at dawn")


def test_a_notes_body_is_stored_once_packed_and_read_back_whole(kit: VaultKit) -> None:
    """Notes' text too: FTS5 keeps no copy, the body is packed, search reads it back."""
    long_body = "The lantern guild met at dawn to review the harbour lights.\n" * 40
    kit.write("private/ideas/harbour.md", "# Harbour\n\n" + long_body)
    vault = kit.scan()
    vault.index_keywords()
    reader = vault.store.reader()
    tables = {name for (name,) in reader.execute("SELECT name FROM sqlite_master")}
    assert "note_text_fts_v1_content" not in tables
    ((stored,),) = reader.execute("SELECT body FROM note_text_store_v1").fetchall()
    assert isinstance(stored, bytes)
    assert len(stored) < len(long_body) // 4
    ((body,),) = reader.execute("SELECT body FROM note_text_fts_v1").fetchall()
    assert body == "# Harbour\n\n" + long_body
    (hit,) = vault.grep(GrepQuery("harbour lights", kind="note", mode="phrase"))["hits"]
    assert "review the harbour lights" in hit["snippet"]["text"]


def test_the_reader_indexes_the_body_the_parse_split_off(kit: VaultKit) -> None:
    """A worker takes a record's body from its parse (`parse_with_body`) rather than
    decoding and splitting the bytes again: the same body, BOM and CRLF included, and
    none for a file that is not a record."""
    path = kit.page("private/notes/a.md", "pg_a", "Lantern", body="Line one\r\nline [[two]]\r\n")
    data = b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n")
    parsed, body = parse_with_body("private/notes/a.md", "private", data)
    split = frontmatter.split(data.decode("utf-8").removeprefix("\ufeff"))
    assert parsed.status == "record"
    assert split is not None
    assert body == split.body
    assert parse_with_body("private/notes/b.md", "private", b"# A note\n\nLantern.\n")[1] is None
    assert parse_with_body("private/notes/c.md", "private", b"---\nformat: x\n---\nbody\n")[1] is None


def test_a_record_too_long_in_characters_is_left_to_the_indexer(kit: VaultKit) -> None:
    """The bound on the text a worker works out counts characters, not bytes: a body of
    multi-byte characters past `LARGE` bytes but within it in characters is still done."""
    wide = "é" * (keyword_text_module.LARGE // 2 + 10)  # more bytes than LARGE, fewer characters
    for body, done in ((wide, True), (wide + "é" * (keyword_text_module.LARGE // 2), False)):
        data = kit.page("private/notes/a.md", "pg_a", "Lantern", body=body).read_bytes()
        assert len(data) > keyword_text_module.LARGE
        parsed, split_body = parse_with_body("private/notes/a.md", "private", data)
        assert split_body is not None
        assert (keyword_text_module.of_record(parsed, split_body, data) is not None) == done
