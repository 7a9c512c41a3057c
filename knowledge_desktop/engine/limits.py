"""Bounds the engine keeps, one name per meaning, each in one place.

Where the spec fixes a number it is cited; the others are ours and
`docs/decisions.md` says why.
"""

from __future__ import annotations

MAX_MERGE_HOPS = 8
"""How far a `merged_into` chain is followed to an active page before it counts as
invalid (corrections-and-merges, "Merges"); the record pane's banners follow
`superseded_by` and `merged_into` chains no further."""

MAX_EXTENDS_DEPTH = 8
"""Most manifests in one ontology's `extends` chain (records-and-ontology: chains longer
than eight are refused)."""

MAX_SUPERSEDED_HOPS = 32
"""How many superseded records a search follows along `superseded_by` to the current
one (retrieval-and-dates, "Superseded wording"); a longer chain finds nothing."""

MAX_EVIDENCE_FILE_BYTES = 64 * 1024 * 1024
"""The largest vault file whose bytes an evidence `sha256` is checked against; a larger
one counts as unverifiable rather than being read whole."""

MAX_MANIFEST_BYTES = 1024 * 1024
"""The largest ontology manifest that is read; a larger one fails activation with a
message saying so (the shipped default is under 10 KiB)."""
