"""How a record's body is cut into passages: its blocks between blank lines.

`documents.get` pages a body by these chunks and the embedding projection stores one
vector per chunk, so a `range` an agent asks for and a passage search found are the same
unit of text."""

from __future__ import annotations

import re

_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")


def chunks_of(body: str) -> list[str]:
    """A body's blocks between blank lines (a paragraph, a list, a fenced block with no
    blank line inside), in order; blank blocks are dropped."""
    blocks = _BLANK_LINES.split(body.strip("\n"))
    return [b for b in blocks if b.strip()]


def chunk_lines(body: str) -> list[tuple[str, int, int]]:
    """Each chunk with its first and last line, counted from 0 within `body`."""
    out: list[tuple[str, int, int]] = []
    cursor = 0
    for chunk in chunks_of(body):
        at = body.find(chunk, cursor)
        at = cursor if at < 0 else at
        first = body.count("\n", 0, at)
        out.append((chunk, first, first + chunk.count("\n")))
        cursor = at + len(chunk)
    return out
