"""`knowledge changes VAULT [--run R] [--status S] --json` and `knowledge revert VAULT --run R |
--change REF` (issue 16 §3): the person's view of every actor's changes, conflicts included, and
undoing a run or one change as `user`; exit 2 for a usage error or an unknown change, 4 when a
change could not be undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.vault_api import open_session
from knowledge_desktop.engine.write import journal
from tests.vaultkit import VaultKit

HELPER: dict[str, Any] = {
    "name": "helper",
    "description": "Remembers where you live",
    "knowledge": {
        "permissions": [
            "facts.read:self:location.home.*",
            "facts.write:self:location.home.*",
            "collections.read:keep",
            "collections.write:keep",
            "origin.override",
        ]
    },
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith(("{", "[")) else out), err


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    """Run `run_a` of `helper`: the person's city, a conflicting city, a note in keep; then run
    `run_b`: the note deleted."""
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(HELPER), "private")
    for permission in HELPER["knowledge"]["permissions"]:
        extensions.grant("helper", permission)
    s = open_session(vault, "helper", run_id="run_a")
    facts.put(s, predicate_hint="location.home.city", value="Utrecht", origin="user")
    facts.put(s, predicate_hint="location.home.city", value="Delft")
    note = docs.upsert(s, "keep", title="Note", body="Text.\n")
    docs.delete(open_session(vault, "helper", run_id="run_b"), note.ref)
    kit.close()
    return kit.root


def test_changes_lists_every_change_and_filters(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    code, listed, _ = run(capsys, "changes", str(vault), "--json")
    assert code == 0
    assert [(c["op"], c["status"], c["runId"]) for c in listed] == [
        (docs.DELETE, "applied", "run_b"),
        (docs.CREATE, "applied", "run_a"),
        (facts.CONFLICT, "conflict", "run_a"),
        (facts.PUT, "applied", "run_a"),
    ]
    assert {c["actor"] for c in listed} == {"extension:helper"}
    code, conflicts, _ = run(capsys, "changes", str(vault), "--status", "conflict", "--json")
    assert [c["proposed"]["proposed"]["value"] for c in conflicts] == ["Delft"]
    code, run_b, _ = run(capsys, "changes", str(vault), "--run", "run_b", "--json")
    assert [c["op"] for c in run_b] == [docs.DELETE]
    code, text, _ = run(capsys, "changes", str(vault), "--run", "nothing")
    assert (code, text.strip()) == (0, "no changes")


def test_revert_a_run_then_one_change_as_the_person(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    note = next((vault / "private/keep").glob("*.md"), None)
    assert note is None  # deleted in run_b
    code, done, _ = run(capsys, "revert", str(vault), "--run", "run_b", "--json")
    assert code == 0
    assert done["reverted"] == 1
    assert [i["status"] for i in done["items"]] == ["reverted"]
    assert len(list((vault / "private/keep").glob("*.md"))) == 1
    code, again, _ = run(capsys, "revert", str(vault), "--run", "run_b", "--json")
    assert (code, again["reverted"]) == (0, 0)
    code, listed, _ = run(capsys, "changes", str(vault), "--run", done["runId"], "--json")
    assert [(c["actor"], c["op"]) for c in listed] == [("user", f"{docs.DELETE}-undo")]

    code, listed, _ = run(capsys, "changes", str(vault), "--json")
    put = next(c for c in listed if c["op"] == facts.PUT)
    code, one, _ = run(capsys, "revert", str(vault), "--change", put["ref"], "--json")
    assert code == 0
    assert [(i["op"], i["status"]) for i in one["items"]] == [(facts.PUT, "reverted")]
    code, listed, _ = run(capsys, "changes", str(vault), "--status", "reverted", "--json")
    assert {c["op"] for c in listed} == {facts.PUT, docs.DELETE}


def test_a_change_that_cannot_be_undone_exits_4(
    capsys: pytest.CaptureFixture[str], vault: Path, kit: VaultKit
) -> None:
    code, listed, _ = run(capsys, "changes", str(vault), "--run", "run_b", "--json")
    [deleted] = listed
    vault_ = kit.scan()
    [gone] = journal.files(vault_.store.reader(), int(deleted["ref"]))
    path = gone.path
    kit.close()
    kit.page(path, "pg_other", "Someone else's page at that path")
    code, done, _ = run(capsys, "revert", str(vault), "--change", deleted["ref"], "--json")
    assert code == 4
    assert [i["status"] for i in done["items"]] == ["failed"]
    assert "exists already" in done["items"][0]["note"]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    assert run(capsys, "revert", str(vault))[0] == 2
    assert run(capsys, "revert", str(vault), "--run", "run_a", "--change", "1")[0] == 2
    code, _, err = run(capsys, "revert", str(vault), "--change", "99999")
    assert code == 2
    assert "no change 99999" in err
    code, _, err = run(capsys, "revert", str(vault), "--change", "chg_x")
    assert code == 2
    assert "not a change" in err
    with pytest.raises(SystemExit) as exited:
        main(["changes", str(vault), "--status", "nonsense"])
    assert exited.value.code == 2
