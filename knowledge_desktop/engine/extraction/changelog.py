"""Changes from a changelog: each list item under a release heading is one change.

Spec: knowledge-entities-extraction.md, "Extraction and identity". A
changelog is a Markdown file named changelog, changes, history, releases,
news or release-notes (any case), or declaring `type: changelog`. A release
heading names a version (`1.2`, `v1.2.3`, `[1.2.0] - 2024-01-01`) or says
"Unreleased". Every top-level list item under the innermost enclosing release
heading (also under its "Added"/"Fixed" sub-headings) is one change; nested
items stay in their parent's region. The id binds the path, the release
heading and the entry's visible text (links read as their text, emphasis and
backticks dropped: `inline.visible_text`), with an occurrence suffix for a
repeat; the region keeps the entry's exact bytes.
"""

from __future__ import annotations

import re

from knowledge_desktop.engine.extraction import ids
from knowledge_desktop.engine.extraction.inline import visible_text
from knowledge_desktop.engine.extraction.model import CHANGES, Found, Reason
from knowledge_desktop.engine.extraction.parsed import Parsed

CHANGELOG_NAMES = frozenset({"changelog", "changes", "history", "releases", "news", "release-notes"})
_RELEASE = re.compile(r"\bv?\d+\.\d+|\bunreleased\b", re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")


def is_changelog(doc: Parsed) -> bool:
    return doc.type == "changelog" or doc.stem.lower().replace("_", "-") in CHANGELOG_NAMES


def changelog_entries(doc: Parsed) -> list[Found]:
    outline = doc.outline
    out: list[Found] = []
    seen: dict[tuple[str, str], int] = {}
    releases = {i for i, h in enumerate(outline.headings) if _RELEASE.search(h.text)}
    for block in outline.blocks:
        if block.kind != "item" or block.heading < 0:
            continue
        chain = outline.chain(block.heading)
        release = next((i for i in reversed(chain) if i in releases), None)
        if release is None:
            continue
        # only the list's own items: one nested under another is part of that one
        text = _entry_text(doc, block.start, block.end)
        if not text:
            continue
        heading = visible_text(outline.headings[release].text)  # release-please links its compare view
        seen[(heading, text)] = seen.get((heading, text), 0) + 1
        region = doc.cut(CHANGES, block.start, block.end)
        if region is None:
            continue
        name, clipped = ids.clip_name(text)
        if clipped:
            doc.reasons.append(Reason(CHANGES, "name-truncated", doc.path))
        found = Found(ids.changelog_id(doc.path, heading, text, seen[(heading, text)]), "change", name)
        found.regions.append(region)
        found.cited = doc.citations(CHANGES, region.line_start, region.line_end)
        out.append(found)
    return out


def _entry_text(doc: Parsed, start: int, end: int) -> str:
    """The entry's first paragraph as a reader sees it, on one line: a wrapped entry is one
    sentence, so its continuation lines belong to its name; nested items and later
    paragraphs do not. Release-please entries end in links to their commit and issue, so
    the raw Markdown would fill the name (and the id) with URLs."""
    parts = [_MARKER.sub("", doc.src.content(start), count=1).strip()]
    for n in range(start + 1, end + 1):
        line = doc.src.content(n)
        if not line.strip() or _MARKER.match(line):
            break
        parts.append(line.strip())
    return visible_text(" ".join(p for p in parts if p))
