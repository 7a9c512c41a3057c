"""Links, typed references and evidence: what each record points at, and backlinks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.derive import Catalog


def index(tx: Any, catalog: Catalog, paths: Iterable[str]) -> None:
    paths = list(paths)
    tx.executemany("DELETE FROM links WHERE src_path=?", [(p,) for p in paths])
    tx.executemany("DELETE FROM refs WHERE src_path=?", [(p,) for p in paths])
    tx.executemany("DELETE FROM evidence WHERE src_path=?", [(p,) for p in paths])
    evidence_rows: list[tuple[object, ...]] = []
    link_rows: list[tuple[object, ...]] = []
    ref_rows: list[tuple[object, ...]] = []
    for path in paths:
        node = catalog.nodes.get(path)
        derived = catalog.derived.get(path)
        if node is None or derived is None:
            continue
        for link in derived.links:
            raw = link.raw
            link_rows.append(
                (
                    path,
                    node.scope,
                    node.parsed.body_line + raw.line,
                    raw.kind,
                    raw.target,
                    raw.label,
                    link.status,
                    link.target_id,
                    link.target_path,
                )
            )
        for item in derived.evidence:
            evidence_rows.append(
                (
                    path,
                    item.index,
                    item.source,
                    item.path,
                    item.url,
                    item.lines[0] if item.lines else None,
                    item.lines[1] if item.lines else None,
                    item.status,
                    item.reason,
                )
            )
        for ref in derived.refs:
            ref_rows.append((path, node.scope, ref.field, ref.target_id, ref.resolved_id, ref.status))
    if link_rows:
        tx.executemany(
            "INSERT INTO links(src_path, scope, line, link_kind, target_text, label, status,"
            " target_id, target_path) VALUES (?,?,?,?,?,?,?,?,?)",
            link_rows,
        )
    if evidence_rows:
        tx.executemany("INSERT INTO evidence VALUES (?,?,?,?,?,?,?,?,?)", evidence_rows)
    if ref_rows:
        tx.executemany(
            "INSERT INTO refs(src_path, scope, field, target_id, resolved_id, status) VALUES (?,?,?,?,?,?)",
            ref_rows,
        )
