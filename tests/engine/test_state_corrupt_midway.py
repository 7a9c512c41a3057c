"""A page of `state.sqlite` overwritten while the vault was closed, met by a command that runs
after the open-time check passed (issue 24, item 5): the command sets the file aside,
carries its durable rows over, rebuilds the index from the Markdown and answers in the same
run, saying `state-repaired` or `state-damaged` (ARCHITECTURE.md, state.sqlite; spec:
retrieval-and-dates, keeping state.sqlite; docs/decisions.md, damaged state)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop import cli
from knowledge_desktop.engine.errors import StateDamaged
from knowledge_desktop.engine.vault import Vault
from tests import faultkit as fk
from tests.vaultkit import VaultKit

STATE = Path(".knowledge/state.sqlite")
PAGE = 4096
HISTORY_ROWS = 600
"""Enough history rows for several leaf pages, so one damaged leaf loses only its own rows."""


@pytest.fixture
def indexed(kit: VaultKit) -> tuple[VaultKit, dict[str, list[Any]]]:
    """A small generated vault, indexed, whose durable tables each hold a row, and whose
    history table spans several pages."""
    fk.make_vault(kit.root, 60, seed=5, body_max=400)
    with Vault.open(kit.root) as vault:
        vault.reconcile()
        vault.index_keywords()
    durable = fk.seed_durable(kit.root / STATE)
    with sqlite3.connect(kit.root / STATE) as conn:
        conn.executemany(
            "INSERT INTO history(scope, record_id, revision, event, at) VALUES (?, ?, 1, 'saved', ?)",
            [("private", f"pg_{n:04}", "2026-10-01T09:00:00.000Z") for n in range(HISTORY_ROWS)],
        )
    conn.close()
    return kit, durable


def _settle(path: Path) -> None:
    """Every committed page in the main file, no WAL beside it (what a clean close leaves)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def _middle_leaf(path: Path, table: str) -> int:
    """The middle leaf page of `table` (or index) by page number, from SQLite's dbstat."""
    conn = sqlite3.connect(path)
    pages = [
        p
        for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name=? AND pagetype='leaf' ORDER BY pageno", (table,)
        )
    ]
    conn.close()
    assert len(pages) >= 3, f"{table} has too few leaf pages to damage one in the middle"
    return pages[len(pages) // 2]


def _overwrite(path: Path, page: int) -> None:
    """4 KiB of 0xff over one page: no page type SQLite knows."""
    with path.open("r+b") as handle:
        handle.seek((page - 1) * PAGE)
        handle.write(b"\xff" * PAGE)


def _damage(kit: VaultKit, table: str) -> None:
    path = kit.root / STATE
    _settle(path)
    _overwrite(path, _middle_leaf(path, table))
    assert _integrity(path) != ["ok"]


def _integrity(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        conn.close()


def _set_aside(kit: VaultKit) -> list[Path]:
    return [
        p
        for p in (kit.root / ".knowledge").iterdir()
        if p.name.startswith("state.sqlite.corrupt-") and not p.name.endswith(("-wal", "-shm"))
    ]


def _unreadable_catalog_paths(path: Path) -> list[str]:
    """The catalog rows on the damaged page: listed by the (intact) path index, unreadable
    from the table itself."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT rowid, path FROM catalog INDEXED BY sqlite_autoindex_catalog_1").fetchall()
    lost = []
    for rowid, rel in rows:
        try:
            conn.execute("SELECT * FROM catalog WHERE rowid=?", (rowid,)).fetchall()
        except sqlite3.DatabaseError:
            lost.append(rel)
    conn.close()
    return lost


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = cli.main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


COUNTS = ("records", "valid", "invalid", "eligible", "unrecognized", "scopes")


@pytest.mark.parametrize("command", ["scan", "records", "show"])
def test_a_damaged_catalog_page_met_by_a_command_is_repaired_in_the_same_run(
    indexed: Any, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A leaf the command reads overwritten (the catalog's; `files`' for a scan): each command
    answers as it did before the damage, exit 0,
    with one `state-repaired` line on stderr (every durable row came over), the damaged file
    set aside and the new one sound."""
    kit, _ = indexed
    root = str(kit.root)
    path = kit.root / STATE
    _settle(path)
    target = sorted(p.relative_to(kit.root).as_posix() for p in kit.root.rglob("*.md"))[0]
    if command == "scan":
        # a scan reads every row of `files` (the catalog's counts come from running totals)
        _overwrite(path, _middle_leaf(path, "files"))
    else:
        _overwrite(path, _middle_leaf(path, "catalog"))
        target = _unreadable_catalog_paths(path)[0]  # a record the damage hides
    _settle(path)
    args = {
        "scan": ["scan", root],
        "records": ["records", root, "--limit", "1000"],
        "show": ["show", root, target],
    }[command]
    code, after, err = _run(capsys, *args)
    assert code == 0, err
    assert "state-repaired" in err
    assert "nothing was lost" in err
    assert "reopen" not in err
    assert len(_set_aside(kit)) == 1
    assert _integrity(path) == ["ok"]
    code, again, err_again = _run(capsys, *args)  # the same answer from the repaired state
    assert (code, err_again) == (0, "")
    if command == "scan":
        assert {k: after[k] for k in COUNTS} == {k: again[k] for k in COUNTS}
        assert after["records"] == 60
    elif command == "show":
        assert after["path"] == target
        assert after == again
    else:
        assert after == again
        if command == "records":
            assert target in {i["path"] for i in after["items"]}


def test_a_command_answers_like_an_undamaged_copy(indexed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """`records` on the damaged vault lists what `records` lists on an undamaged copy."""
    kit, _ = indexed
    path = kit.root / STATE
    _settle(path)
    code, before, _ = _run(capsys, "records", str(kit.root), "--limit", "1000")
    assert code == 0
    _damage(kit, "catalog")
    code, after, err = _run(capsys, "records", str(kit.root), "--limit", "1000")
    assert code == 0
    assert "state-repaired" in err
    assert after == before


def test_a_damaged_durable_page_loses_only_its_own_rows_and_says_how_many(
    indexed: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A history leaf overwritten (found by the open-time check of the durable tables): the
    rows on the other history pages and every other durable table come over, and `journal`
    answers with exit 0 and a `state-damaged` line naming the rows kept and lost."""
    kit, durable = indexed
    path = kit.root / STATE
    _settle(path)
    with sqlite3.connect(path) as conn:
        total = conn.execute("SELECT count(*) FROM history").fetchone()[0]
    conn.close()
    _damage(kit, "history")
    code, answer, err = _run(capsys, "journal", str(kit.root))
    assert code == 0
    assert [e["requestId"] for e in answer["items"]] == ["req-1"]
    assert "state-damaged" in err
    with Vault.open(kit.root) as vault:
        incident = vault.repairs or []
        kept = vault.store.reader().execute("SELECT count(*) FROM history").fetchone()[0]
        found = {d.code: d.message for d in vault.vault_diagnostics()}
    assert incident == []  # reported once, by the run that repaired it
    assert 0 < kept < total
    # history has no index to count it by: the lost rows are bounded by the rowids between
    # the rows read, which are dense here, so the bound is exact
    said = f"history ({kept} rows kept, at most {total - kept} lost)"
    assert said in found["state-damaged"]
    assert said in err
    dump = fk.dump(path)
    assert {t: rows for t, rows in dump.durable.items() if t in durable and t != "history"} == {
        t: rows for t, rows in durable.items() if t != "history"
    }


def test_scan_verify_repairs_damage_no_query_meets(indexed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A page of an index no command reads (`links_src`): plain commands answer without
    meeting it and the file stays damaged; `scan --verify` checks every page, repairs it and
    says so."""
    kit, _ = indexed
    path = kit.root / STATE
    _damage(kit, "links_src")
    code, _, err = _run(capsys, "scan", str(kit.root))
    assert (code, err) == (0, "")
    assert _integrity(path) != ["ok"]
    code, answer, err = _run(capsys, "scan", str(kit.root), "--verify")
    assert code == 0
    assert answer["records"] == 60
    assert "state-repaired" in err
    assert "nothing was lost" in err
    assert len(_set_aside(kit)) == 1
    assert _integrity(path) == ["ok"]
    code, _, err = _run(capsys, "scan", str(kit.root), "--verify")  # sound now: nothing to say
    assert (code, err) == (0, "")


def test_the_facade_repairs_and_answers_once_more(indexed: Any) -> None:
    """`Vault.repairing`: the query that met the damage is answered from the rebuilt index,
    and the incident is kept in `repairs` and passed to `on_repaired`."""
    kit, _ = indexed
    _damage(kit, "catalog")
    told: list[dict[str, Any]] = []
    with Vault.open(kit.root) as vault:
        vault.on_repaired = lambda incident, change: told.append(incident)
        listed = vault.repairing(lambda: vault.records(limit=1000))  # reads every catalog row
        assert listed == vault.records(limit=1000)  # answered from the rebuilt index
        assert vault.counts()["records"] == 60
        assert told == vault.repairs
        assert len(told) == 1
        assert told[0]["lost"] == []
        assert told[0]["partial"] == {}


def test_a_write_that_meets_damage_is_not_run_twice(indexed: Any) -> None:
    """A write whose planning meets the damage: the state is repaired, and the write is not
    run again (it might have replaced files already); the message says to look at the
    journal."""
    kit, _ = indexed
    _damage(kit, "catalog")
    calls: list[int] = []

    def write(vault: Vault) -> None:
        calls.append(1)
        vault.write(None, lambda ctx: None)  # type: ignore[arg-type]

    with Vault.open(kit.root) as vault:

        def meets_damage(*_: Any) -> Any:
            vault.records(limit=1000)  # the planning's first read meets the damaged page

        vault.publisher.run = meets_damage  # type: ignore[method-assign]
        with pytest.raises(StateDamaged, match="the write was not run again"):
            vault.repairing(lambda: write(vault))
        assert calls == [1]
        assert len(vault.repairs) == 1


def test_an_mcp_call_that_meets_damage_is_repaired_and_answered(kit: VaultKit) -> None:
    """`knowledge mcp` is a command too: a tool call whose reconcile meets a damaged page of
    `files` gets its answer from the rebuilt state, not an error, and the server's session
    follows to the new file (later calls answer as well)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    from tests.engine.api.test_visibility import agent_vault
    from tests.test_mcp import TIMEOUT_S, answer, server

    vault = agent_vault(kit)
    for n in range(150):  # enough rows for `files` to span several leaf pages
        kit.page(
            f"private/notes/filler-{n:03}.md", f"pg_fill{n:03}", f"Filler note number {n:03}", type="note"
        )
    vault.reconcile()
    vault.close()
    path = kit.root / STATE
    _damage(kit, "files")
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                seen["first"] = answer(await client.call_tool("knowledge_grep", {"query": "lantern"}))
                seen["second"] = answer(await client.call_tool("knowledge_grep", {"query": "lantern"}))

    anyio.run(session)
    for key in ("first", "second"):
        assert {h["id"] for h in seen[key]["hits"]} == {"pg_ada", "pg_me", "cl_soup"}
    assert len(_set_aside(kit)) == 1
    assert _integrity(path) == ["ok"]
