"""What one reconcile changed, said in terms each reader can act on.

A `ChangeSet` names the files and record ids that moved and, in `touched`,
which projections had rows rewritten. A pane that shows only one projection
(backlinks read links, the timeline reads dates, the diagnostics pane reads
diagnostics) refetches only when its projection's flag is set, instead of on
every change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Source = Literal["scan", "watcher", "query", "publish"]
"""Who asked for the reconcile: a full scan, the folder watcher, a query's freshness check, or the
write side after publishing files (`write/publish.py`)."""

Projection = Literal["catalog", "links", "dates", "diagnostics", "text"]
"""The projections a change can touch (flags in `ChangeSet.touched`)."""

CATALOG: Projection = "catalog"
LINKS: Projection = "links"
DATES: Projection = "dates"
DIAGNOSTICS: Projection = "diagnostics"
TEXT: Projection = "text"
ALL_PROJECTIONS: frozenset[Projection] = frozenset((CATALOG, LINKS, DATES, DIAGNOSTICS, TEXT))


@dataclass(slots=True)
class ChangeSet:
    """What one reconcile changed, for panes and callers to act on."""

    source: Source
    paths: list[str] = field(default_factory=list)
    """Files whose bytes changed, appeared or disappeared."""
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    """Record ids (added/removed by file, changed when content or derived state moved)."""
    affected_paths: list[str] = field(default_factory=list)
    """Every file whose projection rows were rewritten."""
    ontology_changed: list[str] = field(default_factory=list)
    """Partitions whose active ontology changed (every record there was judged again)."""
    touched: set[Projection] = field(default_factory=set)
    """The projections whose rows differ after this change."""
    stat_checked: int = 0
    read: int = 0
    parsed: int = 0
    elapsed_ms: float = 0.0

    @property
    def empty(self) -> bool:
        return not (self.paths or self.affected_paths or self.ontology_changed or self.touched)

    def touches(self, *projections: Projection) -> bool:
        """Whether any of these projections changed (what a pane asks before refetching)."""
        return any(p in self.touched for p in projections)

    def as_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "paths": self.paths,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "ontologyChanged": self.ontology_changed,
            "touched": sorted(self.touched),
            "statChecked": self.stat_checked,
            "read": self.read,
            "parsed": self.parsed,
            "elapsedMs": round(self.elapsed_ms, 1),
        }
