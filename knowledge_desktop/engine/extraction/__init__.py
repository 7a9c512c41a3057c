"""Knowledge entities from a documentation repository (spec: knowledge-entities-extraction.md).

Decisions (ADRs, Decision sections), concepts (glossaries, definition lists,
concept documents) and changes (changelog entries, first-parent commits),
each with exact evidence, bounded, with coverage that says what was not
analysed; and `memoryRelations` linking memory candidates (vault claims) to
them. The vault is never imported here: callers pass its claims in.

Public API: `extract`, `Extractor`, `ExtractOptions`, `MemoryCandidate`,
`link_memory`, `RelationOverflow`, `to_json`, `validate`.
"""

from knowledge_desktop.engine.extraction.document import to_json
from knowledge_desktop.engine.extraction.extractor import ExtractOptions, Extractor, extract
from knowledge_desktop.engine.extraction.relations import MemoryCandidate, RelationOverflow, link_memory
from knowledge_desktop.engine.extraction.schema import validate

__all__ = [
    "ExtractOptions",
    "Extractor",
    "MemoryCandidate",
    "RelationOverflow",
    "extract",
    "link_memory",
    "to_json",
    "validate",
]
