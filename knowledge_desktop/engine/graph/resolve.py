"""Resolving what a record names: ids through merge chains, typed references, links.

`Resolver` holds the lookups every derivation reads (the nodes, the id, name
and path indexes, each partition's ontology) and answers from them. Each
answer notes the keys it looked at in the caller's `watch`, so that the
record asking is derived again when one of them changes meaning.
"""

from __future__ import annotations

import posixpath
from functools import lru_cache

from knowledge_desktop.engine.graph import note_links
from knowledge_desktop.engine.graph.attachments import Attachments
from knowledge_desktop.engine.graph.derived import ResolvedLink, ResolvedRef
from knowledge_desktop.engine.graph.detail import HISTORY_FIELDS
from knowledge_desktop.engine.graph.evidence import FileProbe
from knowledge_desktop.engine.graph.guards import GuardMap
from knowledge_desktop.engine.graph.indexes import Index, PathIndex
from knowledge_desktop.engine.graph.keys import Key, normalise_name, partition_path
from knowledge_desktop.engine.graph.node import RecordNode
from knowledge_desktop.engine.limits import MAX_MERGE_HOPS
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.links.precedence import name_matches
from knowledge_desktop.engine.ontology.compose import Activation

PAGE_REFERENCES = ("from", "to", "entities", "owner")
"""Reference fields that must name a page."""


class Resolver:
    """The lookups of a vault's files, and resolution over them."""

    def __init__(self) -> None:
        self.nodes: dict[str, RecordNode] = {}
        self.ontologies: dict[str, Activation] = {}
        self.ids: Index[str] = Index()
        """scope -> record id -> files holding it."""
        self.names: Index[str] = Index()
        """scope -> normalised title or alias -> files."""
        self.paths = PathIndex(self.nodes)
        self.files: Index[str] = Index()
        """"" -> normalised file name without `.md` -> Markdown files of the whole vault
        (what an Obsidian `[[Name]]` matches; `graph/notes.py`)."""
        self.attachments = Attachments()
        """The vault's other files (images, PDFs …) that notes embed and link, by name."""
        self.probe: FileProbe | None = None
        """Reads vault files for evidence hashes; set by the reconciler."""
        self.guards: GuardMap = {}
        """The durable lifecycle guards, set by the reconciler (`graph/guards.py`)."""
        self.guarded: dict[str, str] = {}
        """Path -> the lifecycle its file says, for nodes a guard overrides."""

    def kind_at(self, path: str) -> str | None:
        """The record kind of the file at a vault path."""
        return self.nodes[path].kind

    def sha_at(self, scope: str, rel: str) -> str | None:
        """The sha256 of the candidate file at a partition path; None when there is none."""
        found = self.paths.get((scope, rel))
        return self.nodes[found].sha256 if found is not None else None

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

    def chain_problem(
        self, scope: str, start: str, field: str, through: str, hops: int, watch: set[Key]
    ) -> tuple[str, str] | None:
        """Why following `field` (`merged_into`, `superseded_by`) from record `start`, on
        through records whose lifecycle is `through`, ends nowhere within `hops` hops:
        ("loop" | "too-long" | "dead-end", the chain in words); None when it ends.
        Every id passed is watched, so a change along the chain is noticed."""
        chain = [start]
        current = start
        for _ in range(hops + 1):
            watch.add(("i", scope, current))
            paths = self.ids.get(scope, current)
            if len(paths) != 1:
                if len(chain) == 1:
                    return None
                reason = "matches no record" if not paths else "is used by several records"
                return "dead-end", f"{' → '.join(chain)}, and {current!r} {reason}"
            node = self.nodes[next(iter(paths))]
            if node.lifecycle != through:
                return None
            following = node.merged_into if field == "merged_into" else node.superseded_by
            if not isinstance(following, str):
                return "dead-end", f"{' → '.join(chain)}, and {current!r} names no {field}"
            if following in chain:
                return "loop", f"it loops: {' → '.join([*chain, following])}"
            chain.append(following)
            current = following
        return "too-long", f"it passes more than {hops} records: {chain[0]} → {chain[1]} → … → {chain[-1]}"

    def resolve_ref(
        self, scope: str, field: str, target: str, watch: set[Key]
    ) -> tuple[ResolvedRef, str | None]:
        """One typed reference, with the path it ends at.

        History fields name the record itself (a merged page is still what
        `supersedes` meant); the others follow merges to the survivor, and
        PAGE_REFERENCES must end at a page.
        """
        if field in HISTORY_FIELDS:
            final, final_path, status = self._history_target(scope, target, watch)
        else:
            final, final_path, status = self.follow_merges(scope, target, watch)
        if status == "resolved" and field in PAGE_REFERENCES and self.nodes[final_path or ""].kind != "page":
            status = "wrong-kind"
        return ResolvedRef(field, target, final, status), final_path

    def _history_target(self, scope: str, target: str, watch: set[Key]) -> tuple[str | None, str | None, str]:
        watch.add(("i", scope, target))
        paths = self.ids.get(scope, target)
        if not paths:
            return None, None, "missing"
        return target, next(iter(paths)), "resolved"

    def resolve_link(self, node: RecordNode, raw: RawLink, watch: set[Key]) -> ResolvedLink:
        """A body link by partition path and, for a wikilink, by title or alias (a record in
        a collection folder only when no other has that name: `links/precedence.py`)."""
        scope = node.scope or ""
        if raw.kind == "wiki":  # (`link_keys`, without the partition path a wikilink does not read)
            candidate, name = _wiki_keys(raw.target)
        else:
            candidate, name = _markdown_keys(node.rel, raw.target)
        if candidate is None:  # a path that leaves the partition: a file beyond it, if any
            beyond = note_links.beyond_partition(self, node, raw, watch)
            return beyond[0] if beyond is not None else ResolvedLink(raw, "outside")
        matches: set[str] = set()
        if candidate:
            watch.add(("p", scope, candidate))
            hit = self.paths.get((scope, candidate))
            if hit is not None and self.nodes[hit].is_record:
                matches.add(hit)
        if name:
            watch.add(("n", scope, name))
            named_paths = self.names.get(scope, name)
            if len(named_paths) == 1:  # (the common case: one record has the name)
                matches.update(named_paths)
            elif named_paths:
                matches = matches.union(name_matches(named_paths))
        if not matches:  # nothing of its partition: what lies beyond it (`graph/note_links.py`)
            beyond = note_links.beyond_partition(self, node, raw, watch)
            return beyond[0] if beyond is not None else ResolvedLink(raw, "missing")
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


def link_keys(kind: str, source_rel: str, target: str) -> tuple[str | None, str]:
    """What a link from partition path `source_rel` looks up: (a partition-relative `.md`
    path, or "" for none, or None when it leaves the partition; a normalised name, or "")."""
    if kind == "wiki":
        return _wiki_keys(target)
    return _markdown_keys(source_rel, target)


@lru_cache(maxsize=65536)
def _wiki_keys(target: str) -> tuple[str | None, str]:
    """(partition-relative .md path or "", normalised name); path None when it leaves."""
    target = target.strip()
    candidate = posixpath.normpath(target.lstrip("/")) if target else ""
    return _md_path(candidate), normalise_name(target)


def _markdown_keys(source_rel: str, target: str) -> tuple[str | None, str]:
    candidate = posixpath.normpath(posixpath.join(posixpath.dirname(source_rel), target))
    return _md_path(candidate), ""


def _md_path(candidate: str) -> str | None:
    if candidate == ".." or candidate.startswith("../"):
        return None
    if candidate and not candidate.lower().endswith(".md"):
        candidate += ".md"
    return candidate


def release_caches() -> None:
    """Empty the memo caches of name and wikilink normalisation.

    They pay off while a scan resolves the same targets again and again, and
    would otherwise keep up to 65,536 entries each for as long as the vault
    is open.
    """
    normalise_name.cache_clear()
    _wiki_keys.cache_clear()
