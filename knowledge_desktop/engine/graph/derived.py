"""What deriving a record found: its meaning in the context of its vault.

A `Derived` per file holds what the projections write (validity, type,
resolved links and references, checked evidence, diagnostics, the window
it counts as current) and what the graph needs to derive it again (the keys
it looked at, the ids it depends on).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.evidence import CheckedEvidence
from knowledge_desktop.engine.graph.keys import Key, key_scope
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.graph.windows import NO_WINDOW, Window
from knowledge_desktop.engine.links.extract import RawLink


@dataclass(slots=True)
class ResolvedLink:
    raw: RawLink
    status: str
    """resolved | missing | ambiguous | outside | broken-merge. A note's ambiguous link
    still names the file it was taken to (`graph/notes.py`)."""
    target_id: str | None = None
    target_path: str | None = None


@dataclass(slots=True)
class ResolvedRef:
    field: str
    target_id: str
    resolved_id: str | None
    status: str
    """resolved | missing | duplicate | broken-merge | wrong-kind"""


@dataclass(slots=True)
class Derived:
    scope: str = ""
    valid: bool = False
    type: str | None = None
    duplicate: bool = False
    link_results: tuple[str | None, ...] = ()
    """(status, target id, target path) per link of the node, flattened; see `resolved_links`."""
    refs: tuple[ResolvedRef, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pending: set[Key] | None = None
    """Keys looked at while deriving; `VaultGraph` files them under `watched` once done."""
    watched_kinds: str = ""
    watched: tuple[str, ...] = ()
    """The keys whose change re-derives this record: key kind `watched_kinds[i]`
    (one character: 'p' a path's existence, 'b' its bytes, 'n' a name, 'i' an id,
    and the vault-wide 'f' and 'N' of `keys`) and value `watched[i]`. The scope is the
    record's own for a partition key: a record's derivation looks outside its partition
    only through the vault-wide keys (a link that falls back to a note)."""
    depends_on: tuple[str, ...] = ()
    """Resolved ids of REFERENCE_FIELDS targets, for eligibility."""
    deps_ok: bool = True
    evidence: tuple[CheckedEvidence, ...] = ()
    own_window: Window = NO_WINDOW
    window: Window = NO_WINDOW
    """When the record counts as current: its own validity/expiry met with its dependencies'."""
    complete: bool = True
    """False once the findings only the projections read (link results, refs,
    evidence, diagnostics) were let go; `VaultGraph` derives them again when a
    projection row must be rewritten without the record being re-derived."""

    def release_findings(self) -> None:
        self.link_results = ()
        self.refs = ()
        self.evidence = ()
        self.diagnostics = RELEASED_FINDINGS
        self.complete = False

    def adopt_findings(self, fresh: Derived) -> None:
        self.link_results = fresh.link_results
        self.refs = fresh.refs
        self.evidence = fresh.evidence
        self.diagnostics = fresh.diagnostics
        self.complete = True

    @property
    def watch(self) -> set[Key]:
        """Where derivation (evidence checking included) adds the keys it looks at."""
        if self.pending is None:
            self.pending = set(self.watched_keys())
        return self.pending

    def watched_keys(self) -> Iterator[Key]:
        scope = self.scope
        for kind, value in zip(self.watched_kinds, self.watched, strict=True):
            yield (kind, key_scope(kind, scope), value)

    def resolved_links(self, node: RecordNode) -> list[ResolvedLink]:
        """Each of the node's links with how it resolved. A file derivation does not resolve
        links for (a record at the vault root, in no partition) has none: its links are
        parsed, but lead nowhere a partition's rules could say."""
        results = self.link_results
        resolved = len(results) // 3
        return [
            ResolvedLink(raw, results[3 * i] or "", results[3 * i + 1], results[3 * i + 2])
            for i, raw in enumerate(node.links[:resolved])
        ]

    def base_ok(self, lifecycle: str) -> bool:
        return self.valid and not self.duplicate and lifecycle == "active"


RELEASED_FINDINGS: list[Diagnostic] = []
"""Shared by every released Derived (an empty list each would cost 56 bytes);
never appended to, since derivation always starts from a new Derived."""
