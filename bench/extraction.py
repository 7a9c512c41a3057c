"""Extraction benchmark (issue 17): a generated documentation repository of N documents and
C commits, extracted in full, then re-extracted after one file changes.

    python bench/extraction.py [--documents 1000] [--commits 200] [--runs 3] [--keep DIR] [--json]

The repository is written into a temporary folder (or `--keep DIR`): ADRs (MADR and
Nygard styles, supersession chains), glossaries, concept documents, meeting notes with
Decision sections, a long changelog and plain guides, in about equal parts; then C
first-parent commits (conventional subjects, every tenth a merge of a side branch) made
with pygit2. Measured, each in this process after imports:

* full: `extract(repo, ExtractOptions(max_commits=C))` — a fresh extractor, no cache;
* re-extract: an `Extractor` that has run once, after one glossary file is rewritten —
  only that document is parsed again and the history comes from the commit cache.
  Its output must equal a fresh full run byte for byte (checked every run).

Targets (issue 17): full ≤ 5 s for 1,000 documents and 200 commits; re-extract ≤ 1 s.
The medians of `--runs` runs are reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pygit2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_desktop.engine.extraction import ExtractOptions, Extractor, extract, to_json  # noqa: E402

TYPES = ("feat", "fix", "docs", "refactor", "chore", "perf")


def documents(n: int) -> dict[str, str]:
    """N documents in six styles, deterministic."""
    out: dict[str, str] = {}
    for i in range(n):
        style = i % 6
        if style == 0:
            prev = f"supersedes: {i - 6:04}-adr.md\n" if i >= 6 else ""
            out[f"docs/adr/{i:04}-adr.md"] = (
                f"---\nstatus: accepted\ndate: 2024-01-{i % 28 + 1:02}\n{prev}---\n# Decision {i}\n\n"
                "## Context\n\n" + "Some context sentence. " * 20 + "\n\n## Decision Outcome\n\nChosen.\n"
            )
        elif style == 1:
            out[f"doc/architecture/decisions/{i:04}-nygard.md"] = (
                f"# {i}. Nygard decision\n\nDate: 2023-05-05\n\n## Status\n\nAccepted\n\n## Context\n\n"
                + "Context. " * 30
                + f"\n\n## Decision\n\nWe will do {i}, see [src](../../../src/m{i % 50}.py).\n"
            )
        elif style == 2:
            terms = "".join(f"**Term{i}x{k}**: definition {k} of the term.\n\n" for k in range(8))
            out[f"glossary/{i:04}/GLOSSARY.md"] = f"# Glossary\n\n{terms}Term{i} — a dash definition.\n"
        elif style == 3:
            out[f"concepts/c{i:04}.md"] = (
                f"---\ntype: concept\naliases: [alias {i}, A{i}]\n---\n# Concept {i}\n\n"
                + "Prose. " * 40
                + "\n"
            )
        elif style == 4:
            out[f"meetings/m{i:04}.md"] = (
                f"# Meeting {i}\n\n## Topic A\n\n### Decision\n\nYes.\n\n"
                "## Topic B\n\n### Decision\n\nNo.\n\n"
                "```\n**Fenced**: no.\n```\n"
            )
        else:
            out[f"guides/g{i:04}.md"] = f"# Guide {i}\n\n" + "".join(
                f"## Part {k}\n\n" + "Text line.\n" * 10 + "\n" for k in range(6)
            )
    releases = "".join(
        f"## [1.{r}.0] - 2024-02-01\n\n### Added\n\n"
        + "".join(f"- Change {r}.{k}\n" for k in range(10))
        + "\n"
        for r in range(40)
    )
    out["CHANGELOG.md"] = f"# Changelog\n\n{releases}"
    return out


def build(root: Path, n_docs: int, n_commits: int) -> None:
    files = documents(n_docs)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    repo = pygit2.init_repository(str(root), initial_head="main")
    blobs = {p: repo.create_blob(t.encode()) for p, t in files.items()}
    paths = sorted(blobs)
    parents: list[pygit2.Oid] = []
    for c in range(n_commits):
        index = pygit2.Index()
        # each commit touches a moving window of 5 files (a version counter in a source file)
        for p in paths[: 1 + (c * 5) % len(paths)]:
            index.add(pygit2.IndexEntry(p, blobs[p], pygit2.enums.FileMode.BLOB))
        index.add(
            pygit2.IndexEntry(
                f"src/v{c % 7}.py", repo.create_blob(f"V = {c}\n".encode()), pygit2.enums.FileMode.BLOB
            )
        )
        tree = index.write_tree(repo)
        sig = pygit2.Signature("Ada", "ada@example.org", 1_760_000_000 + c * 60, 0)
        kind = TYPES[c % len(TYPES)]
        message = f"{kind}(area{c % 5}): change number {c}\n\nBody.\n"
        if c % 10 == 9 and parents:
            side = repo.create_commit(None, sig, sig, f"feat: side {c}", tree, parents)
            oid = repo.create_commit("HEAD", sig, sig, f"Merge branch 'side-{c}'", tree, [parents[0], side])
        else:
            oid = repo.create_commit("HEAD", sig, sig, message, tree, parents)
        parents = [oid]


def measure(root: Path, n_commits: int, runs: int) -> dict[str, Any]:
    options = ExtractOptions(max_commits=min(n_commits, 200))
    full: list[float] = []
    again: list[float] = []
    parsed: list[int] = []
    target = next(iter(sorted(root.glob("glossary/*/GLOSSARY.md"))))
    entities = 0
    for run in range(runs):
        t0 = time.perf_counter()
        document = extract(root, options)
        full.append(time.perf_counter() - t0)
        entities = len(document["entities"])
        extractor = Extractor(root, options)
        extractor.extract()
        target.write_text(
            target.read_text(encoding="utf-8") + f"\n**Edited{run}**: one more term.\n", "utf-8"
        )
        t0 = time.perf_counter()
        incremental = extractor.extract()
        again.append(time.perf_counter() - t0)
        parsed.append(extractor.parsed_last_run)
        if to_json(incremental) != to_json(extract(root, options)):
            raise SystemExit("re-extraction differs from a fresh full run")
    return {
        "fullSeconds": round(statistics.median(full), 3),
        "reextractSeconds": round(statistics.median(again), 3),
        "parsedOnReextract": max(parsed),
        "entities": entities,
        "runs": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the repository here and keep it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch) / "repo"
        root.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        build(root, args.documents, args.commits)
        built = time.perf_counter() - t0
        result = {
            "documents": args.documents + 1,
            "commits": args.commits,
            "buildSeconds": round(built, 2),
            **measure(root, args.commits, args.runs),
            "machine": f"{platform.machine()}, Python {platform.python_version()}",
        }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>18}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
