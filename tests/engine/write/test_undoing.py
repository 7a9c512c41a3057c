"""Which writes have an undo, the undo of each from its receipt, and a correction's chosen id
(issue 29, §3 and §4; spec: corrections-and-merges — Withdraw, Supersede and its undo,
Merge and unmerge)."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import lifecycle, undoing
from knowledge_desktop.engine.write.naming import new_id
from knowledge_desktop.engine.write.plan import WriteRejected
from tests.vaultkit import VaultKit, fence_of, frontmatter, frontmatter_of

TEA, COFFEE = "private/claims/tea.md", "private/claims/coffee.md"
DRAFT = frontmatter(
    {
        "kind": "claim",
        "title": "Ada likes green tea",
        "claim_kind": "fact",
        "assertion_origin": "source",
        "attribution": "Ada",
        "entities": ["pg_ada"],
        "evidence": [{"url": "https://example.org/tea"}],
    }
)


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/people/lovelace.md", "pg_lovelace", "A. Lovelace", type="person")
    kit.claim(TEA, "cl_tea", "Ada likes tea", entities=["pg_ada"])
    kit.claim(COFFEE, "cl_coffee", "Ada likes coffee", entities=["pg_ada"])
    return kit.scan()


def fences(vault: Vault) -> Any:
    return lambda record_id: fence_of(vault, record_id)


def test_withdrawal_and_correction_have_no_undo_supersede_merge_adopt_have_one() -> None:
    """The spec gives no unwithdraw and refuses to undo a correction as a supersession; the
    undos themselves are not undone again."""
    assert undoing.undoable({"operation": "withdraw"}).blocked == undoing.WITHDRAWAL_IS_FINAL
    assert "final" in undoing.WITHDRAWAL_IS_FINAL
    assert undoing.undoable({"operation": "correct"}).blocked == undoing.CORRECTION_STAYS
    for operation in ("supersede", "merge", "adopt"):
        assert undoing.undoable({"operation": operation}).blocked is None
    assert undoing.undoable({"operation": "supersede"}).label == "Undo Supersede"
    assert undoing.undoable({"operation": "unmerge"}).blocked is not None


def test_a_supersession_is_undone_from_its_receipt(vault: Vault) -> None:
    receipt = lifecycle.supersede(vault.write, fence_of(vault, "cl_coffee"), [fence_of(vault, "cl_tea")], "x")
    undone = undoing.undo(vault.write, fences(vault), receipt, "undo")
    assert undone["operation"] == "unsupersede"
    assert vault.find("cl_tea")[0]["lifecycle"] == "active"
    assert "superseded_by" not in frontmatter_of((vault.root / TEA).read_bytes())


def test_an_undo_is_fenced_by_what_the_write_left(vault: Vault) -> None:
    """An edit since the write makes the undo fail and write nothing."""
    receipt = lifecycle.supersede(vault.write, fence_of(vault, "cl_coffee"), [fence_of(vault, "cl_tea")], "x")
    path = vault.root / TEA
    path.write_bytes(path.read_bytes() + b"Edited since.\n")
    vault.reconcile([TEA])
    with pytest.raises(WriteRejected) as caught:
        undoing.undo(vault.write, fences(vault), receipt, "undo")
    assert caught.value.code in ("fence-hash", "fence-revision")
    assert path.read_bytes().endswith(b"Edited since.\n")
    assert vault.find("cl_tea")[0]["lifecycle"] == "superseded"


def test_a_merge_is_undone_by_unmerge_and_a_withdrawal_is_refused(vault: Vault) -> None:
    receipt = lifecycle.merge(vault.write, fence_of(vault, "pg_ada"), fence_of(vault, "pg_lovelace"), "same")
    undone = undoing.undo(vault.write, fences(vault), receipt, "not the same")
    assert undone["operation"] == "unmerge"
    assert vault.find("pg_lovelace")[0]["lifecycle"] == "active"
    withdrawn = lifecycle.withdraw(vault.write, fence_of(vault, "cl_tea"), "wrong")
    with pytest.raises(WriteRejected) as caught:
        undoing.undo(vault.write, fences(vault), withdrawn, "undo")
    assert caught.value.code == "not-undoable"


def test_a_correction_writes_the_id_chosen_before_its_preview(vault: Vault) -> None:
    """The id given is the replacement's (issue 29, §4); one in use, or of another kind, is refused."""
    chosen = new_id("claim")
    draft = f"---\n{DRAFT}---\nGreen tea.\n"
    with pytest.raises(WriteRejected) as caught:
        lifecycle.correct(vault.write, fence_of(vault, "cl_tea"), draft, "x", replacement_id="cl_coffee")
    assert caught.value.code == "replacement-id-taken"
    with pytest.raises(WriteRejected) as caught:
        lifecycle.correct(vault.write, fence_of(vault, "cl_tea"), draft, "x", replacement_id=new_id("page"))
    assert caught.value.code == "replacement-id-invalid"
    receipt = lifecycle.correct(vault.write, fence_of(vault, "cl_tea"), draft, "x", replacement_id=chosen)
    assert receipt["replacementId"] == chosen
    assert frontmatter_of((vault.root / TEA).read_bytes())["superseded_by"] == chosen
