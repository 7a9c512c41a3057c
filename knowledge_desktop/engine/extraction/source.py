"""One document's text as lines that keep their own endings, and regions cut from it.

A region's hash is the SHA-256 of the exact bytes of its lines as the file holds
them, each line with its own ending (LF, CRLF or a lone CR), the last line's
included, and any blank lines between (spec: knowledge-entities-extraction.md,
"Shape", document-region evidence). Only the last line of a file without a
final newline has no ending to include. So the same text hashes differently in
an LF, a CRLF and a CR file: the hash is of bytes, not of text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.extraction.bounds import MAX_REGION_BYTES
from knowledge_desktop.engine.extraction.model import Region
from knowledge_desktop.engine.records import yaml12

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


@dataclass(frozen=True, slots=True)
class Source:
    path: str
    lines: tuple[str, ...]
    """Each line with its own ending (the last may have none)."""

    @classmethod
    def of(cls, path: str, text: str) -> Source:
        return cls(path, tuple(_LINE.findall(text)))

    def content(self, number: int) -> str:
        """Line `number` (one-based) without its ending; a leading BOM dropped on line 1."""
        line = self.lines[number - 1].rstrip("\r\n")
        return line.removeprefix("\ufeff") if number == 1 else line

    def __len__(self) -> int:
        return len(self.lines)

    def region(self, start: int, end: int) -> Region | None:
        """The region of lines `start..end` (inclusive), or None when over 16 KiB."""
        data = "".join(self.lines[start - 1 : end]).encode("utf-8")
        if len(data) > MAX_REGION_BYTES:
            return None
        return Region(self.path, start, end, hashlib.sha256(data).hexdigest())

    def trim_end(self, start: int, end: int) -> int:
        """`end` moved up past trailing blank lines (never above `start`)."""
        while end > start and not self.content(end).strip():
            end -= 1
        return end


@dataclass(frozen=True, slots=True)
class Frontmatter:
    data: dict[str, Any] | None
    """The mapping, or None when there is none or it is invalid."""
    body_start: int
    """The first line after the frontmatter (1 when there is none)."""
    error: str = ""


def frontmatter(src: Source) -> Frontmatter:
    """YAML between a first line `---` and the next `---` or `...` line."""
    if not src.lines or src.content(1) != "---":
        return Frontmatter(None, 1)
    for n in range(2, len(src) + 1):
        if src.content(n) in ("---", "..."):
            text = "".join(src.lines[1 : n - 1])
            try:
                loaded = yaml12.load(text, first_line=2)
            except yaml12.YamlError as exc:
                return Frontmatter(None, n + 1, f"line {n}: {exc.message}"[:200])
            if loaded.data is None:
                return Frontmatter({}, n + 1)
            if not isinstance(loaded.data, dict):
                return Frontmatter(None, n + 1, "frontmatter is not a mapping")
            return Frontmatter(loaded.data, n + 1)
    return Frontmatter(None, 1, "frontmatter is not closed")


def text_value(value: Any) -> str | None:
    """A scalar frontmatter value as text (dates stay as written); None for others."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    return None


def text_list(value: Any) -> list[str]:
    """A string or a list of strings as a list (other items dropped)."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []
