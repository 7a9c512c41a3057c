"""SIGKILL `knowledge adopt` (one journaled write of many files) and a document's deletion
through the knowledge API at named points of the publish path, part-way through the files
included: right after the kill every file holds its old bytes or the journal's new ones;
after `resume` (or the next open) the request is published or rolled back, every file is
wholly the one or the other to match, nothing is pending, and the projections equal a fresh
scan of the same Markdown (spec: corrections-and-merges, Recovery and safeguards;
docs/writing.md, "How a write stays whole" and "Adopting notes"). A SIGKILL skips every
`finally` and `except` that an in-process crash (tests/engine/write) still runs."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import journal
from tests import faultkit as fk
from tests.engine.api.docs_kit import grant, install, session
from tests.vaultkit import VaultKit, fresh_snapshot, obsidian_notes, snapshot

NOTES = 24
ADOPT_POINTS = (
    "durable:1",
    "step:journaled",
    "fsync:1",
    "step:replaced:0",
    f"step:replaced:{NOTES // 2}",
    f"step:replaced:{NOTES - 2}",
    "step:reconciled",
    "durable:2",
    "step:published",
)
"""Inside the intent's transaction; after it; the first new bytes in a temp file; after the
first replacement, half-way, and one before the last; after the projections; inside the
publication; after it."""
DELETE_POINTS = (
    "durable:1",
    "step:journaled",
    "step:replaced:0",
    "step:reconciled",
    "durable:2",
    "step:published",
)
"""The same for a plan of one deletion (no temp file: the file is unlinked)."""


def outcome(point: str) -> str:
    """What `resume` (or the next open) makes of a request killed at `point`."""
    return "none" if point == "durable:1" else "published"


@pytest.fixture(scope="module")
def killer() -> Iterator[fk.Launcher]:
    with fk.Launcher(preload=fk.CLI_PRELOAD) as server:
        yield server


def files(root: Path) -> dict[str, bytes]:
    """The vault's files, but the state folder and a replacement's temp file (a kill may
    leave one; the checks after recovery find none)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".knowledge" not in p.parts and not (p.name[0] == "." and p.suffix == ".tmp")
    }


def last_seq(root: Path) -> int:
    db = root / ".knowledge" / "state.sqlite"
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT coalesce(max(seq), 0) FROM journal").fetchone()[0])
    finally:
        conn.close()


def journaled(root: Path, after: int) -> tuple[str, dict[str, tuple[bytes | None, bytes | None]]]:
    """The journal entry the killed process left (the one past seq `after`), read before
    anything opens the vault: its request id and each file's old and new bytes."""
    db = root / ".knowledge" / "state.sqlite"
    if not db.exists():
        return "", {}
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT seq, request_id FROM journal WHERE seq > ?", (after,)).fetchone()
        if row is None:
            return "", {}
        seq, request_id = row
        return request_id, {f.path: (f.old_data, f.new_data) for f in journal.files(conn, seq)}
    finally:
        conn.close()


def check(
    root: Path,
    scratch: Path,
    before: dict[str, bytes],
    after: int,
    resume: bool,
    outside: dict[str, bytes] | None = None,
) -> str:
    """Everything a kill must leave whole (`after`: the last journal seq before the killed
    run); the killed request's final state ("none": never journaled). `outside`: files
    another program writes after the kill, before the recovery (which must keep them)."""
    request_id, written = journaled(root, after)
    now = files(root)
    if not request_id:  # killed before the intent committed: nothing written
        assert now == before
    for path, (old, new) in written.items():  # right after the kill: each file old or new
        assert now.get(path) in (old, new), f"{path} is neither its old bytes nor its new ones"
    assert {p: b for p, b in now.items() if p not in written} == {
        p: b for p, b in before.items() if p not in written
    }
    for path, data in (outside or {}).items():
        (root / path).write_bytes(data)
    if resume and request_id:  # `resume` opens the vault (carrying out what was pending), then answers
        assert main(["resume", str(root), request_id, "--json"]) in (0, 4)
    with Vault.open(root) as vault:
        vault.reconcile()
        listing = vault.journal(limit=1000)["items"]
        assert [i for i in listing if i["state"] not in ("published", "rolled-back")] == []
        state = next((i["state"] for i in listing if i["requestId"] == request_id), "none")
        now = files(root)
        side = 1 if state == "published" else 0  # wholly new, or wholly put back
        for path, pair in written.items():
            assert now.get(path) == (outside or {}).get(path, pair[side]), f"{path} after {state}"
        assert [p for p in root.rglob(".*.tmp") if ".knowledge" not in p.parts] == []
        assert snapshot(vault) == fresh_snapshot(root, scratch)
    return state


def test_a_killed_adopt_leaves_every_note_wholly_plain_or_wholly_adopted(
    tmp_path: Path, killer: fk.Launcher
) -> None:
    """Nine named points (three of them part-way through the 24 files); every other check
    goes through `resume`, the rest through the next open."""
    template = tmp_path / "notes"
    obsidian_notes(template / "private", NOTES)
    before = files(template)
    states: list[str] = []
    for n, point in enumerate(ADOPT_POINTS):
        root = tmp_path / f"vault{n}"
        shutil.copytree(template, root)
        assert fk.run_cli(killer, ["scan", str(root)]).returncode == 0  # its state made: counts from here
        run = fk.run_cli(killer, ["adopt", str(root), "--json"], point=point)
        assert run.killed, (point, run.stderr[-2000:])
        states.append(check(root, tmp_path, before, 0, resume=n % 2 == 0))
    # Before the intent committed: nothing; after: carried out (nothing changed since).
    assert dict(zip(ADOPT_POINTS, states, strict=True)) == {p: outcome(p) for p in ADOPT_POINTS}


def test_a_killed_adopt_with_an_outside_edit_after_it_is_rolled_back_whole(
    tmp_path: Path, killer: fk.Launcher
) -> None:
    """Killed half-way through its files; another program then edits a note the adopt had
    not reached: `resume` puts back every note it had rewritten, keeps the outside edit,
    and the journal says rolled-back."""
    root = tmp_path / "vault"
    obsidian_notes(root / "private", NOTES)
    before = files(root)
    assert fk.run_cli(killer, ["scan", str(root)]).returncode == 0
    run = fk.run_cli(killer, ["adopt", str(root), "--json"], point=f"step:replaced:{NOTES // 2}")
    assert run.killed, run.stderr[-2000:]
    _request, written = journaled(root, 0)
    untouched = sorted(p for p, (old, _new) in written.items() if (root / p).read_bytes() == old)
    assert untouched, "the kill came after every replacement"
    edit = {untouched[-1]: before[untouched[-1]] + b"\nEdited elsewhere meanwhile.\n"}
    assert check(root, tmp_path, before, 0, resume=True, outside=edit) == "rolled-back"
    assert files(root) == {**before, **edit}


@pytest.fixture
def documents(kit: VaultKit) -> tuple[Path, list[str]]:
    """A vault whose extension wrote one document per kill (refs stay the extension's)."""
    kit.page("private/notes/n.md", "pg_n", "A note", body="See [[Doc 1]].\n")
    vault = kit.scan()
    install(vault)
    grant(vault, "collections.read:keep", "collections.write:keep")
    s = session(vault)
    refs = [
        docs.upsert(s, "keep", title=f"Doc {n}", body=f"Document {n}, see [[A note]].\n").ref
        for n in range(len(DELETE_POINTS))
    ]
    kit.close()
    return kit.root, refs


def test_a_killed_document_deletion_leaves_the_file_or_nothing(
    documents: tuple[Path, list[str]], tmp_path: Path, killer: fk.Launcher
) -> None:
    """`documents.delete` killed at six named points: the file is there with its bytes or
    gone, the journal says which, and a fresh scan agrees."""
    root, refs = documents
    states = []
    for n, (point, ref) in enumerate(zip(DELETE_POINTS, refs, strict=True)):
        before, after = files(root), last_seq(root)
        run = killer.run(fk.delete_document(root, "diarist", ref), kill_at=point, env=fk.user_env())
        assert run.killed, (point, run.stderr[-2000:])
        states.append(check(root, tmp_path, before, after, resume=n % 2 == 0))
    assert dict(zip(DELETE_POINTS, states, strict=True)) == {p: outcome(p) for p in DELETE_POINTS}
