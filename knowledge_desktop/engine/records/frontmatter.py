"""Splitting a record file into its YAML frontmatter and Markdown body.

A record starts with a line `---` and its frontmatter ends at the next line
that is exactly `---` (spec: records-and-ontology, Records). Line numbers
given out here are 1-based lines of the whole file, so a diagnostic can point
at the line an editor shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_FRONTMATTER_BYTES = 256 * 1024
"""The largest frontmatter block that is parsed (`frontmatter-too-large` beyond)."""

_LONE_CR = re.compile(r"\r(?!\n)")


@dataclass(slots=True)
class Split:
    yaml_text: str
    body: str
    yaml_first_line: int
    """1-based file line of the first YAML line (2 unless a BOM-only line precedes)."""
    body_first_line: int
    """1-based file line where the body starts."""


class FrontmatterError(Exception):
    def __init__(self, code: str, message: str, line: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line


def lone_cr_line(text: str, first_line: int = 1) -> int | None:
    """The line (counting LF line ends from `first_line`) of the first carriage return
    that is not part of a CRLF, None when there is none.

    The frontmatter's delimiters are lines, and a file saved with classic Mac OS
    line endings has no LF at all: read as LF lines its `---` would never close,
    and YAML would count lines differently from every other reader here."""
    match = _LONE_CR.search(text)
    return None if match is None else first_line + text.count("\n", 0, match.start())


def has_frontmatter(text: str) -> bool:
    first = text.split("\n", 1)[0].rstrip("\r")
    return first.lstrip("\ufeff").rstrip() == "---"


def split(text: str) -> Split | None:
    """Return the frontmatter split, None when the file has no frontmatter.

    Raises `FrontmatterError` for an opening `---` that is never closed or a
    block over the size limit.
    """
    if not has_frontmatter(text):
        return None
    first_nl = text.find("\n")
    if first_nl < 0:
        raise FrontmatterError("frontmatter-unclosed", "the opening --- is never closed", 1)
    pos = first_nl + 1
    line = 2
    length = len(text)
    while pos <= length:
        end = text.find("\n", pos)
        stop = length if end < 0 else end
        candidate = text[pos:stop].rstrip("\r")
        if candidate.rstrip() == "---":
            yaml_text = text[first_nl + 1 : pos]
            if len(yaml_text) > MAX_FRONTMATTER_BYTES:
                raise FrontmatterError(
                    "frontmatter-too-large",
                    f"the frontmatter is {len(yaml_text):,} characters; the limit is"
                    f" {MAX_FRONTMATTER_BYTES // 1024} KiB",
                    1,
                )
            body = "" if end < 0 else text[end + 1 :]
            return Split(yaml_text, body, 2, line + 1)
        if end < 0:
            break
        pos = end + 1
        line += 1
        if pos - first_nl > MAX_FRONTMATTER_BYTES:
            raise FrontmatterError(
                "frontmatter-too-large",
                f"no closing --- within the first {MAX_FRONTMATTER_BYTES // 1024} KiB of frontmatter;"
                " the limit is that size",
                1,
            )
    raise FrontmatterError("frontmatter-unclosed", "the opening --- is never closed", 1)
