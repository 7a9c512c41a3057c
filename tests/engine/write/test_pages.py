"""Saving a whole page and editing its body: fenced by revision and hash, byte-preserving,
store-owned fields kept (spec: records-and-ontology, Records; corrections-and-merges,
"Pages are not corrected this way")."""

from __future__ import annotations

import hashlib

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import CHANGE, VaultKit, fence_of

ADA = "private/people/ada.md"
ORIGINAL = """---
format: knowledge-record-v1
id: pg_ada
revision: 3   # the app bumps this
kind: page
title: 'Ada Lovelace'
recorded_at: 2026-09-28T18:30:00.000Z
updated_at: "2026-09-28T18:30:00.000Z"
scope: private
lifecycle: active
type: person
aliases:
- Ada
- Countess of Lovelace
tags: [ math,  poetry ]
# keep this comment
x_obsidian: {cssclass: wide}
---
# Ada

She wrote the first program.  Two spaces stay.
"""


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.write(ADA, ORIGINAL)
    kit.page("private/people/grace.md", "pg_grace", "Grace Hopper", type="person")
    kit.page(
        "private/people/old.md", "pg_old", "Old", type="person", lifecycle="merged", merged_into="pg_grace"
    )
    kit.claim("private/claims/c.md", "cl_1", "A claim", entities=["pg_ada"])
    return kit.scan()


def differing(before: str, after: str) -> list[tuple[str, str]]:
    return [(b, a) for b, a in zip(before.splitlines(), after.splitlines(), strict=True) if b != a]


def test_a_save_changes_only_the_edited_key_revision_and_updated_at(vault: Vault, kit: VaultKit) -> None:
    """Saving the file as read with one key edited: byte for byte, only that key's line, the
    revision and updated_at differ — unknown keys, comments, order, quoting, indentation and
    the body are kept (spec: records-and-ontology, Records)."""
    edited = ORIGINAL.replace("- Countess of Lovelace", "- Countess Ada")
    receipt = vault.save_page(fence_of(vault, "pg_ada"), edited, actor="ada")
    saved = (kit.root / ADA).read_text()
    now = vault.show("pg_ada")["frontmatter"]["updated_at"]
    assert differing(ORIGINAL, saved) == [
        ("revision: 3   # the app bumps this", "revision: 4   # the app bumps this"),
        ('updated_at: "2026-09-28T18:30:00.000Z"', f'updated_at: "{now}"'),
        ("- Countess of Lovelace", "- Countess Ada"),
    ]
    assert receipt["items"] == [
        {"id": "pg_ada", "revision": 4, "hash": hashlib.sha256(saved.encode()).hexdigest(), "path": ADA}
    ]
    assert now == receipt["at"]


def test_an_edit_body_keeps_the_frontmatter_but_revision_and_updated_at(vault: Vault, kit: VaultKit) -> None:
    """Only the body is replaced; the frontmatter keeps its bytes apart from the two keys the
    store moves."""
    vault.edit_body(fence_of(vault, "pg_ada"), "# Ada\n\nRewritten.\n")
    saved = (kit.root / ADA).read_text()
    head, body = saved.split("---\n", 2)[1:]
    assert body == "# Ada\n\nRewritten.\n"
    assert [b for b, _ in differing(ORIGINAL.split("---\n")[1], head)] == [
        "revision: 3   # the app bumps this",
        'updated_at: "2026-09-28T18:30:00.000Z"',
    ]


def test_a_stale_fence_writes_nothing_and_says_what_is_current(vault: Vault, kit: VaultKit) -> None:
    """A fence with an old revision or an old hash is refused with the current revision,
    hash and path; the file is untouched (spec: fences)."""
    fence = fence_of(vault, "pg_ada")
    record_id, _revision, sha = fence.split(":")
    with pytest.raises(WriteRejected) as caught:
        vault.edit_body(f"{record_id}:2:{sha}", "x\n")
    assert caught.value.code == "fence-revision"
    assert caught.value.current == {"id": "pg_ada", "revision": 3, "hash": sha, "path": ADA}
    (kit.root / ADA).write_text(ORIGINAL + "An outside edit that kept the revision.\n")
    with pytest.raises(WriteRejected) as caught:
        vault.edit_body(fence, "x\n")
    assert caught.value.code == "fence-hash"
    assert caught.value.current["hash"] == hashlib.sha256((kit.root / ADA).read_bytes()).hexdigest()
    assert (kit.root / ADA).read_text().endswith("kept the revision.\n")
    assert vault.journal()["total"] == 0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("id: pg_ada", "id: pg_other"),
        ("kind: page", "kind: claim"),
        ("recorded_at: 2026-09-28T18:30:00.000Z", "recorded_at: 2020-01-01T00:00:00.000Z"),
        ("lifecycle: active", "lifecycle: withdrawn"),
        ("type: person", "type: person\nmerged_from: [pg_grace]"),
    ],
)
def test_a_save_cannot_change_what_the_store_owns(vault: Vault, old: str, new: str) -> None:
    """Identity, kind, times and lifecycle metadata are not a save's to change (spec:
    records-and-ontology, Lifecycle and merge metadata)."""
    with pytest.raises(WriteRejected) as caught:
        vault.save_page(fence_of(vault, "pg_ada"), ORIGINAL.replace(old, new))
    assert caught.value.code == "store-owned-field"


def test_store_owned_keys_left_out_of_a_save_are_put_back(vault: Vault, kit: VaultKit) -> None:
    """A submitted page without recorded_at or lifecycle keeps the current values."""
    text = ORIGINAL.replace("recorded_at: 2026-09-28T18:30:00.000Z\n", "").replace("lifecycle: active\n", "")
    vault.save_page(fence_of(vault, "pg_ada"), text)
    fm = vault.show("pg_ada")["frontmatter"]
    assert (fm["recorded_at"], fm["lifecycle"], fm["revision"]) == ("2026-09-28T18:30:00.000Z", "active", 4)


def test_claims_are_corrected_not_saved(vault: Vault) -> None:
    """Save and edit-body refuse a claim (spec: corrections-and-merges, Correct a claim)."""
    with pytest.raises(WriteRejected) as caught:
        vault.edit_body(fence_of(vault, "cl_1"), "New text.\n")
    assert caught.value.code == "not-a-page"


def test_a_merged_page_is_refused_with_its_survivor(vault: Vault) -> None:
    """Writing to an absorbed page, or adding a reference to one, is refused with the
    survivor's id; a reference the page already had does not block a body edit (spec:
    corrections-and-merges, Merge duplicate pages)."""
    with pytest.raises(WriteRejected) as caught:
        vault.edit_body(fence_of(vault, "pg_old"), "x\n")
    assert (caught.value.code, caught.value.current["survivorId"]) == ("merged-target", "pg_grace")
    with pytest.raises(WriteRejected) as caught:
        vault.save_page(
            fence_of(vault, "pg_ada"),
            ORIGINAL.replace("type: person", "type: person\ndependencies: [pg_old]"),
        )
    assert (caught.value.code, caught.value.current["survivorId"]) == ("merged-target", "pg_grace")
    vault.save_page(
        fence_of(vault, "pg_ada"), ORIGINAL.replace("type: person", "type: person\ndependencies: [pg_grace]")
    )


def test_a_withdrawn_page_is_not_edited(vault: Vault, kit: VaultKit) -> None:
    """There is no unwithdraw, and no edit of a withdrawn page (spec: Withdraw a record)."""
    kit.page("private/notes/w.md", "pg_w", "W", type="note", lifecycle="withdrawn", lifecycle_change=CHANGE)
    vault.reconcile()
    with pytest.raises(WriteRejected) as caught:
        vault.edit_body(fence_of(vault, "pg_w"), "x\n")
    assert caught.value.code == "not-active"


def test_a_save_that_would_make_the_page_invalid_is_refused(vault: Vault, kit: VaultKit) -> None:
    """Validation is the read side's: a field the ontology rejects stops the save."""
    with pytest.raises(WriteRejected) as caught:
        vault.save_page(fence_of(vault, "pg_ada"), ORIGINAL.replace("type: person", "type: no_such_type"))
    assert caught.value.code == "invalid-record"
    assert (kit.root / ADA).read_text() == ORIGINAL
