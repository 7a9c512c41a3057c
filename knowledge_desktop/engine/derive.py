"""What a record means in the context of its vault, recomputed incrementally.

`parse` judges each file alone. Everything that needs other files lives
here: the partition's ontology (types, fields, filing), duplicate ids, link
resolution, typed references with merge chains, and eligibility (a record is
shown by default only when it is valid, unique, active and everything it
depends on is too).

Incrementality: deriving a record notes every *key* it looked at — a
partition-relative path, a normalised title/alias, an id. When a file
changes, the keys it provides before and after the change are "touched",
and exactly the records that watched them are derived again. Eligibility
then propagates to dependents until nothing changes. A full scan is the same
computation with every record touched.

Memory: the catalog lives as long as the vault is open and holds one `Node`
and one `Derived` per file, so at 100,000 files every hundred bytes per file
is ten megabytes. A `Node` therefore keeps only what derivation and the
projections read, in compact form (tuples, interned names, no frontmatter
dict); the full parse stays in the `files.node` column for whoever needs the
rest (the record pane reads it there). What only a file's own derivation and
projection rows read (its `Detail`, and its `Derived` findings) is let go once
the rows are written and read back from that column when the file is derived
again, which halves the catalog. Index members and watched keys are stored
the cheap way for the common case of one member (see `Index`).
"""

from __future__ import annotations

import posixpath
import sys
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any, Generic, TypeVar

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine import evidence
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.ontology.compose import Activation, Ontology
from knowledge_desktop.engine.ontology.model import Definition
from knowledge_desktop.engine.records import dates
from knowledge_desktop.engine.records.parse import ParsedFile

MAX_MERGE_HOPS = 8
DERIVE_CHUNK = 500
"""Nodes whose detail is read back from the parse cache in one query."""

Window = tuple[str | None, str | None]
"""(inclusive start, exclusive end) as comparable UTC text; None is unbounded."""

Key = tuple[str, str, str]
"""(kind, scope, value): kind 'p' partition path, 'n' normalised name, 'i' id."""

REFERENCE_FIELDS = ("from", "to", "entities", "owner", "dependencies")
"""References whose targets must be available for the record to be eligible."""
HISTORY_FIELDS = ("supersedes", "superseded_by", "merged_into", "merged_from")

RETAINED = (
    "title",
    "aliases",
    "revision",
    "tags",
    "recorded_at",
    "updated_at",
    "occurred_at",
    "due_at",
    "superseded_by",
    "merged_into",
    "source_event",
    "type",
    "claim_kind",
    "label",
    "fields",
)
"""Frontmatter values a Node keeps as they were parsed: what derive and the
projections (catalog, temporal, keyword) read besides ids, kinds, names,
references and evidence, which are kept in their own compact form."""
_SLOT = {key: index for index, key in enumerate(RETAINED)}

LINE_KEYS = frozenset(("id", "type", "label", "fields", *REFERENCE_FIELDS, *HISTORY_FIELDS))
"""Frontmatter keys whose line a derived diagnostic may cite (with fields.* and evidence.N)."""

NO_WINDOW: Window = (None, None)


class _Absent:
    """Marks a RETAINED key the frontmatter does not have (None is a value)."""

    __slots__ = ()


_ABSENT = _Absent()

_intern = sys.intern


@lru_cache(maxsize=65536)
def normalise_name(text: str) -> str:
    """NFKC, lowercase, trimmed, inner whitespace collapsed (spec: retrieval, lookup).

    Interned: the same name is a key in several indexes and in many records'
    watched keys, and one string serves them all.
    """
    return _intern(" ".join(unicodedata.normalize("NFKC", text).lower().split()))


def partition_path(path: str) -> str:
    return path.split("/", 1)[1] if "/" in path else path


@dataclass(slots=True)
class ResolvedLink:
    raw: RawLink
    status: str
    """resolved | missing | ambiguous | outside | broken-merge"""
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
    """Keys looked at while deriving; `Catalog` files them under `watched` once done."""
    watched: tuple[str, ...] = ()
    """(kind, value) of each key whose change re-derives this record, flattened.
    The scope is the record's own: derivation never looks outside its partition."""
    depends_on: tuple[str, ...] = ()
    """Resolved ids of REFERENCE_FIELDS targets, for eligibility."""
    deps_ok: bool = True
    evidence: tuple[evidence.CheckedEvidence, ...] = ()
    own_window: Window = NO_WINDOW
    window: Window = NO_WINDOW
    """When the record counts as current: its own validity/expiry met with its dependencies'."""
    complete: bool = True
    """False once the findings only the projections read (link results, refs,
    evidence, diagnostics) were let go; `Catalog` derives them again when a
    projection row must be rewritten without the record being re-derived."""

    def release_findings(self) -> None:
        self.link_results = ()
        self.refs = ()
        self.evidence = ()
        self.diagnostics = _RELEASED_FINDINGS
        self.complete = False

    def adopt_findings(self, fresh: Derived) -> None:
        self.link_results = fresh.link_results
        self.refs = fresh.refs
        self.evidence = fresh.evidence
        self.diagnostics = fresh.diagnostics
        self.complete = True

    @property
    def watch(self) -> set[Key]:
        """Where derivation (and `evidence.check`) adds the keys it looks at."""
        if self.pending is None:
            self.pending = set(self.watched_keys())
        return self.pending

    def watched_keys(self) -> Iterator[Key]:
        watched = self.watched
        for index in range(0, len(watched), 2):
            yield (watched[index], self.scope, watched[index + 1])

    def resolved_links(self, node: Node) -> list[ResolvedLink]:
        """Each of the node's links with how it resolved."""
        results = self.link_results
        return [
            ResolvedLink(raw, results[3 * i] or "", results[3 * i + 1], results[3 * i + 2])
            for i, raw in enumerate(node.links)
        ]

    def base_ok(self, lifecycle: str) -> bool:
        return self.valid and not self.duplicate and lifecycle == "active"


_RELEASED_FINDINGS: list[Diagnostic] = []
"""Shared by every released Derived (an empty list each would cost 56 bytes);
never appended to, since derivation always starts from a new Derived."""


class KeyLines(tuple[str | int, ...]):
    """Frontmatter key -> line, flattened (key, line, key, line …); `get` as on a dict.

    A dict per record costs several hundred bytes; derivation needs a handful
    of lines, and only when it writes a diagnostic.
    """

    __slots__ = ()

    @classmethod
    def keep(cls, key_lines: Mapping[str, int]) -> KeyLines:
        flat: list[str | int] = []
        for key, line in key_lines.items():
            if (
                key in LINE_KEYS
                or key.startswith("fields.")
                or (key.startswith("evidence.") and key.count(".") == 1)
            ):
                flat += (_intern(key), line)
        return cls(flat)

    def get(self, key: str, default: int | None = None) -> int | None:
        for index in range(0, len(self), 2):
            if self[index] == key:
                line = self[index + 1]
                return line if isinstance(line, int) else default
        return default


EvidenceItem = tuple[str | None, str | None, str | None, tuple[int, int] | None, str | None] | None
"""One evidence mapping as (source, path, url, lines, sha256), each None unless
well-typed; None for an entry that is not a mapping (it still takes an index)."""


class StaleDetail(RuntimeError):
    """The parse cache no longer holds the file a node describes (a bug, or the
    state database changed under the open vault)."""


class Detail:
    """What deriving one file reads of it that no other file's derivation does.

    Frontmatter values, links, evidence locators and key lines are over half
    of a node's weight but are read only when the file itself is derived or
    its projection rows are written. A catalog with a `DetailSource` therefore
    lets them go once the rows are written and reads them back from the parse
    cache (`files.node`) when the file is derived again.
    """

    __slots__ = ("evidence_items", "key_lines", "link_parts", "values")

    def __init__(self, parsed: ParsedFile, data: dict[str, Any], is_record: bool) -> None:
        self.key_lines = KeyLines.keep(parsed.key_lines)
        parts: list[str | int | None] = []
        for link in parsed.links:
            parts += (
                link.kind,
                _intern(link.target),
                _intern(link.label) if link.label is not None else None,
                link.line,
            )
        self.link_parts: tuple[str | int | None, ...] = tuple(parts)
        """(kind, target, label, line) per link, flattened: a RawLink each costs 72 bytes more."""
        self.values: tuple[Any, ...] | None = (
            tuple(_retained(key, data[key]) if key in data else _ABSENT for key in RETAINED) if data else None
        )
        self.evidence_items: tuple[EvidenceItem, ...] | None = (
            _evidence(data.get("evidence")) if is_record else None
        )

    def value(self, key: str) -> Any:
        if self.values is None:
            return None
        found = self.values[_SLOT[key]]
        return None if found is _ABSENT else found


class DetailSource:
    """Reads released details back from the parse cache, and knows which
    nodes hold one, so that they can all be let go after a write."""

    __slots__ = ("_holding", "_read")

    def __init__(self, read: Callable[[list[str]], Iterable[Node]]) -> None:
        self._read = read
        """Fresh nodes for the given paths, from the parse cache."""
        self._holding: set[Node] = set()

    def adopt(self, node: Node) -> None:
        """Take charge of a node built from a new parse (released after its write)."""
        node.source = self
        if node.holds_detail:
            self._holding.add(node)

    def fill(self, nodes: Iterable[Node]) -> None:
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

    def release(self, nodes: Iterable[Node] | None = None) -> None:
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


class Node:
    """One candidate file: what derivation and the projections read of its parse.

    Built from a `ParsedFile`, which is not kept. Names that recur across
    files (scope, kind, lifecycle, type, field names, ids, link targets) are
    interned so each is stored once. `data` and `parsed` give readers written
    against the parse (evidence.py, keyword.py) the same answers for what a
    Node keeps.
    """

    __slots__ = (
        "_detail",
        "body_chars",
        "body_line",
        "declared_type",
        "diagnostics",
        "id",
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
        self.sha256 = parsed.sha256
        self.size = parsed.size
        self.body_line = parsed.body_line
        self.body_chars = parsed.body_chars
        self.structurally_valid = parsed.structurally_valid
        self.diagnostics: tuple[Diagnostic, ...] = tuple(parsed.diagnostics)
        data = parsed.data or {}
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
        self.refs: tuple[tuple[str, str], ...] = ref_targets(data) if self.is_record else ()
        window = own_window(data) if self.is_record and self.kind in ("claim", "relationship") else NO_WINDOW
        self.window: Window = NO_WINDOW if window == NO_WINDOW else window  # most are unbounded: share one

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

    def take_detail(self, other: Node) -> None:
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
    def data(self) -> dict[str, Any]:
        """The frontmatter as far as it is kept (RETAINED keys, evidence locators).

        Built on each call, for readers that expect the parse's mapping.
        """
        out: dict[str, Any] = {}
        values = self.detail.values
        if values is not None:
            out = {k: v for k, v in zip(RETAINED, values, strict=True) if v is not _ABSENT}
        if self.evidence_items is not None:
            out["evidence"] = [
                None
                if item is None
                else {
                    "source": item[0],
                    "path": item[1],
                    "url": item[2],
                    "lines": list(item[3]) if item[3] is not None else None,
                    "sha256": item[4],
                }
                for item in self.evidence_items
            ]
        return out

    @property
    def parsed(self) -> Node:
        """The node itself: it carries the parse's attributes that are kept
        (path, scope, sha256, size, body_line, body_chars, key_lines, links,
        diagnostics, structurally_valid) for readers written as `node.parsed.X`."""
        return self

    def identity_signature(self) -> tuple[object, ...]:
        """What records referring to this id by id may read of it."""
        return (
            self.id,
            self.kind,
            self.lifecycle,
            self.value("merged_into"),
            self.value("type"),
            self.structurally_valid,
        )

    def provided_keys(self) -> set[Key]:
        """Keys whose meaning this file contributes to (what others may watch)."""
        scope = self.scope or ""
        keys: set[Key] = {("p", scope, self.rel)}
        if self.is_record:
            keys.update(("n", scope, name) for name in self.names)
            if self.id:
                keys.add(("i", scope, self.id))
        return keys


def _retained(key: str, value: Any) -> Any:
    """A RETAINED value in its cheapest equal form: recurring strings interned."""
    if key in ("type", "claim_kind", "label", "merged_into", "superseded_by") and isinstance(value, str):
        return _intern(value)
    if key == "tags" and isinstance(value, list):
        return [_intern(v) if isinstance(v, str) else v for v in value]
    if key == "fields" and isinstance(value, dict):
        return {_intern(k) if isinstance(k, str) else k: v for k, v in value.items()}
    return value


def _evidence(items: Any) -> tuple[EvidenceItem, ...] | None:
    """Evidence as the locators `evidence.check` reads; quotes and attribution are dropped."""
    if not isinstance(items, list):
        return None
    out: list[EvidenceItem] = []
    for item in items:
        if not isinstance(item, dict):
            out.append(None)
            continue
        source, path, url, sha = (item.get(k) for k in ("source", "path", "url", "sha256"))
        lines = evidence.cited_lines(item.get("lines"))
        out.append(
            (
                _intern(source) if isinstance(source, str) else None,
                path if isinstance(path, str) else None,
                url if isinstance(url, str) else None,
                lines,
                sha if isinstance(sha, str) else None,
            )
        )
    return tuple(out)


def _names(data: dict[str, Any]) -> tuple[str, ...]:
    out = [data.get("title")]
    aliases = data.get("aliases")
    if isinstance(aliases, list):
        out.extend(aliases)
    return tuple(normalise_name(n) for n in out if isinstance(n, str) and n.strip())


def ref_targets(data: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for name in _REF_NAMES:
        value = data.get(name)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        out.extend((name, _intern(v)) for v in values if isinstance(v, str) and v)
    return tuple(out)


_REF_NAMES = REFERENCE_FIELDS + HISTORY_FIELDS


class Catalog:
    """The in-memory picture of a vault that derivation works on."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.derived: dict[str, Derived] = {}
        self.ontologies: dict[str, Activation] = {}
        self.ids: Index[str] = Index()
        """scope -> record id -> files holding it."""
        self.names: Index[str] = Index()
        """scope -> normalised title or alias -> files."""
        self.paths = PathIndex(self.nodes)
        self.watchers: Index[tuple[str, str]] = Index()
        """(key kind, scope) -> value -> files whose derivation looked at the key."""
        self.dependents: Index[str] = Index()
        """scope -> id -> files whose eligibility depends on it."""
        self.probe: evidence.FileProbe | None = None
        """Reads vault files for evidence hashes; set by the reconciler."""
        self.details: DetailSource | None = None
        """Set by the reconciler: nodes may then let their detail go (see `Detail`),
        and derived states their findings."""
        self._complete: set[str] = set()
        """Paths whose derived findings are held until `release`."""

    # -- index maintenance -------------------------------------------------
    def _index(self, node: Node, add: bool) -> None:
        scope = node.scope or ""
        if node.id:
            self.ids.toggle(scope, node.id, node.path, add)
        for name in node.names:
            self.names.toggle(scope, name, node.path, add)

    def _set_derived(self, path: str, derived: Derived | None) -> None:
        old = self.derived.pop(path, None)
        if old is not None:
            for kind, scope, value in old.watched_keys():
                self.watchers.toggle((kind, scope), value, path, False)
            for target in old.depends_on:
                self.dependents.toggle(old.scope, target, path, False)
        if derived is not None:
            self.derived[path] = derived
            if self.details is not None:
                self._complete.add(path)
            watched: list[str] = []
            for kind, scope, value in derived.pending or ():
                shared = _intern(value)  # many records watch the same path, name or id
                watched += (kind, shared)
                self.watchers.toggle((kind, scope), shared, path, True)
            derived.watched = tuple(watched)
            derived.pending = None
            for target in derived.depends_on:
                self.dependents.toggle(derived.scope, target, path, True)

    # -- the incremental step ----------------------------------------------
    def apply(
        self,
        changed: Mapping[str, Node | ParsedFile | None],
        ontology_changed: Iterable[str] = (),
        *,
        stream: bool = False,
    ) -> set[str]:
        """Replace/remove the given files and re-derive what depends on them.

        Returns the paths whose derived state was recomputed (removed paths
        included), which is what the store must rewrite.

        `stream`: every node given is already in the parse cache and nothing
        will be written (loading the catalog), so each chunk of nodes lets its
        detail go as soon as it is derived and the whole set is never in
        memory at once.
        """
        touched: set[Key] = set()
        details = self.details
        for path, given in changed.items():
            old = self.nodes.get(path)
            new = Node(given) if isinstance(given, ParsedFile) else given
            if new is not None and details is not None:
                details.adopt(new)
            touched |= _touched_keys(old, new)
            if old is not None:
                self._index(old, False)
                del self.nodes[path]
            if new is not None:
                self.nodes[path] = new
                self._index(new, True)
        redo: set[str] = {p for p in changed if p in self.nodes}
        for key in touched:
            redo.update(self.watchers.get((key[0], key[1]), key[2]))
            if key[0] == "i":
                redo.update(self.ids.get(key[1], key[2]))
        scopes = set(ontology_changed)
        if scopes:
            redo |= {p for p, n in self.nodes.items() if n.scope in scopes}
        for path in changed:
            if path not in self.nodes:
                self._set_derived(path, None)
        ordered = sorted(p for p in redo if p in self.nodes)
        for start in range(0, len(ordered), DERIVE_CHUNK):
            chunk = [self.nodes[p] for p in ordered[start : start + DERIVE_CHUNK]]
            if details is not None:
                details.fill(chunk)  # one query for the chunk, not one per node
            for node in chunk:
                self._set_derived(node.path, self._derive(node))
            if stream and details is not None:
                details.release(chunk)
                for node in chunk:
                    self.derived[node.path].release_findings()
                    self._complete.discard(node.path)
        recomputed = set(redo) | {p for p in changed if p not in self.nodes}
        flipped = self._propagate_eligibility(redo)
        self._complete_findings(flipped)
        return recomputed | flipped

    def _complete_findings(self, paths: Iterable[str]) -> None:
        """Derive again the released findings of records whose rows must be
        rewritten although nothing they looked at changed (their eligibility
        flipped): the same inputs give the same findings."""
        wanted = [self.nodes[p] for p in sorted(paths) if p in self.derived and not self.derived[p].complete]
        if not wanted:
            return
        if self.details is not None:
            self.details.fill(wanted)
        for node in wanted:
            self.derived[node.path].adopt_findings(self._derive(node))
            self._complete.add(node.path)

    def release(self) -> None:
        """Once the projections are written: let go of what only derivation
        and the projection writers read (node details, derived findings)."""
        if self.details is None:
            return
        self.details.release()
        for path in self._complete:
            derived = self.derived.get(path)
            if derived is not None:
                derived.release_findings()
        self._complete.clear()

    def _eligible_tuple(self, path: str) -> tuple[bool, bool, Window]:
        derived = self.derived[path]
        return (derived.base_ok(self.nodes[path].lifecycle), derived.deps_ok, derived.window)

    def _propagate_eligibility(self, seeds: set[str]) -> set[str]:
        """Recompute deps_ok for seeds and their transitive dependents.

        Greatest fixpoint: assume every record in the region is ok, then knock
        out records with an unavailable dependency until nothing changes (so
        a dependency cycle among available records stays available).
        Returns the dependents outside `seeds` whose eligibility flipped.
        """
        region: set[str] = set()
        frontier = [p for p in seeds if p in self.derived]
        while frontier:
            path = frontier.pop()
            if path in region:
                continue
            region.add(path)
            node = self.nodes[path]
            if node.id:
                frontier.extend(self.dependents.get(node.scope or "", node.id))
        before = {p: self._eligible_tuple(p) for p in region if p not in seeds}
        for path in region:
            self.derived[path].deps_ok = True
            self.derived[path].window = self.derived[path].own_window
        changed_any = True
        while changed_any:
            changed_any = False
            for path in region:
                derived = self.derived[path]
                if derived.deps_ok and not self._deps_available(path, derived):
                    derived.deps_ok = False
                    changed_any = True
                window = self._dependency_window(path, derived)
                if window != derived.window:
                    derived.window = window
                    changed_any = True
        return {p for p, was in before.items() if was != self._eligible_tuple(p)}

    def _dependency_window(self, path: str, derived: Derived) -> Window:
        start, end = derived.own_window
        scope = self.nodes[path].scope or ""
        for target in derived.depends_on:
            paths = self.ids.get(scope, target)
            if len(paths) == 1:
                other = self.derived.get(next(iter(paths)))
                if other is not None:
                    start, end = _intersect((start, end), other.window)
        return start, end

    def _deps_available(self, path: str, derived: Derived) -> bool:
        scope = self.nodes[path].scope or ""
        for target in derived.depends_on:
            paths = self.ids.get(scope, target)
            if len(paths) != 1:
                return False
            target_path = next(iter(paths))
            target_derived = self.derived.get(target_path)
            if target_derived is None:
                return False
            if not (target_derived.base_ok(self.nodes[target_path].lifecycle) and target_derived.deps_ok):
                return False
        return True

    # -- deriving one record -----------------------------------------------
    def _derive(self, node: Node) -> Derived:
        scope = node.scope or ""
        derived = Derived(scope=scope)
        if not node.id:
            derived.watch.add(("i", scope, ""))
        # A record needs no watch on its own id: `apply` re-derives every file
        # holding a touched id through the ids index (that is what finds duplicates).
        if not node.is_record:
            return derived
        record_id = node.id
        diags = derived.diagnostics
        same_id = self.ids.get(scope, record_id or "")
        derived.duplicate = len(same_id) > 1
        if derived.duplicate:
            others = sorted(p for p in same_id if p != node.path)
            diags.append(
                dg.make(
                    "duplicate-id",
                    node.path,
                    f"id {record_id!r} is also used by {', '.join(others)}",
                    line=node.key_lines.get("id"),
                    record_id=record_id,
                )
            )
        valid = node.structurally_valid
        activation = self.ontologies.get(scope)
        ontology = activation.ontology if activation else None
        kind = node.kind
        if kind == "page":
            valid &= self._check_page(node, ontology, derived)
        elif kind == "claim":
            claim_kind = node.value("claim_kind")
            derived.type = _intern(str(claim_kind)) if claim_kind else None
            self._check_filing(node, "claims/", "claims", derived)
        elif kind == "relationship":
            valid &= self._check_relationship_label(node, ontology, derived)
        valid &= self._resolve_refs(node, derived)
        derived.evidence = tuple(evidence.check(self, node, derived, self.probe))
        results: list[str | None] = []
        for raw in node.links:
            resolved = self._resolve_link(node, raw, derived.watch)
            results += (resolved.status, resolved.target_id, resolved.target_path)
            if resolved.status != "resolved":
                diags.append(_link_diagnostic(node, resolved))
        derived.link_results = tuple(results)
        derived.valid = valid
        derived.own_window = node.window
        derived.window = derived.own_window
        return derived

    def _check_page(self, node: Node, ontology: Ontology | None, derived: Derived) -> bool:
        diags = derived.diagnostics
        declared = node.value("type") if isinstance(node.value("type"), str) else None
        if ontology is None:
            diags.append(
                dg.make(
                    "ontology-unavailable",
                    node.path,
                    f"partition {node.scope!r} has no active ontology",
                    line=node.key_lines.get("type"),
                    record_id=node.id,
                )
            )
            derived.type = declared
            return False
        if declared is None:
            derived.type = ontology.classify(node.rel)
            if derived.type is None:
                diags.append(
                    dg.make(
                        "unclassified-page",
                        node.path,
                        "no type, and no ontology prefix matches this path",
                        record_id=node.id,
                    )
                )
                return True
        else:
            derived.type = declared
        definition = ontology.definitions.get(derived.type)
        if definition is None or definition.kind != "page":
            what = "a relationship label" if definition else "not defined"
            diags.append(
                dg.make(
                    "unknown-type",
                    node.path,
                    f"type {derived.type!r} is {what} in ontology {ontology.name!r}",
                    line=node.key_lines.get("type"),
                    record_id=node.id,
                )
            )
            return False
        ok = _check_fields(node, definition, diags)
        if definition.directory:
            self._check_filing(node, definition.directory, definition.name, derived)
        return ok

    def _check_relationship_label(self, node: Node, ontology: Ontology | None, derived: Derived) -> bool:
        diags = derived.diagnostics
        label = node.value("label") if isinstance(node.value("label"), str) else None
        derived.type = label
        if ontology is None:
            diags.append(
                dg.make(
                    "ontology-unavailable",
                    node.path,
                    f"partition {node.scope!r} has no active ontology",
                    line=node.key_lines.get("label"),
                    record_id=node.id,
                )
            )
            return False
        if label is None:
            return False
        definition = ontology.definitions.get(label)
        if definition is None or definition.kind != "relationship":
            diags.append(
                dg.make(
                    "unknown-relationship-label",
                    node.path,
                    f"label {label!r} is not a relationship in ontology {ontology.name!r}",
                    line=node.key_lines.get("label"),
                    record_id=node.id,
                )
            )
            return False
        if definition.directory:
            self._check_filing(node, definition.directory, label, derived)
        return True

    def _check_filing(self, node: Node, directory: str, what: str, derived: Derived) -> None:
        if not node.rel.startswith(directory):
            derived.diagnostics.append(
                dg.make(
                    "misfiled", node.path, f"{what} records are filed under {directory}", record_id=node.id
                )
            )

    def follow_merges(self, scope: str, target: str, watch: set[Key]) -> tuple[str | None, str | None, str]:
        """Resolve an id through merged_into. Returns (final id, final path, status)."""
        seen = [target]
        current = target
        for _ in range(MAX_MERGE_HOPS + 1):
            watch.add(("i", scope, current))
            paths = self.ids.get(scope, current)
            if not paths:
                return None, None, "missing" if len(seen) == 1 else "broken-merge"
            if len(paths) > 1:
                return None, None, "duplicate"
            path = next(iter(paths))
            node = self.nodes[path]
            if node.lifecycle != "merged":
                return current, path, "resolved"
            following = node.value("merged_into")
            if not isinstance(following, str) or following in seen:
                return None, None, "broken-merge"
            seen.append(following)
            current = following
        return None, None, "broken-merge"

    def _resolve_refs(self, node: Node, derived: Derived) -> bool:
        scope = node.scope or ""
        ok = True
        lines = node.key_lines
        refs: list[ResolvedRef] = []
        depends_on: list[str] = []
        for field_name, target in node.refs:
            if field_name in HISTORY_FIELDS:
                final, final_path, status = self._history_target(scope, target, derived.watch)
            else:
                final, final_path, status = self.follow_merges(scope, target, derived.watch)
            if status == "resolved" and field_name in ("from", "to", "entities", "owner"):
                target_node = self.nodes[final_path or ""]
                if target_node.kind != "page":
                    status = "wrong-kind"
            refs.append(ResolvedRef(field_name, target, final, status))
            if field_name in REFERENCE_FIELDS and final is not None and status == "resolved":
                depends_on.append(final)
            if status == "resolved":
                continue
            line = lines.get(field_name)
            if field_name in HISTORY_FIELDS:
                if status == "missing" and field_name in ("superseded_by", "merged_into"):
                    derived.diagnostics.append(
                        dg.make(
                            "reference-missing",
                            node.path,
                            f"{field_name} names {target!r}, which is not in this partition",
                            line=line,
                            record_id=node.id,
                        )
                    )
                continue
            ok = False
            if status == "wrong-kind":
                derived.diagnostics.append(
                    dg.make(
                        "reference-wrong-kind",
                        node.path,
                        f"{field_name} must name a page; {target!r} is a {self.nodes[final_path or ''].kind}",
                        line=line,
                        record_id=node.id,
                    )
                )
            elif status == "broken-merge":
                derived.diagnostics.append(
                    dg.make(
                        "merge-chain-invalid",
                        node.path,
                        f"{field_name} {target!r} leads into a broken merge chain",
                        line=line,
                        record_id=node.id,
                    )
                )
            else:
                reason = "matches no record" if status == "missing" else "is a duplicate id"
                derived.diagnostics.append(
                    dg.make(
                        "reference-missing",
                        node.path,
                        f"{field_name} {target!r} {reason}",
                        line=line,
                        record_id=node.id,
                    )
                )
        derived.refs = tuple(refs)
        derived.depends_on = tuple(depends_on)
        if node.kind == "relationship":
            ok &= self._check_endpoints(node, derived)
        if node.lifecycle == "merged":
            final, _, status = self.follow_merges(scope, node.id or "", derived.watch)
            if status != "resolved":
                derived.diagnostics.append(
                    dg.make(
                        "merge-chain-invalid",
                        node.path,
                        "merged_into does not reach an active page within "
                        f"{MAX_MERGE_HOPS} hops (cycle, dead end or too long)",
                        line=lines.get("merged_into"),
                        record_id=node.id,
                    )
                )
                ok = False
        return ok

    def _history_target(self, scope: str, target: str, watch: set[Key]) -> tuple[str | None, str | None, str]:
        watch.add(("i", scope, target))
        paths = self.ids.get(scope, target)
        if not paths:
            return None, None, "missing"
        return target, next(iter(paths)), "resolved"

    def _check_endpoints(self, node: Node, derived: Derived) -> bool:
        activation = self.ontologies.get(node.scope or "")
        ontology = activation.ontology if activation else None
        label = node.value("label")
        if ontology is None or not isinstance(label, str):
            return True
        definition = ontology.definitions.get(label)
        if definition is None:
            return True
        ok = True
        for ref in derived.refs:
            allowed = (
                definition.from_types
                if ref.field == "from"
                else (definition.to_types if ref.field == "to" else None)
            )
            if not allowed or ref.status != "resolved" or ref.resolved_id is None:
                continue
            target_path = next(iter(self.ids.get(node.scope or "", ref.resolved_id)))
            target_type = self.page_type(target_path)
            derived.watch.add(("i", node.scope or "", ref.resolved_id))
            if target_type not in allowed:
                ok = False
                derived.diagnostics.append(
                    dg.make(
                        "endpoint-type-not-permitted",
                        node.path,
                        f"{label} needs {ref.field} to be a {' or '.join(allowed)} page; "
                        f"{ref.resolved_id!r} is a {target_type or 'untyped'} page",
                        line=node.key_lines.get(ref.field),
                        record_id=node.id,
                    )
                )
        return ok

    def page_type(self, path: str) -> str | None:
        """A page's declared type, else its classification (independent of derive order)."""
        node = self.nodes[path]
        declared = node.value("type")
        if isinstance(declared, str):
            return declared
        activation = self.ontologies.get(node.scope or "")
        if activation and activation.ontology:
            return activation.ontology.classify(partition_path(path))
        return None

    def _resolve_link(self, node: Node, raw: RawLink, watch: set[Key]) -> ResolvedLink:
        scope = node.scope or ""
        if raw.kind == "wiki":
            candidate, name = _wiki_keys(raw.target)
        else:
            candidate, name = _markdown_keys(node.rel, raw.target)
        if candidate is None:
            return ResolvedLink(raw, "outside")
        matches: set[str] = set()
        if candidate:
            watch.add(("p", scope, candidate))
            hit = self.paths.get((scope, candidate))
            if hit is not None and self.nodes[hit].is_record:
                matches.add(hit)
        if name:
            watch.add(("n", scope, name))
            named_paths = self.names.get(scope, name)
            if named_paths:
                matches = matches.union(named_paths)
        if not matches:
            return ResolvedLink(raw, "missing")
        # Names that reach one page through merges are one target: the survivor
        # gains the absorbed page's title and aliases, so both match.
        if len(matches) == 1:
            only = self.nodes[next(iter(matches))].id or ""
            final, final_path, status = self.follow_merges(scope, only, watch)
            named = only
        else:
            outcomes = {self.follow_merges(scope, self.nodes[p].id or "", watch) for p in matches}
            if len(outcomes) > 1:
                return ResolvedLink(raw, "ambiguous")
            ((final, final_path, status),) = outcomes
            named = min(self.nodes[p].id or "" for p in matches)
        if status == "duplicate":
            return ResolvedLink(raw, "ambiguous", named)
        if status != "resolved":
            return ResolvedLink(raw, "broken-merge", named)
        return ResolvedLink(raw, "resolved", final, final_path)


@lru_cache(maxsize=65536)
def _wiki_keys(target: str) -> tuple[str | None, str]:
    """(partition-relative .md path or "", normalised name); path None when it leaves."""
    target = target.strip()
    candidate = posixpath.normpath(target.lstrip("/")) if target else ""
    return _md_path(candidate), normalise_name(target)


def _markdown_keys(source_rel: str, target: str) -> tuple[str | None, str]:
    candidate = posixpath.normpath(posixpath.join(posixpath.dirname(source_rel), target))
    return _md_path(candidate), ""


def release_caches() -> None:
    """Empty the memo caches of name and wikilink normalisation.

    They pay off while a scan resolves the same targets again and again, and
    would otherwise keep up to 65,536 entries each for as long as the vault
    is open.
    """
    normalise_name.cache_clear()
    _wiki_keys.cache_clear()


def _md_path(candidate: str) -> str | None:
    if candidate == ".." or candidate.startswith("../"):
        return None
    if candidate and not candidate.lower().endswith(".md"):
        candidate += ".md"
    return candidate


def own_window(data: dict[str, Any]) -> Window:
    """A claim's or relationship's validity and expiry as one half-open window.

    valid_from is inclusive, valid_until exclusive, and expires_at is the
    last instant the assertion is active (spec: Optional assertion fields).
    """

    def stamp(key: str, after: bool = False) -> str | None:
        value = data.get(key)
        if not isinstance(value, str):
            return None
        try:
            instant = dates.parse_timestamp(value, utc_only=True)
        except dates.DateFormatError:
            return None
        if after:
            instant += timedelta(microseconds=1)
        return instant.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    ends = [e for e in (stamp("valid_until"), stamp("expires_at", after=True)) if e]
    return stamp("valid_from"), min(ends) if ends else None


def _intersect(a: Window, b: Window) -> Window:
    starts = [s for s in (a[0], b[0]) if s]
    ends = [e for e in (a[1], b[1]) if e]
    return (max(starts) if starts else None, min(ends) if ends else None)


def _touched_keys(old: Node | None, new: Node | None) -> set[Key]:
    """Keys whose meaning a change of one file alters (what its watchers must redo)."""
    if old is None or new is None:
        node = old or new
        return node.provided_keys() if node is not None else set()
    if old.id != new.id or old.is_record != new.is_record:
        return old.provided_keys() | new.provided_keys()
    keys = old.provided_keys() ^ new.provided_keys()
    if old.identity_signature() != new.identity_signature():
        keys.add(("i", new.scope or "", new.id or ""))
    return keys


Members = str | tuple[str, ...] | set[str]
"""An index entry: the one path (the common case), a tuple of a few, or a set of many.

Most ids, names and watched keys have exactly one file behind them, and most
of the rest a few dozen at most; a set costs over 200 bytes even for one
member, and over 700 from five, where a tuple of five costs 80.
"""

SMALL = 64
"""Up to this many members an entry is a tuple: 8 bytes a member where a set
takes 30-50, for a copy of at most 64 pointers when a member comes or goes."""


Group = TypeVar("Group", str, tuple[str, str])


class Index(Generic[Group]):
    """Paths filed under (group, value): group a scope or (key kind, scope).

    Nested by group rather than keyed by tuples: at 100,000 records the
    tuple keys alone would take tens of megabytes.
    """

    __slots__ = ("_groups",)

    def __init__(self) -> None:
        self._groups: dict[Group, dict[str, Members]] = {}

    def get(self, group: Group, value: str) -> Collection[str]:
        """The paths filed under (group, value), empty when none."""
        found = self._groups.get(group, _NO_MEMBERS).get(value)
        if found is None:
            return ()
        return (found,) if isinstance(found, str) else found

    def toggle(self, group: Group, value: str, path: str, add: bool) -> None:
        """File path under (group, value), or take it out."""
        entries = self._groups.get(group)
        if entries is None:
            if not add:
                return
            entries = self._groups[group] = {}
        stored = entries.get(value)
        if stored is None:
            if add:
                entries[value] = path
            return
        found: tuple[str, ...] | set[str] = (stored,) if isinstance(stored, str) else stored
        if add:
            if isinstance(found, set):
                found.add(path)
            elif path not in found:
                entries[value] = (*found, path) if len(found) < SMALL else {*found, path}
        elif isinstance(found, set):
            found.discard(path)
            if len(found) <= SMALL // 2:
                entries[value] = tuple(found)
        elif path in found:
            rest = tuple(p for p in found if p != path)
            if not rest:
                del entries[value]
            else:
                entries[value] = rest[0] if len(rest) == 1 else rest

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._groups.values())


_NO_MEMBERS: dict[str, Members] = {}


class PathIndex:
    """(scope, partition-relative path) -> vault path, answered from the nodes.

    A file's vault path is its scope and its partition path joined, so no
    second map (and no second copy of every path) is needed.
    """

    __slots__ = ("_nodes",)

    def __init__(self, nodes: dict[str, Node]) -> None:
        self._nodes = nodes

    def get(self, key: tuple[str, str]) -> str | None:
        scope, rel = key
        path = f"{scope}/{rel}" if scope else rel
        node = self._nodes.get(path)
        if node is None or (node.scope or "") != scope or (not scope and "/" in rel):
            return None  # (the last: a file outside partitions has its whole path as rel)
        return node.path


def _link_diagnostic(node: Node, link: ResolvedLink) -> Diagnostic:
    raw = link.raw
    shown = f"[[{raw.target}]]" if raw.kind == "wiki" else f"({raw.target})"
    line = node.body_line + raw.line
    if link.status == "ambiguous":
        return dg.make(
            "link-ambiguous", node.path, f"link {shown} matches several records", line=line, record_id=node.id
        )
    if link.status == "outside":
        return dg.make(
            "link-outside-partition",
            node.path,
            f"link {shown} leaves the partition",
            line=line,
            record_id=node.id,
        )
    if link.status == "broken-merge":
        return dg.make(
            "merge-chain-invalid",
            node.path,
            f"link {shown} points at a page whose merge chain is broken",
            line=line,
            record_id=node.id,
        )
    return dg.make("link-missing", node.path, f"link {shown} matches no record", line=line, record_id=node.id)


def _check_fields(node: Node, definition: Definition, diags: list[Diagnostic]) -> bool:
    raw = node.value("fields")
    values: dict[str, Any] = raw if isinstance(raw, dict) else {}
    lines = node.key_lines
    ok = True
    declared = {f.name: f for f in definition.fields}
    for spec in definition.fields:
        line = lines.get(f"fields.{spec.name}", lines.get("fields"))
        if spec.name not in values:
            if spec.required:
                ok = False
                diags.append(
                    dg.make(
                        "field-invalid",
                        node.path,
                        f"fields.{spec.name} is required for {definition.name} pages",
                        line=lines.get("fields", lines.get("type")),
                        record_id=node.id,
                    )
                )
            continue
        value = values[spec.name]
        problem = _field_problem(spec.type, spec.values, value)
        if problem:
            ok = False
            diags.append(
                dg.make(
                    "field-invalid", node.path, f"fields.{spec.name}: {problem}", line=line, record_id=node.id
                )
            )
    for name in values:
        if name not in declared:
            diags.append(
                dg.make(
                    "field-undeclared",
                    node.path,
                    f"fields.{name} is not declared for {definition.name} pages",
                    line=lines.get(f"fields.{name}"),
                    record_id=node.id,
                )
            )
    return ok


def _field_problem(kind: str, allowed: list[str] | None, value: Any) -> str | None:
    if kind == "string":
        if not isinstance(value, str):
            return f"expected text, found {_type_name(value)}"
        if allowed is not None and value not in allowed:
            return f"{value!r} is not one of {', '.join(allowed)}"
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected a number, found {_type_name(value)}"
    elif kind == "boolean":
        if not isinstance(value, bool):
            return f"expected true or false, found {_type_name(value)}"
    elif kind == "string-array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"expected a list of text values, found {_type_name(value)}"
        if allowed is not None:
            bad = [v for v in value if v not in allowed]
            if bad:
                return f"{', '.join(map(repr, bad))} not among {', '.join(allowed)}"
    return None


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "text"
