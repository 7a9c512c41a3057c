"""Stable, bounded entity ids (spec: knowledge-entities-extraction.md, "Extraction and identity").

An id binds what the spec says identifies the entity and nothing else: an ADR
its path, a decision section its path, heading and occurrence, a concept its
exact term, a changelog entry its path, release heading, entry text and
occurrence, a commit its full id. Line numbers and bytes never enter an id, so
a region that moves keeps its id and an edit changes only the region hash. A
renamed file is a new id: renames are never inferred.
"""

from __future__ import annotations

import hashlib

from knowledge_desktop.engine.extraction.bounds import MAX_ID_CHARS, MAX_NAME_CHARS

_DIGEST_CHARS = 16


def bounded(raw: str) -> str:
    """`raw` when it fits in 256 characters, else a prefix plus a digest of the whole,
    so two long ids that share their first 239 characters still differ."""
    if len(raw) <= MAX_ID_CHARS:
        return raw
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST_CHARS]
    return raw[: MAX_ID_CHARS - _DIGEST_CHARS - 1] + "~" + digest


def adr_id(path: str) -> str:
    return bounded(f"decision:{path}")


def section_decision_id(path: str, heading: str, occurrence: int) -> str:
    return bounded(f"decision:{path}#{heading}{_nth(occurrence)}")


def concept_id(term: str) -> str:
    return bounded(f"concept:{term}")


def changelog_id(path: str, release: str, entry: str, occurrence: int) -> str:
    return bounded(f"change:{path}#{release}#{entry}{_nth(occurrence)}")


def commit_id(sha: str) -> str:
    return f"commit:{sha}"


def _nth(occurrence: int) -> str:
    """The first occurrence carries no suffix, so adding a repeat never renames it."""
    return "" if occurrence <= 1 else f"~{occurrence}"


def clip_name(text: str) -> tuple[str, bool]:
    """A name within 256 characters, and whether it was cut (reported as partial)."""
    if len(text) <= MAX_NAME_CHARS:
        return text, False
    return text[:MAX_NAME_CHARS], True
