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
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine import evidence
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.ontology.compose import Activation, Ontology
from knowledge_desktop.engine.ontology.model import Definition
from knowledge_desktop.engine.records import dates
from knowledge_desktop.engine.records.parse import ParsedFile

MAX_MERGE_HOPS = 8

Window = tuple[str | None, str | None]
"""(inclusive start, exclusive end) as comparable UTC text; None is unbounded."""

Key = tuple[str, str, str]
"""(kind, scope, value): kind 'p' partition path, 'n' normalised name, 'i' id."""

REFERENCE_FIELDS = ("from", "to", "entities", "owner", "dependencies")
"""References whose targets must be available for the record to be eligible."""
HISTORY_FIELDS = ("supersedes", "superseded_by", "merged_into", "merged_from")


@lru_cache(maxsize=65536)
def normalise_name(text: str) -> str:
    """NFKC, lowercase, trimmed, inner whitespace collapsed (spec: retrieval, lookup)."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


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
    links: list[ResolvedLink] = field(default_factory=list)
    refs: list[ResolvedRef] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    watch: set[Key] = field(default_factory=set)
    depends_on: list[str] = field(default_factory=list)
    """Resolved ids of REFERENCE_FIELDS targets, for eligibility."""
    deps_ok: bool = True
    evidence: list[evidence.CheckedEvidence] = field(default_factory=list)
    own_window: Window = (None, None)
    window: Window = (None, None)
    """When the record counts as current: its own validity/expiry met with its dependencies'."""

    def base_ok(self, lifecycle: str) -> bool:
        return self.valid and not self.duplicate and lifecycle == "active"


class Node:
    """One candidate file as parse left it, with the facts derive reads most, computed once."""

    __slots__ = ("data", "id", "is_record", "kind", "lifecycle", "names", "parsed", "path", "rel", "scope")

    def __init__(self, parsed: ParsedFile) -> None:
        self.parsed = parsed
        self.path = parsed.path
        self.rel = partition_path(parsed.path)
        self.scope = parsed.scope
        self.is_record = parsed.status == "record" and parsed.scope is not None
        self.data: dict[str, Any] = parsed.data or {}
        data = self.data
        self.id: str | None = parsed.record_id if self.is_record else None
        self.kind: str | None = str(data["kind"]) if self.is_record else None
        self.lifecycle: str = str(data.get("lifecycle", "active")) if self.is_record else "active"
        self.names: list[str] = _names(data) if self.is_record else []

    def identity_signature(self) -> tuple[object, ...]:
        """What records referring to this id by id may read of it."""
        data = self.data
        return (
            self.id,
            self.kind,
            self.lifecycle,
            data.get("merged_into"),
            data.get("type"),
            self.parsed.structurally_valid,
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


def _names(data: dict[str, Any]) -> list[str]:
    out = [data.get("title")]
    aliases = data.get("aliases")
    if isinstance(aliases, list):
        out.extend(aliases)
    return [normalise_name(n) for n in out if isinstance(n, str) and n.strip()]


def ref_targets(data: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name in REFERENCE_FIELDS + HISTORY_FIELDS:
        value = data.get(name)
        values = value if isinstance(value, list) else [value]
        out.extend((name, v) for v in values if isinstance(v, str) and v)
    return out


class Catalog:
    """The in-memory picture of a vault that derivation works on."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.derived: dict[str, Derived] = {}
        self.ontologies: dict[str, Activation] = {}
        self.ids: dict[tuple[str, str], set[str]] = {}
        self.names: dict[tuple[str, str], set[str]] = {}
        self.paths: dict[tuple[str, str], str] = {}
        self.watchers: dict[Key, set[str]] = {}
        self.dependents: dict[tuple[str, str], set[str]] = {}
        self.probe: evidence.FileProbe | None = None
        """Reads vault files for evidence hashes; set by the reconciler."""

    # -- index maintenance -------------------------------------------------
    def _index(self, node: Node, add: bool) -> None:
        scope = node.scope or ""
        pkey = (scope, node.rel)
        if add:
            self.paths[pkey] = node.path
        elif self.paths.get(pkey) == node.path:
            del self.paths[pkey]
        if node.id:
            _toggle(self.ids, (scope, node.id), node.path, add)
        for name in node.names:
            _toggle(self.names, (scope, name), node.path, add)

    def _set_derived(self, path: str, derived: Derived | None) -> None:
        old = self.derived.pop(path, None)
        if old is not None:
            for key in old.watch:
                _toggle(self.watchers, key, path, False)
            for target in old.depends_on:
                _toggle(self.dependents, (old.scope, target), path, False)
        if derived is not None:
            self.derived[path] = derived
            for key in derived.watch:
                _toggle(self.watchers, key, path, True)
            for target in derived.depends_on:
                _toggle(self.dependents, (derived.scope, target), path, True)

    # -- the incremental step ----------------------------------------------
    def apply(
        self,
        changed: dict[str, ParsedFile | None],
        ontology_changed: Iterable[str] = (),
    ) -> set[str]:
        """Replace/remove the given files and re-derive what depends on them.

        Returns the paths whose derived state was recomputed (removed paths
        included), which is what the store must rewrite.
        """
        touched: set[Key] = set()
        for path, parsed in changed.items():
            old = self.nodes.get(path)
            new = Node(parsed) if parsed is not None else None
            touched |= _touched_keys(old, new)
            if old is not None:
                self._index(old, False)
                del self.nodes[path]
            if new is not None:
                self.nodes[path] = new
                self._index(new, True)
        redo: set[str] = {p for p in changed if p in self.nodes}
        for key in touched:
            redo |= self.watchers.get(key, set())
            if key[0] == "i":
                redo |= self.ids.get((key[1], key[2]), set())
        scopes = set(ontology_changed)
        if scopes:
            redo |= {p for p, n in self.nodes.items() if n.scope in scopes}
        for path in changed:
            if path not in self.nodes:
                self._set_derived(path, None)
        for path in redo:
            if path in self.nodes:
                self._set_derived(path, self._derive(self.nodes[path]))
        recomputed = set(redo) | {p for p in changed if p not in self.nodes}
        recomputed |= self._propagate_eligibility(redo)
        return recomputed

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
                frontier.extend(self.dependents.get((node.scope or "", node.id), ()))
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
            paths = self.ids.get((scope, target))
            if paths and len(paths) == 1:
                other = self.derived.get(next(iter(paths)))
                if other is not None:
                    start, end = _intersect((start, end), other.window)
        return start, end

    def _deps_available(self, path: str, derived: Derived) -> bool:
        scope = self.nodes[path].scope or ""
        for target in derived.depends_on:
            paths = self.ids.get((scope, target))
            if not paths or len(paths) != 1:
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
        derived.watch.add(("i", scope, node.id or ""))
        if not node.is_record:
            return derived
        data, parsed = node.data, node.parsed
        record_id = node.id
        diags = derived.diagnostics
        derived.duplicate = len(self.ids.get((scope, record_id or ""), ())) > 1
        if derived.duplicate:
            others = sorted(self.ids[(scope, record_id or "")] - {node.path})
            diags.append(
                dg.make(
                    "duplicate-id",
                    node.path,
                    f"id {record_id!r} is also used by {', '.join(others)}",
                    line=parsed.key_lines.get("id"),
                    record_id=record_id,
                )
            )
        valid = parsed.structurally_valid
        activation = self.ontologies.get(scope)
        ontology = activation.ontology if activation else None
        kind = node.kind
        if kind == "page":
            valid &= self._check_page(node, ontology, derived)
        elif kind == "claim":
            derived.type = str(data.get("claim_kind")) if data.get("claim_kind") else None
            self._check_filing(node, "claims/", "claims", derived)
        elif kind == "relationship":
            valid &= self._check_relationship_label(node, ontology, derived)
        valid &= self._resolve_refs(node, derived)
        derived.evidence = evidence.check(self, node, derived, self.probe)
        for raw in parsed.links:
            resolved = self._resolve_link(node, raw, derived.watch)
            derived.links.append(resolved)
            if resolved.status != "resolved":
                diags.append(_link_diagnostic(node, resolved))
        derived.valid = valid
        derived.own_window = own_window(data) if kind in ("claim", "relationship") else (None, None)
        derived.window = derived.own_window
        return derived

    def _check_page(self, node: Node, ontology: Ontology | None, derived: Derived) -> bool:
        data, parsed, diags = node.data, node.parsed, derived.diagnostics
        declared = data.get("type") if isinstance(data.get("type"), str) else None
        if ontology is None:
            diags.append(
                dg.make(
                    "ontology-unavailable",
                    node.path,
                    f"partition {node.scope!r} has no active ontology",
                    line=parsed.key_lines.get("type"),
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
                    line=parsed.key_lines.get("type"),
                    record_id=node.id,
                )
            )
            return False
        ok = _check_fields(node, definition, diags)
        if definition.directory:
            self._check_filing(node, definition.directory, definition.name, derived)
        return ok

    def _check_relationship_label(self, node: Node, ontology: Ontology | None, derived: Derived) -> bool:
        data, parsed, diags = node.data, node.parsed, derived.diagnostics
        label = data.get("label") if isinstance(data.get("label"), str) else None
        derived.type = label
        if ontology is None:
            diags.append(
                dg.make(
                    "ontology-unavailable",
                    node.path,
                    f"partition {node.scope!r} has no active ontology",
                    line=parsed.key_lines.get("label"),
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
                    line=parsed.key_lines.get("label"),
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
            paths = self.ids.get((scope, current))
            if not paths:
                return None, None, "missing" if len(seen) == 1 else "broken-merge"
            if len(paths) > 1:
                return None, None, "duplicate"
            path = next(iter(paths))
            node = self.nodes[path]
            if node.lifecycle != "merged":
                return current, path, "resolved"
            following = node.data.get("merged_into")
            if not isinstance(following, str) or following in seen:
                return None, None, "broken-merge"
            seen.append(following)
            current = following
        return None, None, "broken-merge"

    def _resolve_refs(self, node: Node, derived: Derived) -> bool:
        scope = node.scope or ""
        ok = True
        lines = node.parsed.key_lines
        for field_name, target in ref_targets(node.data):
            if field_name in HISTORY_FIELDS:
                final, final_path, status = self._history_target(scope, target, derived.watch)
            else:
                final, final_path, status = self.follow_merges(scope, target, derived.watch)
            if status == "resolved" and field_name in ("from", "to", "entities", "owner"):
                target_node = self.nodes[final_path or ""]
                if target_node.kind != "page":
                    status = "wrong-kind"
            derived.refs.append(ResolvedRef(field_name, target, final, status))
            if field_name in REFERENCE_FIELDS and final is not None and status == "resolved":
                derived.depends_on.append(final)
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
        paths = self.ids.get((scope, target))
        if not paths:
            return None, None, "missing"
        return target, next(iter(paths)), "resolved"

    def _check_endpoints(self, node: Node, derived: Derived) -> bool:
        activation = self.ontologies.get(node.scope or "")
        ontology = activation.ontology if activation else None
        label = node.data.get("label")
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
            target_path = next(iter(self.ids[(node.scope or "", ref.resolved_id)]))
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
                        line=node.parsed.key_lines.get(ref.field),
                        record_id=node.id,
                    )
                )
        return ok

    def page_type(self, path: str) -> str | None:
        """A page's declared type, else its classification (independent of derive order)."""
        node = self.nodes[path]
        declared = node.data.get("type")
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
            named_paths = self.names.get((scope, name))
            if named_paths:
                matches = matches | named_paths if matches else named_paths
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


@lru_cache(maxsize=65536)
def _markdown_keys(source_rel: str, target: str) -> tuple[str | None, str]:
    candidate = posixpath.normpath(posixpath.join(posixpath.dirname(source_rel), target))
    return _md_path(candidate), ""


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


def _toggle(index: dict[Any, set[str]], key: Any, path: str, add: bool) -> None:
    if add:
        index.setdefault(key, set()).add(path)
        return
    members = index.get(key)
    if members is not None:
        members.discard(path)
        if not members:
            del index[key]


def _link_diagnostic(node: Node, link: ResolvedLink) -> Diagnostic:
    raw = link.raw
    shown = f"[[{raw.target}]]" if raw.kind == "wiki" else f"({raw.target})"
    line = node.parsed.body_line + raw.line
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
    raw = node.data.get("fields", {})
    values: dict[str, Any] = raw if isinstance(raw, dict) else {}
    lines = node.parsed.key_lines
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
