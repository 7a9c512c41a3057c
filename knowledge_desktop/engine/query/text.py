"""Text helpers shared by search: tokens, folding, snippets in UTF-16 units.

Folding mirrors the FTS5 tokenizer (`unicode61 remove_diacritics 2`): case
and diacritics fold away, and anything that is not a letter or digit
separates tokens. Folding maps each character to exactly one character so
positions in the folded text are positions in the original.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

TOKEN = re.compile(r"[^\W_]+")
SNIPPET_UNITS = 480
LOCATE_LIMIT = 64 * 1024


class _FoldTable(dict[int, str]):
    def __missing__(self, codepoint: int) -> str:
        char = chr(codepoint)
        base = unicodedata.normalize("NFKD", char)[:1] or char
        folded = base.lower()
        value = folded if len(folded) == 1 else char.lower()[:1] or char
        self[codepoint] = value
        return value


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """Lowercase without diacritics, one character for one character."""
    if text.isascii():
        return text.lower()
    return text.translate(_FOLD)


def tokens(query: str) -> list[str]:
    return [fold(t) for t in TOKEN.findall(query)]


def utf16_len(text: str) -> int:
    if not text or max(text) <= "\uffff":  # no character outside the BMP: one unit each
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    start: int
    """Zero-based, in UTF-16 code units, within the field."""
    end: int
    match_located: bool
    char_start: int
    char_end: int


def snippet(text: str, words: list[str], *, locate: bool = True) -> Snippet:
    """At most 480 UTF-16 units of `text`, around the first word found when `locate`."""
    position = None
    if locate and words and len(text.encode("utf-8", "surrogatepass")) <= LOCATE_LIMIT:
        position = first_match(text, words)
    return snippet_at(text, position)


def first_match(text: str, words: list[str]) -> int | None:
    """Where the first of the (folded) words stands as a whole token in `text`."""
    found = _whole_words(tuple(words)).search(fold(text)) if words and text else None
    return found.start() if found else None


def snippet_in_body(body: str, found: int | None) -> Snippet:
    """A hit's snippet from where its words were first found in the body (`first_match`),
    as `snippet` would place it: by the match in a body of at most `LOCATE_LIMIT` bytes,
    else from the start. The body is folded and searched once for a hit's fields and its
    snippet both (a tenth of the time a page of hits took)."""
    if found is not None and len(body.encode("utf-8", "surrogatepass")) > LOCATE_LIMIT:
        found = None
    return snippet_at(body, found)


def snippet_at(text: str, position: int | None) -> Snippet:
    """At most 480 UTF-16 units of `text`, around `position` (from the start without)."""
    if position is None:
        start = 0
        match_located = False
    else:
        start = max(0, position - 120)
        if start:
            # begin on a word boundary rather than inside a word
            space = next((i for i in range(start, position) if text[i].isspace()), None)
            start = space + 1 if space is not None else start
        match_located = True
    end = min(len(text), start + SNIPPET_UNITS)
    units = end - start
    if units and max(text[start:end]) > "\uffff":  # astral characters take two units
        end = start
        units = 0
        while end < len(text):
            width = 2 if ord(text[end]) > 0xFFFF else 1
            if units + width > SNIPPET_UNITS:
                break
            units += width
            end += 1
    u16_start = utf16_len(text[:start])
    return Snippet(text[start:end], u16_start, u16_start + units, match_located, start, end)


def field_matches(words: list[str], **fields: str) -> list[str]:
    """Which of the named fields contain any of the folded words as whole tokens."""
    if not words:
        return []
    pattern = _whole_words(tuple(words))
    return [name for name, value in fields.items() if value and pattern.search(fold(value))]


@functools.lru_cache(maxsize=64)
def _whole_words(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the (folded) words where it stands as a whole token."""
    return re.compile(
        r"(?<![^\W_])(?:"
        + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
        + r")(?![^\W_])"
    )


def snippet_json(snip: Snippet, line_start: int, line_end: int) -> dict[str, Any]:
    """A hit's `snippet` as grep answers it, for a record's hit and a note's alike."""
    return {
        "text": snip.text,
        "start": snip.start,
        "end": snip.end,
        "lineStart": line_start,
        "lineEnd": line_end,
        "matchLocated": snip.match_located,
    }
