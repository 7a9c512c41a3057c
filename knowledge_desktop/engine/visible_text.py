"""Vault text made safe to show a person: on a terminal, in a report, in a spreadsheet.

A file name, a title, a type or a body can hold any character, and some of them act
instead of showing: ESC starts a terminal command (colours, cursor moves, a new window
title), BEL rings, CR returns to the start of the line and overwrites it, a newline
splits one listed row into two, C1 bytes such as U+009B are ESC [ to many terminals,
and bidirectional overrides reorder the text that follows them. Every human output
(the `knowledge` command's lines, the Markdown, HTML and CSV reports) passes such
text through `one_line` or `block`, which show each of these characters as a
visible Python-style escape (`\\x1b`, `\\n`, `\\u202e`). JSON output must stay exact
for scripts, so it goes through `json_text`, which only chooses JSON's own escapes.

- `one_line` is for a field of a row (an id, a type, a title, a path, a message):
  every control character is escaped, the newline and tab too, so one record stays
  one line.
- `block` is for multi-line text (a record's body, a diff): its line ends are kept,
  tabs too, and everything else `one_line` escapes is escaped. A CR of a CRLF line
  end is a line end and is dropped; a lone CR is escaped.
- `json_text` is `json.dumps` for output a person may see (`--json` on a terminal, the
  JSON report): `json.dumps` escapes only C0 controls, so DEL, the C1 controls and the
  marks are written as `\\u` escapes too. The parsed value is the same exact string.

The escape of a character is its `unicode_escape` spelling, which is also how
`knowledge show` accepts a non-UTF-8 file name (as the diagnostics print it).
"""

from __future__ import annotations

import json
import re
from typing import Any

_MARKS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""The Arabic letter mark, the left-to-right and right-to-left marks, the embeddings,
overrides and isolates, and the Unicode line and paragraph separators."""
_IN_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_MARKS}]")
"""Every C0 control (newline and tab included), DEL, every C1 control, and the marks."""
_IN_JSON = re.compile(f"[\x7f-\x9f{_MARKS}]")
"""What `json.dumps(ensure_ascii=False)` leaves raw of the characters `one_line` escapes."""
_IN_BLOCK = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_MARKS}]")
"""The same but for the newline and the tab."""


def _escape(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


def one_line(text: object) -> str:
    """`text` as one line with every control and bidirectional character escaped.

    Escaping text that holds none changes nothing, so a message already escaped (a
    diagnostic that quotes a type with `!r`) is shown as it is.
    """
    return _IN_LINE.sub(_escape, str(text))


def block(text: object, *, crlf_as_lf: bool = True) -> str:
    """Multi-line `text` with its line ends (LF or CRLF, shown as LF) and tabs kept, and
    every other control or bidirectional character escaped. With `crlf_as_lf=False` the
    CR of a CRLF is escaped too (`\\r` before the line end): a diff must show a change
    of line ends, which would otherwise look like two equal lines."""
    text = str(text)
    return _IN_BLOCK.sub(_escape, text.replace("\r\n", "\n") if crlf_as_lf else text)


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """`value` as JSON text (UTF-8 kept, as `json.dumps(ensure_ascii=False)` writes it) with
    `json_escaped` applied."""
    return json_escaped(json.dumps(value, indent=indent, ensure_ascii=False))


def json_escaped(text: str) -> str:
    """JSON text in which no character that drives a terminal or reorders text is written
    raw: each is a `\\uXXXX` escape, which JSON reads back as the same character, so the
    parsed value is exact. Outside strings JSON is ASCII, so this cannot change structure."""
    return _IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
