"""The limits of one extraction (spec: knowledge-entities-extraction.md, "Bounds and coverage").

Every limit here that cuts something off is reported as `partial` coverage with
a reason naming it, so an analysis is never complete by accident.
"""

from __future__ import annotations

MAX_DOCUMENTS = 10_000
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
MAX_REGION_BYTES = 16 * 1024
MAX_ENTITIES = 10_000
MAX_ROOT_NODES = 8_192
MAX_HEADINGS = 128
MAX_CITATIONS = 4_096

MAX_ID_CHARS = 256
MAX_NAME_CHARS = 256
MAX_ALIASES = 32
MAX_EVIDENCE = 64
MAX_LINKS = 64
MAX_MEMORY_RELATIONS = 10_000

DEFAULT_MAX_COMMITS = 50
MIN_COMMITS, MAX_COMMITS = 1, 200
HISTORY_BUDGET_SECONDS = 10.0
"""Checked between commits: once spent, the window stops there (partial)."""
MAX_LISTED_TAGS = 500
"""Tags offered as a window's edge (newest first); an older tag can still be typed."""
MAX_COMMIT_DELTAS = 10_000
"""Changed files read from one commit's tree diff; past it the rest are not paths (partial)."""

METADATA_LINES = 40
"""Status/Date paragraphs or list items count only within an ADR's first lines."""

MAX_REASONS = 1_000
"""Coverage reasons kept per area; the rest are counted in one `reasons-capped` entry."""

# Code-symbol discovery (issue 31). The spec bounds documents; code gets bounds of the
# same shape, sized for source files: a generated bundle past 1 MiB is not a module a
# concept is defined in, and a file exporting thousands of names is generated too.
MAX_CODE_FILES = 10_000
MAX_CODE_FILE_BYTES = 1024 * 1024
MAX_CODE_TOTAL_BYTES = 64 * 1024 * 1024
MAX_SYMBOLS_PER_FILE = 1_000
MAX_SYMBOLS = 100_000
