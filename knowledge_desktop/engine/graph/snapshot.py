"""What the graph keeps of a file, as one small row, so a reopened vault needs no derivation.

Deriving every record of a 100,000-file vault takes most of a minute, and
its outcome is already settled: the projections on disk were written from
it. So each reconcile also stores, per file, exactly what the graph keeps
once a write is done — the compact node (`RecordNode` without its detail)
and the derived state that is not released (validity, type, duplicate,
watched keys, dependencies, windows) — in the same transaction as the
projections. Loading the graph then decodes one short JSON list per file
and files it in the indexes; nothing is resolved, no parse is decoded, and
details and findings are read back from the parse cache only when a file is
derived again, as after any write.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from knowledge_desktop.engine.diagnostics import CODES, Diagnostic
from knowledge_desktop.engine.graph.derived import RELEASED_FINDINGS, Derived
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.windows import NO_WINDOW, Window

_intern = sys.intern
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""`json.dumps` with these options, without building an encoder for every file."""


def encode(node: RecordNode, derived: Derived, lifecycle: str | None = None) -> str:
    """One file's compact node and kept derived state. `lifecycle`: what the file
    says, when a guard overrides it (restoring applies the guards again)."""
    return _ENCODE(
        [
            node.scope,
            node.is_record,
            node.is_note,
            node.size,
            node.body_line,
            node.body_chars,
            node.structurally_valid,
            [[d.code, d.line, d.message, d.record_id] for d in node.diagnostics],
            node.declared_type,
            node.merged_into,
            node.id,
            node.kind,
            lifecycle or node.lifecycle,
            node.names,
            [part for ref in node.refs for part in ref],
            node.window,
            derived.valid,
            derived.type,
            derived.duplicate,
            *_sorted_keys(derived.watched_kinds, derived.watched),
            derived.depends_on,
            derived.deps_ok,
            derived.own_window,
            derived.window,
        ]
    )


def decode(path: str, sha256: str, text: str) -> tuple[RecordNode, Derived]:
    """The node (without its detail) and derived state `encode` stored for `path`."""
    (
        scope,
        is_record,
        is_note,
        size,
        body_line,
        body_chars,
        structurally_valid,
        diagnostics,
        declared_type,
        merged_into,
        record_id,
        kind,
        lifecycle,
        names,
        refs,
        window,
        valid,
        type_name,
        duplicate,
        watched_kinds,
        watched,
        depends_on,
        deps_ok,
        own_window,
        derived_window,
    ) = json.loads(text)
    node = RecordNode.restored(
        path=path,
        scope=_intern(scope) if scope is not None else None,
        is_record=is_record,
        is_note=is_note,
        sha256=sha256,
        size=size,
        body_line=body_line,
        body_chars=body_chars,
        structurally_valid=structurally_valid,
        diagnostics=tuple(
            Diagnostic(code, CODES[code][0], path, line, rid, message)
            for code, line, message, rid in diagnostics
        )
        if diagnostics
        else (),
        declared_type=_kept(declared_type),
        merged_into=_kept(merged_into),
        record_id=_intern(record_id) if record_id else record_id,
        kind=_intern(kind) if kind is not None else None,
        lifecycle=_intern(lifecycle),
        names=tuple(map(_intern, names)),
        refs=_pairs(refs),
        window=_window(window),
    )
    derived = Derived(
        scope=node.scope or "",
        valid=valid,
        type=_intern(type_name) if type_name is not None else None,
        duplicate=duplicate,
        diagnostics=RELEASED_FINDINGS,
        watched_kinds=_intern(watched_kinds),  # 849 patterns among 100k records: 6 MiB as copies
        watched=tuple(map(_intern, watched)),
        depends_on=tuple(map(_intern, depends_on)),
        deps_ok=deps_ok,
        own_window=_window(own_window),
        window=_window(derived_window),
        complete=False,
    )
    return node, derived


def _sorted_keys(kinds: str, values: tuple[str, ...]) -> tuple[str, list[str]]:
    """Watched keys in one order whatever the set they came from (two histories of one
    vault store the same row): the kinds as one string, then the values."""
    pairs = sorted(zip(kinds, values, strict=True))
    return "".join(kind for kind, _ in pairs), [value for _, value in pairs]


def _pairs(flat: list[str]) -> tuple[tuple[str, str], ...]:
    """(field, target) pairs from their flat, stored form, interned."""
    parts = iter(map(_intern, flat))
    return tuple(zip(parts, parts, strict=True))


def _window(value: list[str | None]) -> Window:
    start, end = value
    return NO_WINDOW if start is None and end is None else (start, end)


def _kept(value: Any) -> Any:
    return _intern(value) if isinstance(value, str) else value
