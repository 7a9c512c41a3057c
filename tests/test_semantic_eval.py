"""The labelled set (tests/data/semantic_eval.json, issue 27 §5): hybrid search does at least
as well as keyword search on recall@5 and MRR. bench/semantic.py prints the figures."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench" / "semantic.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_semantic", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hybrid_is_at_least_as_good_as_keyword_on_the_labelled_set() -> None:
    figures = bench().quality()
    keyword, hybrid = figures["keyword"], figures["hybrid"]
    assert hybrid["recall@5"] >= keyword["recall@5"], figures
    assert hybrid["mrr"] >= keyword["mrr"], figures
    assert figures["semantic"]["recall@5"] > 0, figures


STOP = frozenset(
    [
        "a",
        "about",
        "all",
        "an",
        "and",
        "by",
        "for",
        "in",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "to",
        "was",
        "we",
        "who",
        "with",
        "your",
    ]
)


def test_the_queries_share_no_word_with_the_records_they_should_find() -> None:
    """The set measures meaning, not words: no query word (short function words aside) is a
    word of the file of a record it should find, frontmatter included."""
    import json
    import re

    from knowledge_desktop.engine.query.text import tokens
    from knowledge_desktop.resources import demo_vault_path

    words_of: dict[str, set[str]] = {}
    for path in demo_vault_path().rglob("*.md"):
        text = path.read_text("utf-8")
        found = re.search(r"^id: (\S+)", text, re.MULTILINE)
        if found:
            words_of[found.group(1)] = set(tokens(text))
    labelled = json.loads((BENCH.parent.parent / "tests" / "data" / "semantic_eval.json").read_text("utf-8"))
    shared = {
        (item["query"], rid): sorted((set(tokens(item["query"])) - STOP) & words_of[rid])
        for item in labelled["queries"]
        for rid in item["relevant"]
    }
    assert {k: v for k, v in shared.items() if v} == {}
