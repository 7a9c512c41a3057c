"""The record filters `records`, `grep` and `lookup` share (spec: retrieval, Query contract)."""

from __future__ import annotations

import argparse

from knowledge_desktop.engine.query.inventory import LIFECYCLE_FILTERS, RecordFilter


def add_record_filters(p: argparse.ArgumentParser, *, notes: bool = False) -> None:
    """The filters records, grep and lookup share (spec: retrieval, Query contract);
    grep's `--kind note` searches notes instead (issue 25 §3)."""
    p.add_argument("--kind", choices=("page", "claim", "relationship", *(("note",) if notes else ())))
    p.add_argument("--type", help="ontology type; aliases expand")
    p.add_argument("--tag", help="exact, case-sensitive tag")
    p.add_argument("--lifecycle", choices=LIFECYCLE_FILTERS, default="active")
    p.add_argument("--scope", help="partition name")


def record_filter(args: argparse.Namespace, include_ineligible: bool = False) -> RecordFilter:
    return RecordFilter(
        kind=args.kind,
        types=frozenset([args.type]) if args.type else None,
        tag=args.tag,
        lifecycle=args.lifecycle,
        scope=args.scope,
        include_ineligible=include_ineligible,
    )
