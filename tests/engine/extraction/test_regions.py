"""Region evidence and ids (spec: knowledge-entities-extraction.md, "Shape" and
"Extraction and identity"): one-based inclusive lines, SHA-256 of the exact region
bytes with LF / CRLF / lone-CR endings and inner blank lines kept; a moved region keeps
its id with new lines; an edit changes the hash, never the id; a rename is a new id."""

from __future__ import annotations

import hashlib

import pytest

from knowledge_desktop.engine.extraction import ids
from tests.repokit import RepoKit, entity, ids_of, region

GLOSSARY = (
    "# Glossary\n\n## Vault\n\nA folder of records.\n\nIt holds partitions.\n\n## Claim\n\nAn assertion.\n"
)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_region_hash_is_of_the_exact_bytes_with_their_line_endings(rk: RepoKit, eol: str) -> None:
    rk.write("GLOSSARY.md", GLOSSARY.replace("\n", eol))
    vault = region(entity(rk.extract(history=False), "concept:Vault"))
    assert (vault["lineStart"], vault["lineEnd"]) == (3, 7)
    lines = ["## Vault", "", "A folder of records.", "", "It holds partitions."]
    assert vault["regionHash"] == sha("".join(line + eol for line in lines).encode())


def test_a_one_line_region_hashes_its_own_ending_so_lf_crlf_and_cr_differ(rk: RepoKit) -> None:
    hashes = []
    for eol in ("\n", "\r\n", "\r"):
        rk.write("GLOSSARY.md", f"# Glossary{eol}{eol}**Vault**: a folder.{eol}{eol}**Claim**: a text.{eol}")
        vault = region(entity(rk.extract(history=False), "concept:Vault"))
        assert (vault["lineStart"], vault["lineEnd"]) == (3, 3)
        assert vault["regionHash"] == sha(f"**Vault**: a folder.{eol}".encode())
        hashes.append(vault["regionHash"])
    assert len(set(hashes)) == 3


def test_mixed_endings_and_a_bom_are_kept_byte_for_byte(rk: RepoKit) -> None:
    text = "\ufeff# Glossary\r\n\r\n**Vault**: a folder\rof records.\n\n**Claim**: an assertion."
    rk.write("GLOSSARY.md", text)
    doc = rk.extract(history=False)
    vault = region(entity(doc, "concept:Vault"))
    assert (vault["lineStart"], vault["lineEnd"]) == (3, 4)
    assert vault["regionHash"] == sha(b"**Vault**: a folder\rof records.\n")
    claim = region(entity(doc, "concept:Claim"))
    assert (claim["lineStart"], claim["lineEnd"], claim["regionHash"]) == (
        6,
        6,
        sha(b"**Claim**: an assertion."),  # the file's last line has no ending to include
    )
    title = rk.extract(history=False)
    assert title == doc


def test_a_moved_region_keeps_its_id_and_hash_with_new_lines(rk: RepoKit) -> None:
    rk.write("GLOSSARY.md", GLOSSARY)
    before = region(entity(rk.extract(history=False), "concept:Claim"))
    rk.write(
        "GLOSSARY.md",
        "# Glossary\n\nIntro.\n\nMore intro.\n\n## Claim\n\nAn assertion.\n\n## Vault\n\nA folder.\n",
    )
    after = region(entity(rk.extract(history=False), "concept:Claim"))
    assert before["regionHash"] == after["regionHash"]
    assert (before["lineStart"], after["lineStart"]) == (9, 7)


def test_an_edited_region_changes_its_hash_not_its_id(rk: RepoKit) -> None:
    rk.write("docs/adr/0001-use-sqlite.md", "# Use SQLite\n\nStatus: accepted\n\nWe use SQLite.\n")
    before = rk.extract(history=False)
    rk.write(
        "docs/adr/0001-use-sqlite.md", "# Use SQLite\n\nStatus: accepted\n\nWe use SQLite, in WAL mode.\n"
    )
    after = rk.extract(history=False)
    assert ids_of(before) == ids_of(after) == ["decision:docs/adr/0001-use-sqlite.md"]
    assert region(before["entities"][0])["regionHash"] != region(after["entities"][0])["regionHash"]


def test_a_renamed_file_is_a_new_entity_never_a_rename(rk: RepoKit) -> None:
    rk.write("docs/adr/0001-a.md", "# A\n\nText.\n")
    before = ids_of(rk.extract(history=False))
    (rk.root / "docs/adr/0001-a.md").rename(rk.root / "docs/adr/0001-b.md")
    after = ids_of(rk.extract(history=False))
    assert before == ["decision:docs/adr/0001-a.md"]
    assert after == ["decision:docs/adr/0001-b.md"]


def test_ids_are_bounded_and_long_ones_stay_distinct() -> None:
    a, b = "x" * 300 + "a", "x" * 300 + "b"
    assert len(ids.bounded(a)) == 256
    assert ids.bounded(a) != ids.bounded(b)
    assert ids.bounded("short") == "short"


def test_a_long_term_gets_a_bounded_id_and_a_clipped_name(rk: RepoKit) -> None:
    term = "T" * 300
    rk.write("GLOSSARY.md", f"# Glossary\n\n**{term}**: long.\n")
    doc = rk.extract(history=False)
    (e,) = doc["entities"]
    assert len(e["id"]) <= 256
    assert len(e["name"]) == 256
    assert "name-truncated" in {r["code"] for r in doc["coverage"]["concepts"]["reasons"]}


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_the_viewer_checks_a_region_with_the_bytes_the_engine_hashed(rk: RepoKit, eol: str) -> None:
    pytest.importorskip("PySide6")
    from knowledge_desktop.ui.panes.region_viewer import region_bytes

    rk.write("GLOSSARY.md", GLOSSARY.replace("\n", eol))
    for term in ("concept:Vault", "concept:Claim"):
        cited = region(entity(rk.extract(history=False), term))
        data = (rk.root / "GLOSSARY.md").read_bytes()
        assert sha(region_bytes(data, cited["lineStart"], cited["lineEnd"])) == cited["regionHash"]
