"""A partition's first text build (a cold scan, or the first search after a plain scan)
writes its rows a batch at a time, one statement per table (`keyword._bulk`, issue 26 §2);
what it stores, rowids included, is what indexing the files one at a time stores."""

from __future__ import annotations

import functools
import shutil
import sqlite3
from pathlib import Path

import pytest

from knowledge_desktop.engine import reading, reconcile
from knowledge_desktop.engine.store.projections import keyword, weights
from knowledge_desktop.engine.vault import Vault
from tests.engine.store.test_text_in_bulk import mixed
from tests.vaultkit import VaultKit

TABLES = (
    "keyword_rows_v1_private",
    "keyword_history_rows_v1_private",
    "keyword_text_v1_private",
    "keyword_history_text_v1_private",
    "keyword_tags_v1_private",
    "keyword_lengths_v1_private",
    "keyword_fts_v1_private_docsize",
    "keyword_history_fts_v1_private_docsize",
)


def stored(vault: Vault) -> dict[str, list[tuple[object, ...]]]:
    """Every keyword table of the partition, rowids included where a reader sees them; the
    weights without theirs (an edit rewrites a row), and FTS5's index as its terms."""
    conn = sqlite3.connect(vault.root / ".knowledge" / "state.sqlite")  # (fts5vocab: a temp table)
    out = {name: sorted(map(tuple, conn.execute(f"SELECT * FROM {name}")), key=repr) for name in TABLES}
    out["weights"] = sorted(
        map(tuple, conn.execute("SELECT term, block, postings, positions FROM keyword_weights_v1_private"))
    )
    for fts in ("keyword_fts_v1_private", "keyword_history_fts_v1_private"):
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_{fts} USING fts5vocab(main, {fts}, instance)"
        )
        out[fts] = conn.execute(f"SELECT * FROM temp.terms_{fts} ORDER BY term, doc, col, offset").fetchall()
    conn.close()
    return out


def varied(kit: VaultKit) -> None:
    """`mixed`, plus records whose text our tokenizer cannot vouch for and an empty one."""
    mixed(kit)
    kit.page("private/notes/kana.md", "pg_kana", "Lantern かな", type="note", body="灯籠 lantern ランタン.\n")
    kit.page("private/notes/empty.md", "pg_empty", "", type="note", body="")
    kit.page(
        "private/notes/tagged.md", "pg_tag", "Tagged lantern", type="note", tags=["a", "b", "a"], body="x\n"
    )


def one_at_a_time(root: Path) -> dict[str, list[tuple[object, ...]]]:
    with Vault.open(root) as vault:
        vault.reconcile()  # a small write: the text waits for the search
        vault.index_keywords(chunk=1)  # the first file alone, then one file per transaction
        assert keyword.pending(vault.store.reader(), vault.scopes()) == 0
        return stored(vault)


@pytest.mark.parametrize("by", ["search", "scan"])
def test_a_first_build_in_batches_stores_what_one_file_at_a_time_stores(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    varied(kit)
    twin = tmp_path / "twin"
    shutil.copytree(kit.root, twin)
    monkeypatch.setattr(weights, "BLOCK", 2)
    expected = one_at_a_time(twin)
    monkeypatch.setattr(keyword, "BATCH", 3)  # batches end mid-block and between history rows
    if by == "search":
        vault = kit.scan()
        assert keyword.pending(vault.store.reader(), vault.scopes()) == 16
        vault.index_keywords()
    else:  # a cold scan: the workers' text, indexed in the scan's own transaction
        monkeypatch.setattr(reconcile, "BULK_ROWS", 5)
        monkeypatch.setattr(reconcile, "read_batch", functools.partial(reading.read_batch, with_text=True))
        vault = kit.scan()
    reader = vault.store.reader()
    assert keyword.pending(reader, vault.scopes()) == 0
    assert stored(vault) == expected
    assert len(expected["keyword_rows_v1_private"]) == 13  # (the empty page is no record)
    assert expected["weights"]


def test_a_file_changed_since_the_scan_waits_and_the_batch_goes_on(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.lantern_notes(7)
    vault = kit.scan()
    kit.page("private/notes/n003.md", "pg_3", "Lantern 3", type="note", body="Rewritten after the scan.\n")
    monkeypatch.setattr(keyword, "BATCH", 4)
    assert vault.index_keywords() is True  # lag
    reader = vault.store.reader()
    assert keyword.pending(reader, vault.scopes()) == 1
    rows = reader.execute("SELECT rowid, path FROM keyword_rows_v1_private ORDER BY rowid").fetchall()
    assert rows == [(i + 1, f"private/notes/n{n:03}.md") for i, n in enumerate((0, 1, 2, 4, 5, 6))]
    assert reader.execute("SELECT id FROM keyword_text_v1_private ORDER BY id").fetchall() == [
        (i,) for i in range(1, 7)
    ]
    vault.reconcile()
    vault.index_keywords()  # the partition has rows now: the file replaces its old one
    assert reader.execute("SELECT max(rowid), count(*) FROM keyword_rows_v1_private").fetchone() == (7, 7)


def test_new_files_into_a_partition_with_rows_are_written_in_batches_as_one_at_a_time(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold scan's later chunks queue only files that have no rows yet, into a partition
    the first chunk filled: they take the batched path too, and store what one file at a
    time stores."""
    kit.lantern_notes(5)
    twin = tmp_path / "twin"
    shutil.copytree(kit.root, twin)
    monkeypatch.setattr(weights, "BLOCK", 2)
    monkeypatch.setattr(keyword, "BATCH", 3)
    vault = kit.scan()
    vault.index_keywords()  # the partition has rows
    varied(kit)  # new files only
    batched: list[int] = []
    bulk = keyword._bulk

    def counted(*args: object, **kwargs: object) -> object:
        batched.append(len(args[3]))  # type: ignore[arg-type]
        return bulk(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(keyword, "_bulk", counted)
    vault.reconcile()
    vault.index_keywords()
    assert batched, "the new files were indexed one at a time"
    got = stored(vault)
    kit.close()
    monkeypatch.setattr(keyword, "BATCH", 256)
    with Vault.open(twin) as twin_vault:
        twin_vault.reconcile()
        twin_vault.index_keywords(chunk=1)
    varied(VaultKit(twin))
    assert one_at_a_time(twin) == got
