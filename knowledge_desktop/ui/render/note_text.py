"""Reading the parts of a note's Markdown that Obsidian and Logseq give meaning to.

Plain text work, no Qt: the anchor names headings and `^block-id` lines get
(so a `[[Note#Heading]]` link and the heading it names agree on one name),
the Logseq `key:: value` lines at the top of a page (shown as properties,
not as text), and the part of a body an embed `![[Note#Heading]]` or
`![[Note#^block]]` shows.
"""

from __future__ import annotations

import re

_SLUG_DROP = re.compile(r"[^\w]+", re.UNICODE)
_PROPERTY = re.compile(r"^\s*([A-Za-z0-9_][\w.-]*)::[ \t]*(.*?)\s*$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9][A-Za-z0-9-]*)\s*$")
"""A block id at the end of a paragraph or line: ` ^abc-123`."""


def heading_anchor(text: str) -> str:
    """The anchor name of a heading: its text folded to lower case, runs of anything but
    letters and digits turned into one `-`. Obsidian matches `[[Note#My Heading]]` to the
    heading `## My heading` this loosely too."""
    return "h-" + (_SLUG_DROP.sub("-", text.casefold()).strip("-_") or "heading")


def block_anchor(block_id: str) -> str:
    return "b-" + block_id.casefold()


def fragment_anchor(fragment: str) -> str:
    """The anchor a link's `#…` part names: `^id` a block, anything else a heading."""
    fragment = fragment.strip()
    if fragment.startswith("^"):
        return block_anchor(fragment[1:])
    # `[[Note#A#B]]` names the heading B under A; the last one is the one to jump to.
    return heading_anchor(fragment.rsplit("#", 1)[-1])


def split_properties(body: str) -> tuple[list[tuple[str, str]], str]:
    """Logseq's page properties (`key:: value` lines at the very top, blank lines before
    them allowed) and the body with those lines blanked out, so line numbers stay."""
    lines = body.split("\n")
    found: list[tuple[str, str]] = []
    for n, line in enumerate(lines):
        if not line.strip() and not found:
            continue
        text = line.strip()
        match = _PROPERTY.match(text.removeprefix("- ") if not found else text)
        if match is None:
            break
        found.append((match.group(1), match.group(2)))
        lines[n] = ""
    if not found:
        return [], body
    return found, "\n".join(lines)


def excerpt(body: str, fragment: str) -> tuple[str, int] | None:
    """The part of `body` an embed with `#fragment` shows, and the number of lines before it.

    A heading: from the heading to the next heading of the same or a higher level.
    A block (`^id`): the paragraph (or list item) the id ends. None when not found."""
    lines = body.split("\n")
    fragment = fragment.strip()
    if fragment.startswith("^"):
        return _block(lines, fragment[1:].casefold())
    wanted = fragment_anchor(fragment)
    start, level = -1, 0
    fenced = False
    for n, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        depth = len(match.group(1))
        if start < 0:
            if heading_anchor(match.group(2)) == wanted:
                start, level = n, depth
        elif depth <= level:
            return "\n".join(lines[start:n]), start
    return ("\n".join(lines[start:]), start) if start >= 0 else None


def _block(lines: list[str], block_id: str) -> tuple[str, int] | None:
    for n, line in enumerate(lines):
        match = BLOCK_ID.search(line)
        if match is None or match.group(1).casefold() != block_id:
            continue
        first = n
        while first > 0 and lines[first - 1].strip() and not lines[first].lstrip().startswith(("- ", "* ")):
            first -= 1
        return "\n".join(lines[first : n + 1]), first
    return None
