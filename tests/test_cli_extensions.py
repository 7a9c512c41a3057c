"""`knowledge extensions VAULT list|install MANIFEST|grant NAME PERM|revoke NAME PERM|uninstall
NAME [--delete]` (issue 16 §3): install with every permission off, grant and revoke one switch,
uninstall keeping or deleting what the extension wrote, JSON with --json, exit 2 with every
error printed for an invalid manifest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_desktop.cli import main
from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api import facts
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.vault_api import open_session
from tests.vaultkit import VaultKit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "recipe-gem" / "manifest.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith(("{", "[")) else out), err


@pytest.fixture
def vault(kit: VaultKit) -> Path:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    (kit.root / "work").mkdir()
    return kit.root


def test_install_list_grant_revoke(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    code, shown, _ = run(capsys, "extensions", str(vault), "install", str(EXAMPLE), "--json")
    assert code == 0
    assert shown["name"] == "recipes"
    assert shown["partition"] == "private"
    assert {p["permission"]: p["granted"] for p in shown["permissions"]} == {
        "facts.read:self:pref.food.*": False,
        "facts.write:self:pref.food.*": False,
        "collections.create": False,
    }
    assert all(p["sentence"] for p in shown["permissions"])
    assert (vault / "private" / "predicates.yaml").is_file()

    code, granted, _ = run(
        capsys, "extensions", str(vault), "grant", "recipes", "facts.read:self:pref.food.*", "--json"
    )
    assert code == 0
    assert granted == {
        "name": "recipes",
        "permission": "facts.read:self:pref.food.*",
        "granted": True,
        "changed": True,
    }
    code, again, _ = run(
        capsys, "extensions", str(vault), "--json", "grant", "recipes", "facts.read:self:pref.food.*"
    )
    assert code == 0
    assert again["changed"] is False

    code, listed, _ = run(capsys, "extensions", str(vault), "list", "--json")
    assert code == 0
    assert [e["name"] for e in listed] == ["recipes"]
    on = [p["permission"] for p in listed[0]["permissions"] if p["granted"]]
    assert on == ["facts.read:self:pref.food.*"]

    code, revoked, _ = run(
        capsys, "extensions", str(vault), "revoke", "recipes", "facts.read:self:pref.food.*", "--json"
    )
    assert code == 0
    assert revoked["granted"] is False
    assert revoked["changed"] is True
    code, text, _ = run(capsys, "extensions", str(vault), "list")
    assert code == 0
    assert "[off] Read your food preferences  (facts.read:self:pref.food.*)" in text
    assert "why: " in text


def test_human_output(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    code, text, _ = run(capsys, "extensions", str(vault), "list")
    assert code == 0
    assert text.strip() == "no extensions installed"
    code, text, _ = run(capsys, "extensions", str(vault), "install", str(EXAMPLE))
    assert code == 0
    assert text.startswith("installed recipes into private; every permission is off")
    code, text, _ = run(capsys, "extensions", str(vault), "grant", "recipes", "collections.create")
    assert code == 0
    assert text.strip() == "collections.create: on"
    code, text, _ = run(capsys, "extensions", str(vault), "revoke", "recipes", "collections.create")
    assert text.strip() == "collections.create: off"
    code, text, _ = run(capsys, "extensions", str(vault), "revoke", "recipes", "collections.create")
    assert text.strip() == "collections.create: off (it was off already)"


def test_an_invalid_manifest_prints_every_error_and_exits_2(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "manifest.json"
    bad.write_text(
        json.dumps(
            {
                "name": "Bad Name",
                "description": "d" * 201,
                "knowledge": {"permissions": ["facts.write:self:pref.food.*", "facts.read:self:*"]},
            }
        ),
        encoding="utf-8",
    )
    code, shown, err = run(capsys, "extensions", str(vault), "install", str(bad), "--json")
    assert code == 2
    assert shown["error"]["code"] == "invalid-manifest"
    assert len(shown["error"]["errors"]) == 4
    for needle in (
        "name:",
        "description: at most 200",
        "at least two levels",
        "must be covered by a facts.read",
    ):
        assert needle in err
        assert any(needle in e for e in shown["error"]["errors"])
    code, _, err = run(capsys, "extensions", str(vault), "install", str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot be read" in err
    code, listed, _ = run(capsys, "extensions", str(vault), "list", "--json")
    assert listed == []


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    assert run(capsys, "extensions", str(vault), "install", str(EXAMPLE))[0] == 0
    code, _, err = run(capsys, "extensions", str(vault), "grant", "nobody", "collections.create")
    assert code == 2
    assert "no extension named 'nobody'" in err
    code, _, err = run(capsys, "extensions", str(vault), "grant", "recipes", "facts.read:self:*")
    assert code == 2
    assert "at least two levels" in err
    code, _, err = run(capsys, "extensions", str(vault), "grant", "recipes", "changes.manage")
    assert code == 2
    assert "not requested" in err
    code, _, err = run(capsys, "extensions", str(vault), "install", str(EXAMPLE))
    assert code == 2
    assert "already installed" in err
    with pytest.raises(SystemExit) as exited:
        main(["extensions", str(vault), "uninstall"])
    assert exited.value.code == 2
    code, _, err = run(capsys, "extensions", str(vault), "uninstall", "nobody")
    assert code == 2
    assert "no extension named 'nobody'" in err
    with pytest.raises(SystemExit):
        main(["extensions", str(vault)])


def test_partition_choice(capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path) -> None:
    code, shown, _ = run(
        capsys, "extensions", str(vault), "install", str(EXAMPLE), "--partition", "work", "--json"
    )
    assert code == 0
    assert shown["partition"] == "work"
    assert (vault / "work" / "predicates.yaml").is_file()
    assert not (vault / "private" / "predicates.yaml").exists()
    other = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    other["name"] = "elsewhere"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other), encoding="utf-8")
    code, _, err = run(capsys, "extensions", str(vault), "install", str(path), "--partition", "nowhere")
    assert code == 2
    assert "no partition named 'nowhere'" in err


def test_grants_from_the_cli_hold_in_the_engine(capsys: pytest.CaptureFixture[str], kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    assert run(capsys, "extensions", str(kit.root), "install", str(EXAMPLE))[0] == 0
    assert (
        run(capsys, "extensions", str(kit.root), "grant", "recipes", "facts.write:self:pref.food.*")[0] == 0
    )
    vault = kit.open()
    extensions = Extensions(vault.store, vault.root)
    assert extensions.allowed("recipes", "facts.write:self:pref.food.rated")
    assert not extensions.allowed("recipes", "facts.read:self:pref.food.rated")


def test_uninstall_keeps_by_default_and_deletes_with_delete(
    capsys: pytest.CaptureFixture[str], kit: VaultKit
) -> None:
    kit.page("private/people/me.md", "pg_me", "Grace", type="person", aliases=["knowledge:self"])
    for name in ("recipes", "again"):
        manifest = json.loads(EXAMPLE.read_text(encoding="utf-8"))
        manifest["name"] = name
        path = kit.root.parent / f"{name}.json"
        path.write_text(json.dumps(manifest), encoding="utf-8")
        assert run(capsys, "extensions", str(kit.root), "install", str(path))[0] == 0
        for permission in (
            "facts.write:self:pref.food.*",
            "facts.read:self:pref.food.*",
            "collections.create",
        ):
            assert run(capsys, "extensions", str(kit.root), "grant", name, permission)[0] == 0
    vault = kit.scan()
    for name in ("recipes", "again"):
        s = open_session(vault, name)
        facts.put(s, predicate_hint="pref.food.like", value=f"soup of {name}")
        col = cols.create_collection(s, f"Recipes of {name}")
        docs.upsert(s, col.ref, title="Stew", body="Slowly.\n")
    kit.close()

    code, kept, _ = run(capsys, "extensions", str(kit.root), "uninstall", "again", "--json")
    assert code == 0
    assert kept["mode"] == "keep"
    assert kept["contributed"] == {"facts": 1, "documents": 1, "collections": 1}
    assert kept["runId"] is None
    assert (kit.root / "private/collections/recipes-of-again").is_dir()

    code, deleted, _ = run(capsys, "extensions", str(kit.root), "uninstall", "recipes", "--delete", "--json")
    assert code == 0
    assert deleted["mode"] == "delete"
    assert deleted["contributed"] == {"facts": 1, "documents": 1, "collections": 1}
    assert deleted["changes"] == 2  # the fact's expiry and the collection with its document
    assert not (kit.root / "private/collections/recipes-of-recipes").exists()
    code, listed, _ = run(capsys, "extensions", str(kit.root), "list", "--json")
    assert listed == []
    code, text, _ = run(capsys, "revert", str(kit.root), "--run", deleted["runId"])
    assert code == 0
    assert "2 change(s) reverted" in text
    assert (kit.root / "private/collections/recipes-of-recipes/stew.md").is_file()
