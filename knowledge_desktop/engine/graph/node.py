"""One candidate file as the graph keeps it: a `RecordNode`, and where its detail goes.

The graph lives as long as the vault is open and holds a node per file, so
a node keeps only what derivation and the projections read, with recurring
names interned. What only the file's own derivation reads is its `Detail`,
which a `DetailSource` lets go after a write and reads back when needed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.detail import (
    HISTORY_FIELDS,
    REFERENCE_FIELDS,
    Detail,
    EvidenceItem,
    KeyLines,
    StaleDetail,
)
from knowledge_desktop.engine.graph.keys import Key, file_key, normalise_name, partition_path
from knowledge_desktop.engine.graph.windows import NO_WINDOW, Window, own_window
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.records.notes import NoteMeta
from knowledge_desktop.engine.records.parse import ParsedFile

_intern = sys.intern


class RecordNode:
    """One candidate file: what derivation and the projections read of its parse.

    Built from a `ParsedFile`, which is not kept. Names that recur across
    files (scope, kind, lifecycle, type, field names, ids, link targets) are
    interned so each is stored once.
    """

    __slots__ = (
        "_detail",
        "body_chars",
        "body_line",
        "declared_type",
        "diagnostics",
        "id",
        "is_note",
        "is_record",
        "kind",
        "lifecycle",
        "merged_into",
        "names",
        "path",
        "refs",
        "scope",
        "sha256",
        "size",
        "source",
        "structurally_valid",
        "window",
    )

    def __init__(self, parsed: ParsedFile) -> None:
        self.path = parsed.path
        self.scope = _intern(parsed.scope) if parsed.scope is not None else None
        self.is_record = parsed.status == "record" and parsed.scope is not None
        self.is_note = parsed.status == "note"
        self.sha256 = parsed.sha256
        self.size = parsed.size
        self.body_line = parsed.body_line
        self.body_chars = parsed.body_chars
        self.structurally_valid = parsed.structurally_valid
        self.diagnostics: tuple[Diagnostic, ...] = tuple(parsed.diagnostics)
        data = (parsed.data or {}) if not self.is_note else {}  # a note's frontmatter is no record's
        self._detail: Detail | None = Detail(parsed, data, self.is_record)
        self.source: DetailSource | None = None
        """Where the detail comes back from once released; None: it is never released."""
        self.declared_type: Any = self._detail.value("type")
        self.merged_into: Any = self._detail.value("merged_into")
        """The two values other records' derivation reads (page types, merge chains)."""
        record_id = parsed.record_id if self.is_record else None
        self.id: str | None = _intern(record_id) if record_id else record_id
        self.kind: str | None = _intern(str(data["kind"])) if self.is_record else None
        self.lifecycle: str = _intern(str(data.get("lifecycle", "active"))) if self.is_record else "active"
        self.names: tuple[str, ...] = _names(data) if self.is_record else ()
        self.refs: tuple[tuple[str, str], ...] = _ref_targets(data) if self.is_record else ()
        window = own_window(data) if self.is_record and self.kind in ("claim", "relationship") else NO_WINDOW
        self.window: Window = NO_WINDOW if window == NO_WINDOW else window  # most are unbounded: share one

    @classmethod
    def restored(
        cls,
        *,
        path: str,
        scope: str | None,
        is_record: bool,
        is_note: bool,
        sha256: str,
        size: int,
        body_line: int,
        body_chars: int,
        structurally_valid: bool,
        diagnostics: tuple[Diagnostic, ...],
        declared_type: Any,
        merged_into: Any,
        record_id: str | None,
        kind: str | None,
        lifecycle: str,
        names: tuple[str, ...],
        refs: tuple[tuple[str, str], ...],
        window: Window,
    ) -> RecordNode:
        """A node as `graph.snapshot` stored it: no detail held, to be read back
        from the parse cache by the `DetailSource` the graph gives it."""
        node = cls.__new__(cls)
        node.path = path
        node.scope = scope
        node.is_record = is_record
        node.is_note = is_note
        node.sha256 = sha256
        node.size = size
        node.body_line = body_line
        node.body_chars = body_chars
        node.structurally_valid = structurally_valid
        node.diagnostics = diagnostics
        node._detail = None
        node.source = None
        node.declared_type = declared_type
        node.merged_into = merged_into
        node.id = record_id
        node.kind = kind
        node.lifecycle = lifecycle
        node.names = names
        node.refs = refs
        node.window = window
        return node

    @property
    def rel(self) -> str:
        """The partition-relative path (computed: a stored copy costs 100 bytes a file)."""
        return partition_path(self.path)

    @property
    def detail(self) -> Detail:
        """What only this file's own derivation and projections read; read back
        from the parse cache when it was released."""
        detail = self._detail
        if detail is None:
            if self.source is None:
                raise RuntimeError(f"{self.path}: detail released with nowhere to read it back from")
            self.source.fill((self,))
            detail = self._detail
            assert detail is not None
        return detail

    @property
    def holds_detail(self) -> bool:
        return self._detail is not None

    def release_detail(self) -> None:
        """Let the detail go (only for a node whose parse is in the cache)."""
        if self.source is not None:
            self._detail = None

    def take_detail(self, other: RecordNode) -> None:
        """Adopt the detail of `other`, a node read back from the parse cache."""
        if other.path != self.path or other.sha256 != self.sha256:
            held = f"{other.path} {other.sha256[:12]}"
            raise StaleDetail(f"{self.path}: the parse cache holds {held}, not {self.sha256[:12]}")
        self._detail = other._detail

    @property
    def key_lines(self) -> KeyLines:
        return self.detail.key_lines

    @property
    def link_parts(self) -> tuple[str | int | None, ...]:
        return self.detail.link_parts

    @property
    def note(self) -> NoteMeta | None:
        """A note's metadata (read back with the detail); None for any other file."""
        return self.detail.note if self.is_note else None

    @property
    def evidence_items(self) -> tuple[EvidenceItem, ...] | None:
        return self.detail.evidence_items

    @property
    def links(self) -> list[RawLink]:
        """The body's links, rebuilt from `link_parts`."""
        parts = self.link_parts
        return [
            RawLink(parts[i], parts[i + 1], parts[i + 2], parts[i + 3])  # type: ignore[arg-type]
            for i in range(0, len(parts), 4)
        ]

    def value(self, key: str) -> Any:
        """A RETAINED frontmatter value, None when absent."""
        if key == "type":
            return self.declared_type
        if key == "merged_into":
            return self.merged_into
        return self.detail.value(key)

    @property
    def superseded_by(self) -> str | None:
        """The first `superseded_by` id (kept among `refs`, so no detail is read)."""
        return next((target for name, target in self.refs if name == "superseded_by"), None)

    def identity_signature(self) -> tuple[object, ...]:
        """What records referring to this id by id may read of it."""
        return (
            self.id,
            self.kind,
            self.lifecycle,
            self.value("merged_into"),
            self.superseded_by,
            self.value("type"),
            self.structurally_valid,
        )

    def provided_keys(self) -> set[Key]:
        """Keys whose meaning this file contributes to (what others may watch)."""
        scope = self.scope or ""
        keys: set[Key] = {("p", scope, self.rel), ("f", "", file_key(self.path))}
        if self.is_record:
            keys.update(("n", scope, name) for name in self.names)
            keys.update(("N", "", name) for name in self.names)
            if self.id:
                keys.add(("i", scope, self.id))
        return keys


class DetailSource:
    """Reads released details back from the parse cache, and knows which
    nodes hold one, so that they can all be let go after a write."""

    __slots__ = ("_holding", "_read")

    def __init__(self, read: Callable[[list[str]], Iterable[RecordNode]]) -> None:
        self._read = read
        """Fresh nodes for the given paths, from the parse cache."""
        self._holding: set[RecordNode] = set()

    def adopt(self, node: RecordNode) -> None:
        """Take charge of a node built from a new parse (released after its write)."""
        node.source = self
        if node.holds_detail:
            self._holding.add(node)

    def fill(self, nodes: Iterable[RecordNode]) -> None:
        """Give every node without its detail the detail stored for it."""
        wanted = {n.path: n for n in nodes if not n.holds_detail}
        if not wanted:
            return
        for fresh in self._read(list(wanted)):
            node = wanted.pop(fresh.path, None)
            if node is not None:
                node.take_detail(fresh)
                self._holding.add(node)
        if wanted:
            raise StaleDetail(f"the parse cache has no entry for {', '.join(sorted(wanted)[:3])}")

    def release(self, nodes: Iterable[RecordNode] | None = None) -> None:
        """Let the detail of `nodes` go (None: of every node holding one).

        Only for nodes whose parse is in the cache: the reconciler calls it
        once its write is committed.
        """
        for node in self._holding if nodes is None else nodes:
            node.release_detail()
        if nodes is None:
            self._holding.clear()
        else:
            self._holding.difference_update(nodes)

    @property
    def holding(self) -> int:
        return len(self._holding)


def _names(data: dict[str, Any]) -> tuple[str, ...]:
    out = [data.get("title")]
    aliases = data.get("aliases")
    if isinstance(aliases, list):
        out.extend(aliases)
    return tuple(normalise_name(n) for n in out if isinstance(n, str) and n.strip())


def _ref_targets(data: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """(field, target id) of each reference and history field, in field order."""
    out: list[tuple[str, str]] = []
    for name in _REF_NAMES:
        value = data.get(name)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        out.extend((name, _intern(v)) for v in values if isinstance(v, str) and v)
    return tuple(out)


_REF_NAMES = REFERENCE_FIELDS + HISTORY_FIELDS
