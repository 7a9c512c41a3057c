"""Creating pages, claims and relationships (`knowledge new`): assigned ids, times and file
names, validation as the read side judges, the ontology fence, merged targets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import VaultKit

STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
PAGE = """---
kind: page
title: Ada Lovelace
scope: private
type: person
# a comment the author wrote
x_custom: [keep,  as is]
---
Ada wrote the first program.
"""
CLAIM = """---
kind: claim
title: Ada likes tea
claim_kind: preference
assertion_origin: source
attribution: Ada in the stand-up
entities: [{entity}]
evidence:
  - url: https://example.org/notes
---
Ada likes tea.
"""


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person")
    kit.page(
        "private/people/old.md",
        "pg_old",
        "Old Ada",
        type="person",
        lifecycle="merged",
        merged_into="pg_grace",
    )
    return kit.scan()


def fingerprint(vault: Vault) -> str:
    return str(vault.ontology("private")[0]["fingerprint"])


def test_a_new_page_gets_an_id_a_revision_times_and_a_title_based_file(vault: Vault, kit: VaultKit) -> None:
    """The store assigns the id (kind prefix, time-sortable part), revision 1, active, UTC
    millisecond times; the file is named after the title in the type's directory, and the
    submitted keys, comments and body are written as submitted (spec: records-and-ontology,
    Filenames and links; ARCHITECTURE.md, ids and timestamps)."""
    receipt = vault.new_record(PAGE, actor="ada")
    record_id = receipt["targetId"]
    assert re.fullmatch(r"pg_[0-9A-HJKMNP-TV-Z]{20}", record_id)
    assert receipt["items"][0]["path"] == "private/people/ada-lovelace.md"
    text = (kit.root / "private/people/ada-lovelace.md").read_text()
    view = vault.show(record_id)
    fm = view["frontmatter"]
    assert (fm["revision"], fm["lifecycle"], fm["format"]) == (1, "active", "knowledge-record-v1")
    assert STAMP.match(fm["recorded_at"])
    assert fm["updated_at"] == fm["recorded_at"]
    added = {"format", "id", "revision", "lifecycle", "recorded_at", "updated_at"}
    kept = "".join(line for line in text.splitlines(True) if line.split(":")[0] not in added)
    assert kept == PAGE
    assert view["valid"]
    assert view["writtenByAgentId"] == "ada"


def test_ids_sort_by_creation_time() -> None:
    """The time part comes first, so later ids sort after earlier ones."""
    ids = [new_id("claim", ms) for ms in (1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == 3
    assert all(i.startswith("cl_") for i in ids)


def test_a_taken_name_gets_a_short_id_suffix(vault: Vault, kit: VaultKit) -> None:
    """Two pages with one title: the second file gets a short id suffix; a name taken in
    another letter case counts as taken (spec: Filenames and links)."""
    kit.write("private/people/Ada-Lovelace.md", "not a record, but the name is taken\n")
    receipt = vault.new_record(PAGE)
    short = receipt["targetId"].rsplit("_", 1)[1][-6:].lower()
    assert receipt["items"][0]["path"] == f"private/people/ada-lovelace-{short}.md"


@pytest.mark.parametrize(
    "field", ["id", "revision", "lifecycle", "recorded_at", "updated_at", "superseded_by"]
)
def test_fields_the_store_assigns_are_refused(vault: Vault, field: str) -> None:
    """A new record may not bring its own id, revision, lifecycle, times or lifecycle metadata
    (spec: records-and-ontology, Lifecycle and merge metadata)."""
    text = PAGE.replace("kind: page", f"kind: page\n{field}: x")
    with pytest.raises(WriteRejected) as caught:
        vault.new_record(text)
    assert caught.value.code == "assigned-field"
    assert vault.journal()["total"] == 0


def test_a_claim_is_fenced_by_the_ontology_fingerprint(vault: Vault, kit: VaultKit) -> None:
    """An assertion write names the ontology it was written against; a changed ontology is
    refused with the current fingerprint (spec: records-and-ontology, Fingerprints)."""
    text = CLAIM.format(entity="pg_grace")
    with pytest.raises(WriteRejected) as caught:
        vault.new_record(text, expected_ontology_fingerprint="0" * 64)
    assert caught.value.code == "fence-ontology"
    assert caught.value.current == {"scope": "private", "fingerprint": fingerprint(vault)}
    receipt = vault.new_record(text, expected_ontology_fingerprint=fingerprint(vault))
    assert receipt["items"][0]["path"] == "private/claims/ada-likes-tea.md"
    assert receipt["targetId"].startswith("cl_")


def test_an_invalid_record_is_refused_with_the_read_sides_diagnostics(vault: Vault, kit: VaultKit) -> None:
    """The planned bytes are judged as a scan would judge them; errors list their lines."""
    no_evidence = CLAIM.format(entity="pg_grace").replace(
        "evidence:\n  - url: https://example.org/notes\n", ""
    )
    with pytest.raises(WriteRejected) as caught:
        vault.new_record(no_evidence)
    assert caught.value.code == "invalid-record"
    assert "evidence is required" in caught.value.message
    assert [d["code"] for d in caught.value.current["diagnostics"]] == ["claim-invalid"]
    relationship = (
        "---\nkind: relationship\ntitle: Grace admires Grace\nfrom: pg_grace\nto: pg_grace\n"
        "label: admires_deeply\nattribution: x\nevidence:\n  - url: https://example.org\n---\n"
    )
    with pytest.raises(WriteRejected) as caught:
        vault.new_record(relationship)
    assert [d["code"] for d in caught.value.current["diagnostics"]] == ["unknown-relationship-label"]
    assert not (kit.root / "private" / "claims").exists()
    assert vault.journal()["total"] == 0


def test_a_new_record_naming_a_merged_page_is_refused_with_the_survivor(vault: Vault) -> None:
    """References to an absorbed page are refused, and the error gives the survivor's id
    (spec: corrections-and-merges, Merge duplicate pages)."""
    with pytest.raises(WriteRejected) as caught:
        vault.new_record(CLAIM.format(entity="pg_old"))
    assert caught.value.code == "merged-target"
    assert caught.value.current["survivorId"] == "pg_grace"
    assert "pg_grace" in caught.value.message


def test_scope_and_type_are_required_where_they_cannot_be_inferred(vault: Vault, kit: VaultKit) -> None:
    """With several partitions the scope must be given; a new page needs a type for its folder."""
    kit.page("shared/people/x.md", "pg_x", "X", type="person")
    vault.reconcile()
    cases = {
        PAGE.replace("scope: private\n", ""): "scope-required",
        PAGE.replace("scope: private", "scope: nowhere"): "unknown-scope",
        PAGE.replace("type: person\n", ""): "type-required",
        PAGE.replace("kind: page", "kind: note"): "invalid-record",
    }
    for text, code in cases.items():
        with pytest.raises(WriteRejected) as caught:
            vault.new_record(text)
        assert caught.value.code == code


def test_a_record_file_without_frontmatter_is_refused(vault: Vault, tmp_path: Path) -> None:
    """A clear refusal, not a crash, for text that is no record file."""
    for text in ("just text\n", "---\ntitle: [unclosed\n---\n", "---\n- a list\n---\n"):
        with pytest.raises(WriteRejected) as caught:
            vault.new_record(text)
        assert caught.value.code == "invalid-record"
