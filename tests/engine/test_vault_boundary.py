"""Nothing leaves the vault: links, evidence, manifests, symbolic links and YAML tags that
try to reach or run something outside resolve to nothing and are diagnosed (issue 13 §2).

One hostile vault (`tests/vaultkit.hostile_vault`) sits beside a folder `outside/` holding
a secret text, a record, an ontology manifest and a picture. Every check also records the
files Python opened, and none may lie outside the vault.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import (
    EVIDENCE_CLAIM,
    HOSTILE_NOTE,
    LINKS_NOTE,
    YAML_NOTES,
    Hostile,
    VaultKit,
    hostile_vault,
    opened_files,
    opened_under,
)


@pytest.fixture
def hostile(kit: VaultKit, tmp_path: Path) -> Hostile:
    return hostile_vault(kit, tmp_path / "outside")


def messages(vault: Vault, path: str, code: str) -> list[str]:
    return [d.message for d in vault.diagnostics() if d.path == path and d.code == code]


def test_links_that_climb_out_resolve_to_nothing_and_are_diagnosed(kit: VaultKit, hostile: Hostile) -> None:
    """Links: `..` in a wikilink or a relative Markdown link (also percent-encoded) never
    resolves, even to a valid record outside; each is diagnosed as leaving the partition.
    A root-absolute link stays inside the partition; non-`.md` and scheme links are no
    links (spec: records-and-ontology, Filenames and links)."""
    with opened_files() as opened:
        vault = kit.scan()
        refs = vault.show(LINKS_NOTE)["references"]
    found = {(r["kind"], r["target"], r.get("label")): (r["status"], r["id"]) for r in refs}
    assert found == {
        ("wiki", "../../outside/secret", None): ("outside", None),
        ("wiki", "../outside/secret", None): ("outside", None),
        ("wiki", "/etc/passwd", None): ("missing", None),  # = private/etc/passwd.md
        ("wiki", "people/ada", None): ("resolved", "pg_ada"),
        ("markdown", "../../../outside/secret.md", "up"): ("outside", None),
        ("markdown", "../../../outside/secret.md", "encoded"): ("outside", None),
    }
    assert len(messages(vault, LINKS_NOTE, "link-outside-partition")) == 4
    assert all("pg_outside" not in (r["id"] or "") for r in refs)
    assert opened_under(opened, hostile.outside) == []


def test_evidence_paths_out_of_the_vault_are_unverified_and_never_read(
    kit: VaultKit, hostile: Hostile
) -> None:
    """Evidence: a `..` path, an absolute path, a path through a linked folder, a linked
    file and a linked record all stay unverified with a reason, although each cites the
    outside file's true sha256 (reading it would have verified it); nothing outside is
    opened (ARCHITECTURE.md, Evidence: a path may not leave the partition)."""
    with opened_files() as opened:
        vault = kit.scan()
        checked = vault.record_context(EVIDENCE_CLAIM)["evidence"]
    assert [c["status"] for c in checked] == ["unverified"] * 5
    reasons = [c["reason"] for c in checked]
    assert "leaves the partition" in reasons[0]
    assert "does not exist in the partition" in reasons[1]
    assert "not the computer's root" in reasons[1]
    for reason in reasons[2:]:
        assert "leads outside the vault" in reason
    assert len(messages(vault, EVIDENCE_CLAIM, "evidence-unverified")) == 5
    assert opened_under(opened, hostile.outside) == []


def test_a_listed_link_to_outside_is_never_read_for_its_body(kit: VaultKit, hostile: Hostile) -> None:
    """Bad input: a `.md` link to a file outside is listed and diagnosed, and `show` has
    no body for it rather than the outside file's text."""
    with opened_files() as opened:
        vault = kit.scan()
        shown = vault.show("private/notes/out.md")
    assert shown["body"] is None
    assert "TOP SECRET" not in json.dumps(shown)
    assert [d["code"] for d in shown["diagnostics"]] == ["symlink-outside-vault"]
    assert opened_under(opened, hostile.outside) == []


def test_show_refuses_a_link_to_a_device_without_reading_it(kit: VaultKit) -> None:
    """Bad input: a record-looking link to `/dev/zero` (endless bytes) is never read by
    `show`; reading it would fill the memory."""
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    os.symlink("/dev/zero", kit.root / "private/notes/zero.md")
    shown = kit.scan().show("private/notes/zero.md")
    assert shown["body"] is None
    assert [d["code"] for d in shown["diagnostics"]] == ["symlink-outside-vault"]


def test_manifests_outside_the_vault_are_never_activated(kit: VaultKit, hostile: Hostile) -> None:
    """Ontology: `extends` names a manifest, never a path, and a linked `ontologies/`
    folder pointing outside lends no manifest: both partitions fail activation with a
    diagnostic, and the outside manifest is never opened (spec: records-and-ontology,
    Ontology: no path, URL or network imports)."""
    with opened_files() as opened:
        vault = kit.scan()
        views = {v["scope"]: v for v in vault.ontology()}
    assert not views["lab"]["active"]
    assert "borrowed-lib" in views["lab"]["issues"][0]["message"]
    assert not views["team"]["active"]
    assert "extends" in views["team"]["issues"][0]["message"]
    codes = {(d.path, d.code) for d in vault.diagnostics()}
    assert ("lab/ontology.yaml", "ontology-activation-failed") in codes
    assert ("lab/ontologies", "symlink-outside-vault") in codes
    assert ("team/ontology.yaml", "ontology-activation-failed") in codes
    assert views["private"]["active"]
    assert opened_under(opened, hostile.outside) == []


def test_yaml_language_tags_construct_nothing(kit: VaultKit, hostile: Hostile) -> None:
    """Hostile YAML: `!!python/object/apply`, `!!python/name` and custom tags are refused
    as a YAML error on their line; the command one of them names never runs."""
    vault = kit.scan()
    for path in YAML_NOTES:
        found = [
            (d.code, d.line, d.message)
            for d in vault.diagnostics()
            if d.path == path and d.code != "plain-note"  # a note's broken YAML (issue 25 §4)
        ]
        assert len(found) == 1, found
        code, line, message = found[0]
        assert code == "yaml-syntax"
        assert line is not None
        assert "is not allowed" in message
    assert not hostile.marker.exists()


def test_an_ontology_manifest_with_a_language_tag_fails_activation(kit: VaultKit, tmp_path: Path) -> None:
    """Hostile YAML in a manifest: refused, the partition's ontology is not activated, and
    nothing is constructed."""
    marker = tmp_path / "manifest-ran-code"
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    kit.write(
        "private/ontology.yaml",
        "format: knowledge-ontology-v1\nname: x\nversion: 1.0.0\n"
        f"extends: !!python/object/apply:os.system ['touch {marker}']\n",
    )
    vault = kit.scan()
    assert [v["active"] for v in vault.ontology()] == [False]
    assert "ontology-activation-failed" in {d.code for d in vault.diagnostics()}
    assert not marker.exists()


def test_a_state_folder_linked_out_of_the_vault_is_not_written(
    kit: VaultKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """State: a `.knowledge` that links out of the vault (a hostile clone can carry one)
    is not followed: the index goes to the cache folder, nothing is written where it
    points (not even over its `manifest.json`), and a warning says so."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "manifest.json").write_text('{"someone": "else"}\n', encoding="utf-8")
    kit.page("private/notes/a.md", "pg_a", "A", type="note")
    os.symlink(elsewhere, kit.root / ".knowledge")
    vault = kit.scan()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["manifest.json"]
    assert (elsewhere / "manifest.json").read_text(encoding="utf-8") == '{"someone": "else"}\n'
    assert vault.state_dir.is_relative_to(tmp_path / "cache")
    assert not vault.read_only
    found = [d for d in vault.diagnostics() if d.code == "state-outside-vault"]
    assert len(found) == 1
    assert str(vault.state_dir) in found[0].message


def test_markup_in_names_and_bodies_is_kept_as_text(kit: VaultKit, hostile: Hostile) -> None:
    """The engine stores a hostile file name, title and alias as the text they are (the
    layers that show them escape them); the file is a valid record like any other."""
    vault = kit.scan()
    shown = vault.show(HOSTILE_NOTE)
    assert shown["valid"]
    assert shown["title"].startswith("<script>")
    assert shown["path"] == HOSTILE_NOTE
