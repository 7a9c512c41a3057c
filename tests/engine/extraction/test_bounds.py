"""Every bound of the spec and its coverage entry (spec: knowledge-entities-extraction.md,
"Bounds and coverage"): a cut, an unread document, an oversized region, a capped array
or a spent budget is `partial` with a reason; nothing is silently complete. Cheap bounds
are exercised at their real values; the expensive ones (10,000 documents, 64 MiB) with
the module's constant lowered, which runs the same code path."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.extraction import coverage, document, documents
from knowledge_desktop.engine.extraction.bounds import MAX_REGION_BYTES
from knowledge_desktop.engine.extraction.history import read_history
from tests.cost import assert_near_linear
from tests.repokit import RepoKit, codes, entity, ids_of

MP = pytest.MonkeyPatch


def test_more_documents_than_the_bound_are_counted_not_read(
    rk: RepoKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "MAX_DOCUMENTS", 2)
    for name in ("a", "b", "c"):
        rk.write(f"{name}/GLOSSARY.md", f"# Glossary\n\n**{name.upper()}**: x.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:A", "concept:B"]
    assert doc["coverage"]["documents"]["discovered"] == 3
    assert doc["coverage"]["documents"]["read"] == 2
    assert codes(doc, "documents") == {"documents-capped"}
    assert "documents-partial" in codes(doc, "concepts")


def test_an_oversized_document_and_the_text_budget_are_partial(
    rk: RepoKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    rk.write("big/GLOSSARY.md", "# Glossary\n\n**Big**: x.\n" + "filler\n" * (4 * 1024 * 1024 // 7 + 1))
    rk.write("small/GLOSSARY.md", "# Glossary\n\n**Small**: x.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Small"]
    assert [r["path"] for r in doc["coverage"]["documents"]["reasons"]] == ["big/GLOSSARY.md"]
    assert codes(doc, "documents") == {"document-too-large"}
    (rk.root / "big/GLOSSARY.md").unlink()
    rk.write("a/GLOSSARY.md", "# Glossary\n\n**A**: x.\n")
    monkeypatch.setattr(documents, "MAX_TOTAL_BYTES", 40)
    budget = rk.extract(history=False)
    assert ids_of(budget) == ["concept:A"]
    assert codes(budget, "documents") == {"text-budget"}


def test_a_document_that_is_not_utf8_or_not_a_file_is_unread(rk: RepoKit) -> None:
    rk.write("GLOSSARY.md", b"# Glossary\n\n**Caf\xe9**: latin-1.\n")
    (rk.root / "link.md").symlink_to(rk.root / "GLOSSARY.md")
    doc = rk.extract(history=False)
    assert doc["entities"] == []
    assert {(r["code"], r["path"]) for r in doc["coverage"]["documents"]["reasons"]} == {
        ("document-unread", "GLOSSARY.md"),
        ("document-unread", "link.md"),
    }


def test_an_oversized_region_is_left_out_and_an_adr_falls_back_to_its_title(rk: RepoKit) -> None:
    long_text = "word " * (MAX_REGION_BYTES // 5 + 10)
    rk.write("GLOSSARY.md", f"# Glossary\n\n## Huge\n\n{long_text}\n\n## Small\n\nshort.\n")
    rk.write("adr/0001.md", f"# Long decision\n\n{long_text}\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Small", "decision:adr/0001.md"]
    adr = entity(doc, "decision:adr/0001.md")["evidence"][0]
    assert (adr["lineStart"], adr["lineEnd"]) == (1, 1)
    assert "region-oversized" in codes(doc, "concepts")
    assert "region-oversized" in codes(doc, "decisions")


def test_headings_past_128_end_the_traversal(rk: RepoKit) -> None:
    body = "".join(f"## T{n}\n\ntext.\n\n" for n in range(130))
    rk.write("GLOSSARY.md", f"# Glossary\n\n{body}")
    doc = rk.extract(history=False)
    assert len(doc["entities"]) == 127  # the title plus 127 terms are the 128 headings
    assert "headings-capped" in codes(doc, "documents")


def test_root_nodes_past_8192_end_the_traversal(rk: RepoKit) -> None:
    body = "".join(f"**T{n}**: x.\n\n" for n in range(8200))
    rk.write("GLOSSARY.md", f"# Glossary\n\n{body}")
    doc = rk.extract(history=False)
    assert len(doc["entities"]) == 8191
    assert "traversal-capped" in codes(doc, "documents")


def test_citations_past_4096_per_document_are_partial(rk: RepoKit) -> None:
    rk.write("src/a.py", "")
    entries = "".join(f"- Entry {n:04} in [a](src/a.py).\n" for n in range(4097))
    rk.write("CHANGELOG.md", f"# Changelog\n\n## 1.0\n\n{entries}")
    doc = rk.extract(history=False)
    linked = [e["name"] for e in doc["entities"] if e["links"]]
    assert len(linked) == 4096
    assert entity(doc, "change:CHANGELOG.md#1.0#Entry 4096 in a.")["links"] == []
    assert "citations-capped" in codes(doc, "changes")


def test_evidence_links_and_aliases_are_capped_per_entity(rk: RepoKit) -> None:
    for n in range(65):
        rk.write(f"t{n:02}/GLOSSARY.md", "# Glossary\n\n**Vault**: x.\n")
    aliases = ", ".join(f"a{n}" for n in range(33))
    rk.write("concepts/c.md", f"---\ntype: concept\naliases: [{aliases}]\n---\n# C\n")
    rk.commit("many files", {f"f{n:02}.txt": "x" for n in range(65)})
    doc = rk.extract()
    assert len(entity(doc, "concept:Vault")["evidence"]) == 64
    assert len(entity(doc, "concept:C")["aliases"]) == 32
    (change,) = [e for e in doc["entities"] if e["kind"] == "change"]
    assert len(change["links"]) == 64
    assert {"evidence-capped", "aliases-capped"} <= codes(doc, "concepts")
    assert "links-capped" in codes(doc, "changes")


def test_entities_past_the_bound_are_left_out_with_a_reason(
    rk: RepoKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document, "MAX_ENTITIES", 2)
    rk.write("GLOSSARY.md", "# Glossary\n\n**A**: x.\n\n**B**: x.\n\n**C**: x.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:A", "concept:B"]
    assert "entities-capped" in codes(doc, "concepts")


def test_the_history_time_budget_is_partial(rk: RepoKit) -> None:
    for n in range(3):
        rk.commit(f"c{n}", {"f.txt": str(n)})
    result = read_history(rk.root, 50, None, budget=-1.0)
    assert result.status == "partial"
    assert [r.code for r in result.reasons] == ["time-budget"]
    assert result.found == []


def test_reasons_are_capped_per_area_with_a_count(rk: RepoKit, monkeypatch: MP) -> None:
    monkeypatch.setattr(coverage, "MAX_REASONS", 2)
    for n in range(4):
        rk.write(f"adr/000{n}.md", f"---\nsupersedes: missing{n}.md\n---\n# D{n}\n")
    reasons = rk.extract(history=False)["coverage"]["decisions"]["reasons"]
    assert [r["code"] for r in reasons] == [
        "unresolved-supersession",
        "unresolved-supersession",
        "reasons-capped",
    ]
    assert reasons[-1]["detail"] == "2 more"


def test_symbols_are_counted_and_nothing_else_is_silently_complete(rk: RepoKit) -> None:
    rk.write("src/module.py", "def f():\n    pass\n")
    doc = rk.extract(history=False)
    assert doc["coverage"]["symbols"] == {
        "status": "complete",
        "files": 1,
        "read": 1,
        "bytes": 18,
        "modules": 1,
        "symbols": 1,
        "reasons": [],
    }
    assert doc["coverage"]["history"]["status"] == "not-analyzed"
    assert doc["coverage"]["memory"]["status"] == "not-analyzed"
    assert all(ev["kind"] != "fact" for e in doc["entities"] for ev in e["evidence"])


def write_hostile_lines(rk: RepoKit, n: int) -> None:
    rk.write(
        "adr/0001.md",
        "# x" + " " * n + "y\n\nStatus: a" + " " * n + "b\n\nStatus: " + "*" * n + "\n\n"
        "Status: " + "(supersedes [a](" * (n // 10) + "\n\nSupersedes: " + "; -" * n + "\n",
    )
    rk.write(
        "CHANGELOG.md",
        "# Changelog\n\n## 1.0\n\n- " + "[" * (n * 3 // 40) + "\n- " + "[a](" * (n // 50) + "\n",
    )
    rk.write("notes/comments.md", "<!--" * n + "\n\n" + "x <!--" * n + "\n")


def test_hostile_lines_cost_linear_time(rk: RepoKit) -> None:
    """Long runs of spaces, brackets, `](`, `<!--` and `*` in headings, metadata,
    links, comments and memory text: with an unbounded pattern each of these takes
    minutes (quadratic backtracking); here four times the input costs about four times as much
    (measured small first, so that a regression fails instead of hanging), and the full
    size gives the usual answer."""
    from knowledge_desktop.engine.extraction import MemoryCandidate, link_memory

    def run(size: int) -> None:
        write_hostile_lines(rk, size)
        rk.extract(history=False)
        link_memory([MemoryCandidate("c", "](" * size + "`" * size + "[" * size)], [])

    assert_near_linear(run, 20_000)
    write_hostile_lines(rk, 200_000)
    doc = rk.extract(history=False)
    assert [e["kind"] for e in doc["entities"]] == ["change", "change"]
    assert "no-evidence" in codes(doc, "decisions")
    n = 200_000
    assert link_memory([MemoryCandidate("c", "](" * n + "`" * n + "[" * n)], doc["entities"]) == []


def hostile_names(n: int) -> str:
    lines = [
        "[a](" * n + "x y" + ")" * n,
        "[a]([a](" * (n // 2) + "x y" + ")" * n,
        "[a](x" + " " * n + "y)" * 2,
        "*a" * n,
        "_a_ " * n,
        "` ``" * n,
        "](" * n,
        "[a]" * n + "(",
    ]
    return "# Changes\n\n## 1.0\n\n" + "".join(f"- {line}\n" for line in lines)


def test_hostile_inline_markdown_in_names_costs_near_linear_time(rk: RepoKit) -> None:
    """Entry names are read as visible text (links, emphasis, code spans): nested link
    openings, a long run of white space inside a destination, alternating emphasis and
    unpaired backtick runs each need a rescan per candidate in a naive reader (minutes);
    here they are one pass each: four times the input, about four times the cost."""

    def run(size: int) -> None:
        rk.write("CHANGES.md", hostile_names(size))
        rk.extract(history=False)

    assert_near_linear(run, 5_000)
    rk.write("CHANGES.md", hostile_names(100_000))
    doc = rk.extract(history=False)
    assert ids_of(doc) == []  # each entry is past the region bound
    assert "region-oversized" in codes(doc, "changes")


def test_a_file_name_that_is_not_utf8_is_reported_not_printed_raw(rk: RepoKit) -> None:
    import os

    rk.write("GLOSSARY.md", "# Glossary\n\n**Kept**: x.\n")
    with open(os.path.join(os.fsencode(rk.root), b"caf\xe9.md"), "wb") as f:
        f.write(b"# Glossary\n\n**Lost**: x.\n")
    doc = rk.extract(history=False)
    assert ids_of(doc) == ["concept:Kept"]
    assert doc["coverage"]["documents"]["reasons"] == [
        {"code": "document-unread", "path": "caf\\xe9.md", "detail": "the name is not UTF-8"}
    ]
    from knowledge_desktop.engine.extraction import to_json

    to_json(doc).encode("utf-8")


def test_folders_left_out_are_said_when_they_hold_markdown(rk: RepoKit) -> None:
    """Hidden and tool folders and symbolic links to folders are not read; when one holds
    Markdown, coverage says so rather than reading as complete."""
    import os

    rk.write("docs/guide.md", "# Guide\n")
    rk.write(".tools/empty.txt", "nothing to read\n")
    assert rk.extract(history=False)["coverage"]["documents"]["status"] == "complete"
    rk.write(".github/adr/0001-use-markdown.md", "# Use Markdown\n\nStatus: Accepted\n")
    os.symlink(rk.root / "docs", rk.root / "linked")
    doc = rk.extract(history=False)
    found = doc["coverage"]["documents"]
    assert found["status"] == "partial"
    skipped = [(r["path"], r["detail"]) for r in found["reasons"] if r["code"] == "folder-skipped"]
    assert skipped == [
        (".github", "a hidden or tool folder: not read"),
        ("linked", "a symbolic link: not followed"),
    ]


def test_changes_are_partial_when_history_was_not_analyzed(rk: RepoKit) -> None:
    rk.write("CHANGELOG.md", "# Changelog\n\n## 1.0.0\n\n- First release\n")
    rk.commit("feat: first", {"f.txt": "1"})
    assert rk.extract()["coverage"]["changes"]["status"] == "complete"
    doc = rk.extract(since_tag="v9")
    assert doc["coverage"]["changes"]["status"] == "partial"
    assert {r["code"] for r in doc["coverage"]["changes"]["reasons"]} == {"history-not-analyzed"}
