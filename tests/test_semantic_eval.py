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
