"""The public face of extraction: `extract(repo_root, options)` and `Extractor` for re-runs.

Spec: knowledge-entities-extraction.md (the whole contract; the TypeScript
`extractKnowledgeEntities` / `linkMemoryToEntities` pair becomes `extract` /
`link_memory` here). Pure with respect to its inputs: the same files, the
same HEAD and the same options give the same document, byte for byte once
serialized with `to_json`. Nothing is written, nothing is fetched.

An `Extractor` keeps what earlier runs learnt: each document's result keyed
by its path and content hash, each commit's by its id, so a re-run after one
file changed parses that file only. The spec allows a full rebuild on every
change; the cache only saves work, the result is the one a fresh run gives
(tests check this).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.errors import QueryError
from knowledge_desktop.engine.extraction import coverage
from knowledge_desktop.engine.extraction.bounds import DEFAULT_MAX_COMMITS
from knowledge_desktop.engine.extraction.document import SCHEMA_VERSION, assemble
from knowledge_desktop.engine.extraction.documents import DocumentCache, scan_documents
from knowledge_desktop.engine.extraction.history import CommitCache, check_max_commits, read_history
from knowledge_desktop.engine.extraction.model import (
    CHANGES,
    DOCUMENTS,
    HISTORY,
    MEMORY,
    SYMBOLS,
    Found,
    Reason,
)
from knowledge_desktop.engine.extraction.relations import MemoryCandidate, link_memory
from knowledge_desktop.engine.extraction.symbols.discovery import Discovery, SymbolCache, discover_symbols
from knowledge_desktop.engine.extraction.symbols.links import Owners


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    max_commits: int = DEFAULT_MAX_COMMITS
    """First-parent commits read from HEAD, 1–200."""
    since_tag: str | None = None
    """Stop at this local tag (exclusive); it must be HEAD or an ancestor of it."""
    history: bool = True
    """False: leave history out (reported `not-analyzed`), as for captured inputs."""
    symbols: bool = True
    """False: no code-symbol discovery (`symbols` reported `not-analyzed`)."""


@dataclass(slots=True)
class Extractor:
    """Extraction of one repository, re-runnable cheaply after changes."""

    repo_root: Path
    options: ExtractOptions = field(default_factory=ExtractOptions)
    documents: DocumentCache = field(default_factory=DocumentCache)
    commits: CommitCache = field(default_factory=dict)
    symbols: SymbolCache = field(default_factory=SymbolCache)
    last_discovery: Discovery | None = None
    """The discovery snapshot the last run linked against (None when turned off)."""

    def __post_init__(self) -> None:
        check_max_commits(self.options.max_commits)
        self.repo_root = Path(self.repo_root)
        if not self.repo_root.is_dir():
            raise QueryError(f"{self.repo_root} is not a folder")

    def set_options(self, options: ExtractOptions) -> None:
        """Extract with `options` from now on. What earlier runs learnt stays valid: a
        document's result does not depend on the history window, and a commit's change
        is the same whichever window reads it."""
        check_max_commits(options.max_commits)
        self.options = options

    @property
    def parsed_last_run(self) -> int:
        """Documents the last run parsed (the others came from the cache)."""
        return self.documents.parsed

    def extract(self, memory: Sequence[MemoryCandidate] | None = None) -> dict[str, Any]:
        """The `KnowledgeEntitiesV1` document for the repository as it is now.

        `memory`: candidates to link (`memoryRelations`); None leaves memory
        `not-analyzed`. Raises `RelationOverflow` past 10,000 relations."""
        scan = scan_documents(self.repo_root, self.documents)
        finds: list[Found] = []
        reasons = list(scan.reasons)
        adr_paths: dict[str, str] = {}
        for result in scan.results:
            finds += result.found
            reasons += result.reasons
            for f in result.found:
                if f.adr:
                    adr_paths[result.path] = f.id
        history_status, history_info = (
            coverage.NOT_ANALYZED,
            {
                "maxCommits": self.options.max_commits,
                "sinceTag": self.options.since_tag,
                "commits": 0,
            },
        )
        head: str | None = None
        if self.options.history:
            hist = read_history(
                self.repo_root, self.options.max_commits, self.options.since_tag, cache=self.commits
            )
            finds += hist.found
            reasons += hist.reasons
            history_status, history_info, head = hist.status, hist.info, hist.head
            live = {f.commits[0] for f in hist.found}
            for sha in set(self.commits) - live:
                del self.commits[sha]
        else:
            reasons.append(Reason(HISTORY, "history-not-requested"))
        owners = None
        self.last_discovery = None
        if self.options.symbols:
            self.last_discovery = discover_symbols(self.repo_root, self.symbols)
            owners = Owners.of(self.last_discovery)
            reasons += self.last_discovery.reasons
        entities, more = assemble(self.repo_root, finds, adr_paths, owners)
        reasons += more
        relations: list[dict[str, Any]] = []
        memory_status = coverage.NOT_ANALYZED
        memory_counts: dict[str, Any] = {}
        if memory is None:
            reasons.append(coverage.NO_MEMORY)
        else:
            relations = link_memory(memory, entities)
            memory_status = coverage.COMPLETE
            memory_counts = {"candidates": len(memory)}
        counts: dict[str, dict[str, Any]] = {
            DOCUMENTS: {"discovered": scan.discovered, "read": scan.read, "bytes": scan.bytes},
            HISTORY: {"head": head, **history_info},
            MEMORY: memory_counts,
        }
        if self.last_discovery is not None:
            counts[SYMBOLS] = self.last_discovery.counts()
        for kind, area in (("decision", "decisions"), ("concept", "concepts"), ("change", CHANGES)):
            counts[area] = {"entities": sum(1 for e in entities if e["kind"] == kind)}
        document: dict[str, Any] = {
            "schemaVersion": SCHEMA_VERSION,
            "entities": entities,
            "coverage": coverage.build(
                reasons,
                counts,
                history_status,
                memory_status,
                coverage.COMPLETE if self.options.symbols else coverage.NOT_ANALYZED,
            ),
        }
        if relations:
            document["memoryRelations"] = relations
        return document


def extract(
    repo_root: Path,
    options: ExtractOptions | None = None,
    memory: Sequence[MemoryCandidate] | None = None,
) -> dict[str, Any]:
    """One full extraction of `repo_root` (a fresh `Extractor`, no cache)."""
    return Extractor(Path(repo_root), options or ExtractOptions()).extract(memory)
