"""Hostile and malformed vaults, through the engine: every case of `tests/hostile_cases.py`
gets its diagnostic (code, path, line, a reason in words), the rest of the vault is still
read, and reading stays bounded in time and memory. (ARCHITECTURE.md: invalid files are
listed and diagnosed and never crash a scan; docs/limits.md.)"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.links.extract import extract
from knowledge_desktop.engine.query.inventory import RecordFilter
from knowledge_desktop.engine.records.parse import parse_bytes
from knowledge_desktop.engine.vault import Vault
from tests import hostile_cases as hc
from tests.cost import assert_near_linear
from tests.vaultkit import CHANGE, VaultKit


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    """The whole hostile vault, scanned once (with its locked file and folder locked)."""
    base = tmp_path_factory.mktemp("hostile")
    root = base / "vault"
    hc.build(root, base / "outside")
    vault = Vault.open(root)
    with hc.locked(root):
        vault.reconcile()
    yield vault
    vault.close()


def found_at(vault: Vault, path: str) -> list[dg.Diagnostic]:
    return [d for d in vault.diagnostics() if d.path == path]


@pytest.mark.parametrize("case", hc.CASES, ids=[c.name for c in hc.CASES])
def test_each_hostile_case_gets_a_diagnostic_naming_its_path_line_and_reason(
    hostile: Vault, case: hc.Case
) -> None:
    """Bad input: a clear diagnostic (path, line where there is one, the reason in words)."""
    found = found_at(hostile, case.path)
    if case.code is None:
        rows = hostile.find(case.path)
        assert [(r["path"], r["status"], r["valid"]) for r in rows] == [(case.path, "record", True)]
        assert [d for d in found if d.severity is dg.Severity.ERROR] == []
        return
    matching = [d for d in found if d.code == case.code]
    assert matching, [(d.code, d.message) for d in found]
    diagnostic = matching[0]
    assert diagnostic.line == case.line
    assert case.words in diagnostic.message
    assert diagnostic.severity is dg.CODES[case.code][0]
    assert "internal error" not in diagnostic.message
    if case.code not in ("ontology-activation-failed", "folder-unreadable", "file-name-not-utf8"):
        assert hostile.find(case.path), "the file is listed, not dropped"


def test_the_rest_of_the_vault_is_still_read(hostile: Vault) -> None:
    """One bad file never stops a scan: the well-formed records are current."""
    listed = {item["path"] for item in hostile.records(RecordFilter(), limit=1000)["items"]}
    assert set(hc.VALID) <= listed
    for path in hc.VALID:
        assert found_at(hostile, path) == []


def test_pipes_and_folder_links_are_neither_read_nor_walked_twice(hostile: Vault) -> None:
    """A pipe named .md (or a link to one) would block a read; a folder link inside the
    vault would list its files twice: neither is listed, and the scan finished."""
    paths = {row[0] for row in hostile.store.reader().execute("SELECT path FROM files")}
    assert not paths & set(hc.IGNORED)
    assert not [p for p in paths if p.startswith("private/notes/links/back/")]


def test_every_path_in_the_index_is_text_that_json_and_sqlite_can_hold(hostile: Vault) -> None:
    """Names: newlines, emoji and bidi marks are kept as they are; bytes that are not UTF-8
    are escaped, so no stored path holds a lone surrogate (it would break every write)."""
    paths = [row[0] for row in hostile.store.reader().execute("SELECT path FROM files")]
    for path in paths:
        path.encode("utf-8")  # raises on a lone surrogate
    assert "private/notes/names/new\nline.md" in paths
    assert "private/notes/names/caf\\xe9.md" in paths
    assert hostile.find("private/notes/names/caf\\xe9.md")[0]["status"] == "unrecognized"


def bytes_read() -> int:
    """The bytes this process has read through `read` calls so far (Linux: /proc/self/io),
    page cache included: an operation counter that a loaded machine does not change."""
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts reads with Linux's /proc/self/io")
def test_oversized_files_are_listed_without_being_read(tmp_path: Path) -> None:
    """Limits: a file over the read limit costs neither its size in memory nor a read;
    its stat stands for its bytes, so growing it again is still noticed."""
    root = tmp_path / "vault"
    (root / "private/notes").mkdir(parents=True)
    (root / "private/notes/good.md").write_text(hc.page("pg_good", "Good"), encoding="utf-8")
    huge = root / "private/notes/huge.md"
    with huge.open("wb") as handle:
        handle.write(hc.page("pg_huge", "Huge").encode())
        handle.truncate(50 * hc.MIB)
    line = root / "private/notes/line.md"
    line.write_bytes(b"x" * (10 * hc.MIB))
    vault = Vault.open(root)
    tracemalloc.start()
    read_before = bytes_read()
    vault.reconcile()
    read = bytes_read() - read_before
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 * hc.MIB, f"{peak / hc.MIB:.1f} MiB held while scanning 60 MB of oversize files"
    assert read < 4 * hc.MIB, f"{read / hc.MIB:.1f} MiB read: the oversize files were read"
    assert {d.code for d in vault.diagnostics()} == {"file-too-large"}
    with huge.open("r+b") as handle:
        handle.truncate(60 * hc.MIB)
    vault.reconcile(["private/notes/huge.md"])
    (message,) = [d.message for d in vault.diagnostics() if d.path == "private/notes/huge.md"]
    assert "60 MiB" in message
    vault.close()


def test_large_files_under_the_limit_parse_in_bounded_time_and_memory(tmp_path: Path) -> None:
    """Limits: a 7 MiB line of links, 10,000 links, 400,000 nested brackets and 300 KB of
    frontmatter are each read within a few times the file limit of memory."""
    root = tmp_path / "vault"
    hc.big_files(root)
    vault = Vault.open(root)
    tracemalloc.start()
    vault.reconcile()
    vault.index_keywords()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # (Their cost is guarded by size: four times the pathological body, about four times the cost, in
    # `test_link_extraction_stays_bounded_on_pathological_bodies` below.)
    assert peak < 64 * hc.MIB, f"{peak / hc.MIB:.1f} MiB"
    codes = {d.path: d.code for d in vault.diagnostics() if d.code != "link-missing"}
    assert codes["private/notes/big/many-links.md"] == "links-truncated"
    assert "private/notes/big/brackets.md" not in codes
    vault.close()


@pytest.mark.parametrize(
    ("pattern", "count", "truncated"),
    [
        ("[[Good]] and ", 560_000, True),
        ("[]", 200_000, False),
        ("`x` " * 100 + "[[a]]\n", 15_000, True),
    ],
    ids=["a-7-mib-line-of-links", "nested-brackets", "6-mb-of-code-and-links"],
)
def test_link_extraction_stays_bounded_on_pathological_bodies(
    pattern: str, count: int, truncated: bool
) -> None:
    """Limits: bodies that made link extraction take minutes (a line of links counted
    from its start for each link, brackets nested 200,000 deep, megabytes of Markdown)
    cost about four times as much for four times the body (measured on a smaller one first, so that
    a regression fails rather than hangs); a body past the scanned length says so."""

    def body(n: int) -> str:
        if pattern == "[]":
            return "[" * n + "]" * n
        return pattern * n

    def parse(n: int) -> Any:
        return parse_bytes("private/x.md", "private", hc.page("pg_x", "X", body(n)).encode())

    assert_near_linear(parse, count // 64)
    parsed = parse(count)
    assert parsed.status == "record"
    assert len(parsed.links) <= 5_000
    notes = [d.message for d in parsed.diagnostics if d.code == "links-truncated"]
    assert bool(notes) == truncated
    assert all("longer than 1 MiB" in note for note in notes)


def test_links_past_the_limit_are_reported_at_the_first_one_not_followed() -> None:
    """Limits: 5,000 links per body; the diagnostic points at the line of the 5,001st."""
    body = "".join(f"[[T{n}]]\n" for n in range(6_000))
    parsed = parse_bytes("private/x.md", "private", hc.page("pg_x", "X", body).encode())
    assert len(parsed.links) == 5_000
    (diagnostic,) = [d for d in parsed.diagnostics if d.code == "links-truncated"]
    assert diagnostic.line == parsed.body_line + 5_000
    assert extract(body, 10)[-1].target == "T9"


# -- a file written while it is read -----------------------------------------------------------


class TornReads:
    """Every read of one file meets a writer: the reader gets the first half of what the
    file held and the rest of the next version, which is what the file holds afterwards."""

    def __init__(self, path: Path, versions: list[bytes]) -> None:
        self.path = path
        self.inode = path.stat().st_ino
        self.versions = versions
        self.torn = 0

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from knowledge_desktop.engine.fs import read as read_module

        real_read = read_module._read_up_to
        reads = self

        def torn_read(fd: int, size: int) -> bytes:
            if not reads.versions or os.fstat(fd).st_ino != reads.inode:
                return real_read(fd, size)
            before = real_read(fd, size)
            after = reads.versions.pop(0)
            with open(reads.path, "r+b") as out:  # same inode, as an editor's save
                out.truncate(0)
                out.write(after)
            reads.torn += 1
            half = len(before) // 2
            return (before[:half] + after[half:])[:size]

        monkeypatch.setattr(read_module, "_read_up_to", torn_read)


def version(title: str, body: str) -> bytes:
    return hc.page("pg_w", title, body).encode()


def test_a_file_rewritten_while_read_is_read_again_not_half_and_half(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading: a save that lands during the read is noticed (its stat moved), so what is
    stored is one whole version of the file, never the first half of one and the end of
    another."""
    path = kit.page("private/notes/w.md", "pg_w", "Before", body="Old body.\n", type="note")
    vault = kit.open()
    after = version("After", "New body, somewhat longer than the old one.\n")
    torn = TornReads(path, [after])
    torn.install(monkeypatch)
    vault.reconcile()
    monkeypatch.undo()
    assert torn.torn == 1
    (row,) = vault.find("private/notes/w.md")
    assert row["title"] == "After"
    assert "New body" in (vault.show("private/notes/w.md")["body"] or "")
    assert found_at(vault, "private/notes/w.md") == []


def test_a_file_that_keeps_changing_is_flagged_and_read_again_next_time(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading: a file rewritten during every attempt gets a warning, and the next
    reconcile reads it again even though nothing else about it changed."""
    path = kit.page("private/notes/w.md", "pg_w", "Start", type="note")
    vault = kit.open()
    versions = [version(f"Version {n}", "x" * (10 * n) + "\n") for n in range(1, 4)]
    torn = TornReads(path, versions)
    torn.install(monkeypatch)
    vault.reconcile()
    monkeypatch.undo()
    assert torn.torn == 3
    (warning,) = [d for d in found_at(vault, "private/notes/w.md") if d.code == "file-changing"]
    assert "read again" in warning.message
    vault.reconcile()
    assert found_at(vault, "private/notes/w.md") == []
    assert vault.find("private/notes/w.md")[0]["title"] == "Version 3"


# -- recovering once the problem is fixed ------------------------------------------------------


def test_an_unreadable_folder_is_named_and_its_files_return_when_it_is_readable(kit: VaultKit) -> None:
    """A folder that cannot be listed is one diagnostic naming it, not files silently
    missing; once readable, its files are read, by a full scan or a watcher event."""
    kit.page("private/notes/good.md", "pg_good", "Good", type="note")
    hc.locked_files(kit.root)
    vault = kit.open()
    with hc.locked(kit.root):
        vault.reconcile()
        (diagnostic,) = found_at(vault, "private/notes/locked-folder")
        assert diagnostic.code == "folder-unreadable"
        vault.reconcile(["private/notes/locked-folder"], "watcher")
        assert [d.code for d in found_at(vault, "private/notes/locked-folder")] == ["folder-unreadable"]
    vault.reconcile(["private/notes/locked-folder"], "watcher")
    assert found_at(vault, "private/notes/locked-folder") == []
    assert vault.find("pg_inner")[0]["path"] == "private/notes/locked-folder/inner.md"
    assert [d.code for d in found_at(vault, "private/notes/locked/secret.md")] == ["file-unreadable"]
    vault.reconcile()  # chmod moves no mtime: an unreadable file is tried again each scan
    assert found_at(vault, "private/notes/locked/secret.md") == []
    assert vault.find("pg_locked")[0]["valid"]


def test_a_symlink_loop_once_fixed_is_read(kit: VaultKit) -> None:
    """A looping link is diagnosed; pointed at a real file, it is read like one."""
    kit.page("private/notes/good.md", "pg_good", "Good", type="note")
    kit.write("private/notes/real.txt", hc.page("pg_real", "Real"))
    link = kit.root / "private/notes/alias.md"
    os.symlink("alias.md", link)
    vault = kit.scan()
    assert [d.code for d in found_at(vault, "private/notes/alias.md")] == ["symlink-broken"]
    link.unlink()
    os.symlink("real.txt", link)
    vault.reconcile(["private/notes/alias.md"], "watcher")
    assert found_at(vault, "private/notes/alias.md") == []
    assert vault.find("pg_real")[0]["path"] == "private/notes/alias.md"


def test_a_watcher_event_for_a_name_that_is_not_utf8_is_diagnosed_not_fatal(kit: VaultKit) -> None:
    """Names: the watcher reports paths as the OS gives them; one with bytes that are
    not UTF-8 is escaped and diagnosed, and removing it removes its row."""
    kit.page("private/notes/good.md", "pg_good", "Good", type="note")
    vault = kit.scan()
    raw = os.fsdecode(b"private/notes/caf\xe9.md")
    (kit.root / raw).write_text(hc.page("pg_cafe", "Cafe"), encoding="utf-8")
    vault.reconcile([raw], "watcher")
    assert [d.code for d in found_at(vault, "private/notes/caf\\xe9.md")] == ["file-name-not-utf8"]
    (kit.root / raw).unlink()
    vault.reconcile([raw], "watcher")
    assert vault.find("private/notes/caf\\xe9.md") == []
    folder = os.fsdecode(b"private/notes/dir-\xff")
    (kit.root / folder).mkdir()
    (kit.root / folder / "inside.md").write_text(hc.page("pg_in", "In"), encoding="utf-8")
    for event in (folder, f"{folder}/inside.md", folder):  # the folder, then a file in it
        vault.reconcile([event], "watcher")
        assert [d.code for d in found_at(vault, "private/notes/dir-\\xff")] == ["file-name-not-utf8"]


def test_a_cycle_made_by_editing_the_other_end_is_reported_on_both(kit: VaultKit) -> None:
    """Supersession: closing a superseded_by loop by editing one record is seen on the
    other too, as a full scan would see it (the chain's ids are watched)."""
    change = {"lifecycle": "superseded", "lifecycle_change": CHANGE}
    kit.write("private/claims/a.md", hc.claim("cl_a", "A", superseded_by="cl_b", **change))
    kit.write("private/claims/b.md", hc.claim("cl_b", "B"))
    vault = kit.scan()
    assert found_at(vault, "private/claims/a.md") == []
    kit.write("private/claims/b.md", hc.claim("cl_b", "B", superseded_by="cl_a", **change))
    vault.reconcile(["private/claims/b.md"], "watcher")
    for path in ("private/claims/a.md", "private/claims/b.md"):
        assert [d.code for d in found_at(vault, path)] == ["supersede-chain-invalid"]


def test_a_mention_on_a_megabyte_line_costs_its_context_not_the_whole_line(kit: VaultKit) -> None:
    """Backlinks: the context of a mention is cut from the stretch around it, so a 7 MiB
    line that names a page half a million times costs neither seconds nor its size many
    times over in memory."""
    kit.page("private/notes/good.md", "pg_good", "Good", type="note")
    vault = kit.scan()

    def mentions(n: int) -> Any:
        kit.write("private/notes/long.md", hc.page("pg_long", "Long", "Good and " * n))
        vault.reconcile(["private/notes/long.md"])
        vault.index_keywords()
        return vault.backlinks("private/notes/good.md")

    assert_near_linear(mentions, 50_000)  # four times the line, about four times the cost
    mentions(800_000)
    tracemalloc.start()
    found = vault.backlinks("private/notes/good.md")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    (mention,) = found["mentions"]
    assert mention["path"] == "private/notes/long.md"
    assert len(mention["context"]) <= 210
    assert peak < 48 * hc.MIB, f"{peak / hc.MIB:.1f} MiB"
