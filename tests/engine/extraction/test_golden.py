"""The whole fixture repository end to end: what a reader would list by hand, the JSON
shape, byte-identical output across two runs and two checkouts, and re-extraction from
the cache giving exactly what a fresh run gives (spec: knowledge-entities-extraction.md,
"Extraction and identity": canonical order)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2

from knowledge_desktop.engine.extraction import Extractor, extract, to_json, validate
from tests.engine.extraction.fixtures import build
from tests.repokit import RepoKit, entity, ids_of, region


def test_the_fixture_repository_gives_what_a_reader_lists(rk: RepoKit) -> None:
    shas = build(rk)
    doc = rk.extract()
    validate(doc)
    assert ids_of(doc, "decision") == [
        "decision:docs/adr/0001-record-architecture-decisions.md",
        "decision:docs/adr/0002-use-json-records.md",
        "decision:docs/adr/0003-use-markdown-records.md",
        "decision:docs/meetings/2024-03-04.md#Decision",
        "decision:docs/meetings/2024-03-04.md#Decision~2",
    ]
    assert ids_of(doc, "concept") == [
        "concept:Atom",
        "concept:Claim",
        "concept:Pane",
        "concept:Partition",
        "concept:Record",
        "concept:Vault",
        "concept:Window",
    ]
    adr3 = entity(doc, "decision:docs/adr/0003-use-markdown-records.md")
    assert adr3["links"] == [{"kind": "supersedes", "target": "decision:docs/adr/0002-use-json-records.md"}]
    assert adr3["aliases"] == ["ADR-3"]
    adr2 = entity(doc, "decision:docs/adr/0002-use-json-records.md")
    assert {"kind": "superseded-by", "target": adr3["id"]} in adr2["links"]
    assert {"kind": "affected-path", "target": "src/store.py"} not in adr2["links"]  # renamed away
    assert entity(doc, "decision:docs/adr/0001-record-architecture-decisions.md")["status"] == "Accepted"
    changes = {e["name"] for e in doc["entities"] if e["kind"] == "change"}
    assert {"Repository pane.", "First release.", "Search", "Crash on an empty vault."} <= changes
    first_parent = [shas[k] for k in ("init", "adr1", "docs", "merge", "rename")]
    assert sorted(
        e["evidence"][0]["sha"] for e in doc["entities"] if e["id"].startswith("commit:")
    ) == sorted(first_parent)
    rename = entity(doc, f"commit:{shas['rename']}")
    assert rename["conventional"] == {"type": "refactor", "scope": "store", "breaking": True}
    # the touched path that still exists has a module fact; the one renamed away stays a path
    assert [(link["kind"], link["target"]) for link in rename["links"]] == [
        ("affected-fact", "module:src/records.py"),
        ("affected-path", "src/records.py"),
        ("affected-path", "src/store.py"),
    ]
    assert [link["target"] for link in entity(doc, f"commit:{shas['merge']}")["links"]] == [
        "module:src/search.py",
        "src/search.py",
    ]
    assert "glossary-aliases-unbound" in {r["code"] for r in doc["coverage"]["concepts"]["reasons"]}
    window = rk.extract(since_tag="v0.1")
    assert sorted(e["id"] for e in window["entities"] if e["id"].startswith("commit:")) == sorted(
        f"commit:{shas[k]}" for k in ("docs", "merge", "rename")
    )
    assert region(entity(doc, "concept:Window"))["lineStart"] == 3
    assert region(entity(doc, "concept:Pane"))["lineStart"] == 3


def test_byte_identical_across_runs_and_checkouts(rk: RepoKit, tmp_path: Path) -> None:
    build(rk)
    first = to_json(rk.extract())
    assert to_json(rk.extract()) == first
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(rk.root, copy, symlinks=True)
    assert to_json(extract(copy)) == first
    clone = pygit2.clone_repository(str(rk.root / ".git"), str(tmp_path / "clone"))
    assert clone.workdir is not None
    for path in ("docs/crlf/GLOSSARY.md", "docs/cr/GLOSSARY.md"):  # a checkout must keep the bytes
        assert (Path(clone.workdir) / path).read_bytes() == (rk.root / path).read_bytes()
    assert to_json(extract(Path(clone.workdir))) == first


def test_re_extraction_parses_only_what_changed_and_equals_a_fresh_run(rk: RepoKit) -> None:
    build(rk)
    extractor = Extractor(rk.root)
    assert to_json(extractor.extract()) == to_json(rk.extract())
    assert extractor.parsed_last_run == 11
    extractor.extract()
    assert extractor.parsed_last_run == 0
    rk.write("docs/GLOSSARY.md", "# Glossary\n\n**Vault**: edited.\n")
    (rk.root / "docs/meetings/2024-03-04.md").unlink()
    rk.write("docs/adr/0004-new.md", "---\nsupersedes: 0003-use-markdown-records.md\n---\n# Four\n")
    again = extractor.extract()
    assert extractor.parsed_last_run == 2
    assert to_json(again) == to_json(rk.extract())
    assert "decision:docs/meetings/2024-03-04.md#Decision" not in ids_of(again)
    rk.commit("feat: four")
    assert to_json(extractor.extract()) == to_json(rk.extract())
