"""A record written at the vault root, outside every partition, with links in its body."""

from __future__ import annotations

from pathlib import Path

from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import envelope, record_text


def test_a_root_record_with_links_is_diagnosed_and_every_other_file_still_indexed(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "private" / "people").mkdir(parents=True)
    (root / "private" / "people" / "ada.md").write_text(
        record_text({**envelope("pg_ada", "page", "Ada", type="person")}, "Ada.\n"), encoding="utf-8"
    )
    (root / "stray.md").write_text(
        record_text(envelope("pg_stray", "page", "Stray"), "See [[Ada]] and [[Nobody]].\n"), encoding="utf-8"
    )
    (root / "private" / "loose.md").write_text("A note linking [[stray]].\n", encoding="utf-8")
    vault = Vault.open(root)
    try:
        vault.reconcile()
        codes = {(d.path, d.code) for d in vault.diagnostics()}
        assert ("stray.md", "outside-partition") in codes
        assert [r["id"] for r in vault.records()["items"]] == ["pg_ada"]
        shown = vault.show("stray.md")
        assert shown["path"] == "stray.md"
    finally:
        vault.close()
