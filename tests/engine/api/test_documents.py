"""Documents: pages in collections written idempotently by key, through the publish path, in
the session's run, within the limits and quotas, each write undoable (docs/decisions.md, "The
knowledge API mapped onto the vault"; spec: facts-entities-collections-api, Search and
documents, Write rules)."""

from __future__ import annotations

import shutil

import pytest

from knowledge_desktop.engine.api import collections as cols
from knowledge_desktop.engine.api import documents as docs
from knowledge_desktop.engine.api.changes import revert
from knowledge_desktop.engine.api.quotas import DAILY_WRITES
from knowledge_desktop.engine.errors import ApiError, PermissionRefused, QuotaExceeded, WriteTooLarge
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_api import person_changes
from tests.engine.api.docs_kit import grant, install, revoke, session
from tests.vaultkit import VaultKit

DAY = "2026-09-29"


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/notes/n.md", "pg_n", "A note")
    vault = kit.scan()
    install(vault)
    grant(vault, "collections.read:diary", "collections.write:diary")
    return vault


def ops(vault: Vault) -> list[str]:
    return [i["operation"] for i in vault.journal()["items"]]


def test_upsert_by_key_creates_updates_and_leaves_unchanged(vault: Vault) -> None:
    s = session(vault, run_id="run_diary")
    first = docs.upsert(s, "diary", key=DAY, title=DAY, body="# Today\n\nSoup.\n", meta={"mood": 3})
    assert first.status == "created"
    text = (vault.root / f"private/diary/{DAY}.md").read_text()
    assert "type: diary" in text
    assert "document_key:" in text
    again = docs.upsert(s, "diary", key=DAY, title=DAY, body="# Today\n\nSoup.\n", meta={"mood": 3})
    assert again.as_json() == {"status": "unchanged", "ref": first.ref}
    assert ops(vault) == [docs.CREATE]  # unchanged wrote nothing
    changed = docs.upsert(s, "diary", key=DAY, title=DAY, body="# Today\n\nStew.\n", meta={"mood": 3})
    assert (changed.status, changed.ref) == ("updated", first.ref)
    got = docs.get_by_key(s, "diary", DAY)
    assert got is not None
    assert (got.body, got.meta, got.key) == ("# Today\n\nStew.\n", {"mood": 3, "date": DAY}, DAY)
    items = vault.journal()["items"]
    assert {(i["actor"], i["runId"]) for i in items} == {("extension:diarist", "run_diary")}
    listed = docs.list_documents(s, "diary")
    assert [d.ref for d in listed] == [first.ref]
    assert listed[0].as_json()["updatedAt"]


def test_a_range_reads_a_part_of_the_body_by_chunk(vault: Vault) -> None:
    """`documents.get(ref, range)`: the body's blocks between blank lines, `from` counted from 0
    and `to` left out, with how many chunks the whole body has; no range, the whole body."""
    s = session(vault)
    body = "# Today\n\nSoup.\n\n\n- bread\n- salt\n\nStew later.\n"
    made = docs.upsert(s, "diary", key=DAY, title=DAY, body=body)
    part = docs.get(s, made.ref, (1, 3))
    assert part.body == "Soup.\n\n- bread\n- salt\n"
    assert part.as_json()["range"] == {"from": 1, "to": 3}
    assert part.as_json()["chunks"] == 4
    assert docs.get(s, made.ref, (3, 9)).body == "Stew later.\n"
    assert docs.get(s, made.ref, (5, 9)).body == ""
    whole = docs.get(s, made.ref)
    assert whole.body == body
    assert "chunks" not in whole.as_json()
    with pytest.raises(ApiError, match="range"):
        docs.get(s, made.ref, (2, 1))


def test_a_diary_entry_is_keyed_by_its_date(vault: Vault) -> None:
    with pytest.raises(ApiError, match="YYYY-MM-DD"):
        docs.upsert(session(vault), "diary", key="tuesday", title="Tuesday", body="")
    made = docs.upsert(session(vault), "diary", title="Monday", body="x\n", meta={"date": "2026-09-28"})
    assert (vault.root / "private/diary/2026-09-28.md").exists()
    assert docs.get(session(vault), made.ref).key == "2026-09-28"


def test_a_keyed_document_is_found_after_a_person_moves_it(vault: Vault, kit: VaultKit) -> None:
    grant(vault, "collections.read:keep", "collections.write:keep", "collections.create")
    s = session(vault)
    recipes = cols.create_collection(s, "Recipes", "keep")
    made = docs.upsert(s, recipes.ref, key="soup", title="Soup", body="Boil.\n")
    (path,) = (vault.root / "private/keep/recipes").glob("*.md")
    shutil.move(str(path), str(vault.root / "private/keep/soup-moved.md"))
    vault.reconcile()
    found = docs.get_by_key(s, recipes.ref, "soup")
    assert found is not None
    assert found.ref == made.ref
    again = docs.upsert(s, recipes.ref, key="soup", title="Soup", body="Boil longer.\n")
    assert again.status == "updated"
    assert (vault.root / "private/keep/soup-moved.md").read_text().endswith("Boil longer.\n")
    assert docs.list_documents(s, recipes.ref) == []  # not directly in it any more


def test_reading_and_writing_follow_the_grants(vault: Vault) -> None:
    made = docs.upsert(session(vault), "diary", key=DAY, title=DAY, body="x\n")
    revoke(vault, "collections.read:diary")
    # checked before the ref is looked up: no read grant at all, so no collection is named
    with pytest.raises(
        PermissionRefused, match=r"lacks knowledge permission collections\.read:user-selected"
    ):
        docs.get(session(vault), made.ref)
    with pytest.raises(PermissionRefused, match=r"collections\.read:diary"):
        docs.list_documents(session(vault), "diary")
    revoke(vault, "collections.write:diary")
    with pytest.raises(PermissionRefused, match=r"collections\.write:diary"):
        docs.upsert(session(vault), "diary", key="2026-09-30", title="x", body="y")


def test_someone_elses_document_needs_changes_manage(vault: Vault, kit: VaultKit) -> None:
    kit.page(f"private/diary/{DAY}.md", "pg_mine", DAY, type="diary", body="Written by me.\n")
    vault.reconcile()
    with pytest.raises(PermissionRefused, match=r"changes\.manage"):
        docs.upsert(session(vault), "diary", key=DAY, title=DAY, body="Overwritten.\n")
    grant(vault, "changes.manage")
    assert docs.upsert(session(vault), "diary", key=DAY, title=DAY, body="Added.\n").status == "updated"


def test_limits_and_quotas(vault: Vault) -> None:
    with pytest.raises(WriteTooLarge, match="title"):
        docs.upsert(session(vault), "diary", key=DAY, title="t" * 1001, body="")
    with pytest.raises(WriteTooLarge, match="meta"):
        docs.upsert(session(vault), "diary", key=DAY, title=DAY, body="", meta={"x": "m" * 70_000})
    with vault.store.write() as w:
        w.execute(
            "INSERT INTO extension_quota_v1(name, day, writes, chars) VALUES ('diarist', ?, ?, 0)",
            (session(vault).quotas.usage("diarist").day, DAILY_WRITES),
        )
    with pytest.raises(QuotaExceeded, match="quota"):
        docs.upsert(session(vault), "diary", key=DAY, title=DAY, body="x\n")
    assert not (vault.root / f"private/diary/{DAY}.md").exists()


def test_each_write_has_an_undo(vault: Vault) -> None:
    s = session(vault)
    made = docs.upsert(s, "diary", key=DAY, title=DAY, body="One.\n")
    path = vault.root / f"private/diary/{DAY}.md"
    first = path.read_bytes()
    docs.upsert(s, "diary", key=DAY, title=DAY, body="Two.\n")
    second = path.read_bytes()
    docs.delete(s, made.ref)
    assert not path.exists()
    seqs = {i["operation"]: str(i["journalId"]) for i in vault.journal()["items"]}
    person = person_changes(vault)

    def undo(seq: str) -> str:
        [item] = revert(person, change_ref=seq).items
        return item.status

    assert undo(seqs[docs.DELETE]) == "reverted"
    assert path.read_bytes() == second
    assert undo(seqs[docs.UPDATE]) == "reverted"
    assert path.read_bytes() == first
    assert undo(seqs[docs.CREATE]) == "reverted"  # as created again
    assert not path.exists()
    assert docs.get_by_key(s, "diary", DAY) is None
    assert undo(seqs[docs.CREATE]) == "skipped"  # never twice
    docs.upsert(s, "diary", key="2026-09-30", title="x", body="y\n")
    created = str(vault.journal(limit=1)["items"][0]["journalId"])
    docs.upsert(s, "diary", key="2026-09-30", title="x", body="changed\n")
    assert undo(created) == "skipped"  # changed since: kept
    assert (vault.root / "private/diary/2026-09-30.md").exists()


def test_a_title_is_one_line(vault: Vault) -> None:
    """A title with a line break is refused (issue 32 §2: titles stay single-line)."""
    with pytest.raises(ApiError, match="the title is one line of text"):
        docs.upsert(session(vault), "diary", key=DAY, title="Day\n---\n# heading", body="x\n")
