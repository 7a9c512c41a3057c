"""`knowledge self VAULT [--set ID | --create NAME] [--partition P] [--json]` (issue 24 item 8):
a fresh vault says no page is you and how to choose one; --set and --create mark a person page
with `knowledge:self` through one journaled write, moving the alias off the page that had it;
a page that is no person page is refused (exit 4), an unknown id is a usage error (exit 2),
and choosing the page that already is you writes nothing. An extension's error about a
missing self page names the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.errors import ApiError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import open_session
from tests.engine.api.test_grants import RECIPES
from tests.vaultkit import VaultKit

SELF = "knowledge:self"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith("{") else out), err


def aliases(path: Path) -> list[str]:
    with Vault.open(path.parents[2]) as vault:
        vault.reconcile()
        row = vault.store.reader().execute(
            "SELECT aliases FROM catalog WHERE path=?", (path.relative_to(path.parents[2]).as_posix(),)
        )
        return list(json.loads(row.fetchone()[0] or "[]"))


def journal(capsys: pytest.CaptureFixture[str], root: Path) -> list[str]:
    code, shown, _ = run(capsys, "journal", str(root), "--json")
    assert code == 0
    return [i["operation"] for i in shown["items"]]


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["Ada"])
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company")
    return kit.root


def test_a_fresh_vault_has_no_self_and_says_how_to_choose_one(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    code, shown, _ = run(capsys, "self", str(vault), "--json")
    assert (code, shown) == (0, {"self": None, "partition": "private"})
    code, text, _ = run(capsys, "self", str(vault))
    assert code == 0
    assert "no page in partition 'private' is marked as you" in text
    assert f"knowledge self {vault} --set ID" in text
    assert f"knowledge self {vault} --create NAME" in text


def test_set_marks_a_person_page_and_a_second_set_writes_nothing(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    code, shown, _ = run(capsys, "self", str(vault), "--set", "pg_ada", "--json")
    assert code == 0
    assert shown["self"] == {
        "id": "pg_ada",
        "title": "Ada Lovelace",
        "path": "private/people/ada.md",
        "partition": "private",
    }
    assert (shown["changed"], shown["movedFrom"]) == (True, [])
    assert shown["receipt"]["operation"] == "self-set"
    assert aliases(vault / "private/people/ada.md") == ["Ada", SELF]  # the other alias kept
    text = (vault / "private/people/ada.md").read_text(encoding="utf-8")
    assert "revision: 2" in text

    code, again, _ = run(capsys, "self", str(vault), "--set", "pg_ada", "--json")
    assert code == 0
    assert (again["changed"], again["receipt"]) == (False, None)
    assert (vault / "private/people/ada.md").read_text(encoding="utf-8") == text
    assert journal(capsys, vault) == ["self-set"]  # one write, not two

    code, now, _ = run(capsys, "self", str(vault), "--json")
    assert (code, now["self"]["id"]) == (0, "pg_ada")


def test_set_moves_the_alias_from_the_old_page_in_one_journaled_write(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    assert run(capsys, "self", str(vault), "--set", "pg_ada")[0] == 0
    code, shown, _ = run(capsys, "self", str(vault), "--set", "pg_grace", "--json")
    assert code == 0
    assert (shown["self"]["id"], shown["movedFrom"]) == ("pg_grace", ["pg_ada"])
    assert sorted(i["id"] for i in shown["receipt"]["items"]) == ["pg_ada", "pg_grace"]
    assert aliases(vault / "private/people/ada.md") == ["Ada"]
    assert aliases(vault / "private/people/grace.md") == [SELF]
    assert journal(capsys, vault) == ["self-set", "self-set"]
    code, text, _ = run(capsys, "self", str(vault))
    assert code == 0
    assert text.startswith("Grace Hopper  pg_grace  private/people/grace.md")


def test_create_files_a_new_person_page_and_moves_the_alias(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    assert run(capsys, "self", str(vault), "--set", "pg_grace")[0] == 0
    code, shown, _ = run(capsys, "self", str(vault), "--create", "Katherine Johnson", "--json")
    assert code == 0
    created = shown["self"]
    assert created["title"] == "Katherine Johnson"
    assert created["path"] == "private/people/katherine-johnson.md"
    assert created["id"].startswith("pg_")
    assert shown["movedFrom"] == ["pg_grace"]
    assert aliases(vault / created["path"]) == [SELF]
    assert aliases(vault / "private/people/grace.md") == []
    assert "aliases" not in (vault / "private/people/grace.md").read_text(encoding="utf-8")
    assert journal(capsys, vault)[0] == "self-create"
    code, now, _ = run(capsys, "self", str(vault), "--json")
    assert now["self"] == created


def test_a_page_that_is_no_person_is_refused_and_an_unknown_id_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    before = (vault / "private/companies/acme.md").read_bytes()
    code, shown, _ = run(capsys, "self", str(vault), "--set", "pg_acme", "--json")
    assert code == 4
    assert shown["error"]["code"] == "not-a-person"
    assert (vault / "private/companies/acme.md").read_bytes() == before
    code, _, err = run(capsys, "self", str(vault), "--set", "pg_nobody")
    assert code == 2
    assert err == "knowledge: no record 'pg_nobody' in this vault\n"
    with pytest.raises(SystemExit) as usage:
        main(["self", str(vault), "--set", "pg_ada", "--create", "Ada"])
    assert usage.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert journal(capsys, vault) == []


def test_an_extension_without_a_self_page_is_told_the_command(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(validate_manifest(RECIPES), "private")
    extensions.grant("recipes", "facts.read:self:pref.food.*")
    with pytest.raises(ApiError) as refused:
        facts.lookup(open_session(vault, "recipes"), "self", "pref.food")
    message = str(refused.value)
    assert f"run `knowledge self {kit.root} --create NAME`" in message
    assert "Settings › Knowledge › You" in message


def test_two_pages_marked_as_you_are_reported_and_set_keeps_one(
    capsys: pytest.CaptureFixture[str], kit: VaultKit
) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=[SELF])
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person", aliases=[SELF])
    code, _, err = run(capsys, "self", str(kit.root))
    assert code == 2
    assert "several pages marked as you: pg_ada (Ada Lovelace), pg_grace (Grace Hopper)" in err
    assert "--set ID" in err
    code, shown, _ = run(capsys, "self", str(kit.root), "--set", "pg_grace", "--json")
    assert (code, shown["changed"], shown["movedFrom"]) == (0, True, ["pg_ada"])
    assert [i["id"] for i in shown["receipt"]["items"]] == ["pg_ada"]  # grace had it already
    assert aliases(kit.root / "private/people/ada.md") == []


def test_create_names_an_existing_partition_and_any_title(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    """`--partition` must name a partition folder the vault has (found by argument fuzzing:
    a new folder was made, and its odd name broke the write); a title with a character
    outside the Basic Multilingual Plane that Python calls unprintable is written escaped."""
    for partition in ("nowhere", "\U00018cd6", ".knowledge", "a/b"):
        code, _, err = run(capsys, "self", str(vault), "--create", "Me", "--partition", partition)
        assert code == 2, (partition, err)
        assert "no partition named" in err
        assert not (vault / partition).exists() or partition == ".knowledge"
    assert journal(capsys, vault) == []
    title = "Me \U00018cd6"
    code, shown, err = run(capsys, "self", str(vault), "--create", title, "--json")
    assert code == 0, err
    assert shown["self"]["title"] == title
