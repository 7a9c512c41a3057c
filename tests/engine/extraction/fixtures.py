"""A documentation repository in several real-world styles, written by hand for the tests:
MADR and Nygard ADRs (adr-tools' Status paragraphs and supersession links), a Keep a
Changelog file, a glossary, a concept document, a meeting note with Decision sections,
CRLF and CR files, and a history of conventional commits with a side branch, a merge and
a tag."""

from __future__ import annotations

from tests.repokit import RepoKit

FILES: dict[str, str] = {
    "README.md": "# Lantern\n\nA desktop notebook.\n\n## Glossary\n\n- **Atom** — one small note.\n",
    "docs/adr/0001-record-architecture-decisions.md": (
        "# 1. Record architecture decisions\n\nDate: 2023-01-10\n\n## Status\n\nAccepted\n\n"
        "## Context\n\nWe need to record the architectural decisions made on this project.\n\n"
        "## Decision\n\nWe will use Architecture Decision Records.\n\n## Consequences\n\nSee the ADRs.\n"
    ),
    "docs/adr/0002-use-json-records.md": (
        "# 2. Use JSON records\n\nDate: 2023-02-01\n\n## Status\n\nSuperseded by [3. Use Markdown with YAML "
        "frontmatter](0003-use-markdown-records.md)\n\n## Context\n\nRecords need fields.\n\n## Decision\n\n"
        "Each record is a JSON file, see [the store](../../src/store.py).\n"
    ),
    "docs/adr/0003-use-markdown-records.md": (
        "---\nstatus: accepted\ndate: 2023-06-12\nsupersedes: 0002-use-json-records.md\n"
        "aliases: [ADR-3]\n---\n# Use Markdown records with YAML frontmatter\n\n"
        "## Context and Problem Statement\n\nPeople edit records in other editors.\n\n"
        "## Considered Options\n\n* JSON\n* Markdown with YAML frontmatter\n\n## Decision Outcome\n\n"
        "Chosen option: Markdown with YAML frontmatter.\n"
    ),
    "docs/adr/README.md": "# Decisions\n\n- [ADR 1](0001-record-architecture-decisions.md)\n",
    "docs/GLOSSARY.md": (
        "---\naliases: [terms]\n---\n# Glossary\n\n## Vault\n\nA folder of records.\n\n"
        "**Claim**: an assertion with evidence.\n\nPartition – a top-level folder.\n\n"
        "```\n**NotATerm**: fenced.\n```\n"
    ),
    "docs/concepts/record.md": (
        "---\ntype: concept\naliases: [record file, knowledge record]\n---\n# Record\n\nOne file.\n"
    ),
    "docs/meetings/2024-03-04.md": (
        "# Weekly 2024-03-04\n\n## Sync\n\n### Decision\n\nNo cloud sync for 1.0.\n\n"
        "## Search\n\n### Decision\n\nUse SQLite FTS5.\n"
    ),
    "CHANGELOG.md": (
        "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- Repository pane.\n\n"
        "## [1.0.0] - 2024-05-01\n\n### Added\n\n- First release.\n- Search\n  - keyword search\n\n"
        "### Fixed\n\n- Crash on an empty vault.\n"
    ),
}
CRLF = {"docs/crlf/GLOSSARY.md": "# Glossary\r\n\r\n**Window**: the main window.\r\n\r\nMore text.\r\n"}
CR = {"docs/cr/GLOSSARY.md": "# Glossary\r\r**Pane**: one of five views.\r"}


def build(rk: RepoKit) -> dict[str, str]:
    """Write the files and a history; return the named commit ids."""
    shas: dict[str, str] = {}
    rk.write("src/store.py", "pass\n")
    shas["init"] = rk.commit("chore: initial commit")
    rk.write(
        "docs/adr/0001-record-architecture-decisions.md",
        FILES["docs/adr/0001-record-architecture-decisions.md"],
    )
    shas["adr1"] = rk.commit("docs(adr): record architecture decisions")
    rk.tag("v0.1", shas["adr1"])
    side = rk.commit(
        "feat(search): keyword search",
        {**rk.files(), "src/search.py": "pass\n"},
        parents=[shas["adr1"]],
        ref="refs/heads/search",
    )
    for path, text in {**FILES, **CRLF, **CR}.items():
        rk.write(path, text)
    shas["docs"] = rk.commit("docs: glossary, ADRs and changelog\n\nMentions src/nothing.py in prose.\n")
    rk.write("src/search.py", "pass\n")
    shas["merge"] = rk.commit("Merge branch 'search'", parents=[shas["docs"], side])
    (rk.root / "src/store.py").rename(rk.root / "src/records.py")
    shas["rename"] = rk.commit("refactor(store)!: rename the store module\n\nBREAKING CHANGE: import path\n")
    return shas
