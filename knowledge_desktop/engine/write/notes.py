"""Reading plain notes as Obsidian, Foam and zk write them: titles, aliases, tags.

Adopting notes (`operations/adopt.py`) gives each the title, aliases and tags
its tool showed. Where its links go is not read here but from the vault's
own resolution of them (`write/link_claims.py`), so that adopting keeps the
targets the window and CLI showed before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]*)\]\]")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TAG = re.compile(r"(?:^|(?<=[\s(,;]))#([\w/-]*[^\W\d/-][\w/-]*)", re.UNICODE)
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def prose_lines(body: str) -> Iterable[str]:
    """The body's lines outside fenced code blocks, with inline code blanked."""
    fence: str | None = None
    for line in body.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line) if "`" in line else line


def first_heading(body: str) -> str | None:
    """The text of the first level-1 ATX heading (`# Title`) outside code."""
    for line in prose_lines(body):
        found = _H1.match(line)
        if found:
            text = found.group(1).strip()
            if text:
                return text
    return None


def inline_tags(body: str) -> list[str]:
    """Obsidian's inline `#tags` (letters, digits, `_`, `-`, `/`, not all digits), in order,
    without headings and code."""
    out: list[str] = []
    for line in prose_lines(body):
        if "#" not in line or _HEADING_LINE.match(line):
            continue
        for match in _TAG.finditer(_WIKILINK.sub(" ", line)):
            out.append(match.group(1))
    return out


def string_list(value: Any) -> list[str] | None:
    """An Obsidian/Foam list field (`aliases`, `tags`): a list of strings, or one string
    (tags split at commas and spaces, aliases at commas); None when it is something else."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    return None


def split_tags(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        out.extend(part.lstrip("#") for part in re.split(r"[,\s]+", value) if part.lstrip("#"))
    return out


def unique(values: Iterable[str]) -> list[str]:
    """Values in first-seen order, without repeats by normalised name."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        key = normalise_name(value)
        if key and key not in seen:
            seen.add(key)
            out.append(value)
    return out
