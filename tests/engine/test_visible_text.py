"""`visible_text`: vault text shown to a person escapes what would drive a terminal or
reorder text, and keeps everything else as written (issue 24 item 6)."""

from __future__ import annotations

import json

import pytest

from knowledge_desktop.engine.query.merge_candidates import as_text
from knowledge_desktop.engine.visible_text import block, json_text, one_line

DRIVING = ["\x1b", "\x07", "\r", "\n", "\t", "\x00", "\x7f", "\x9b", "\x85", "\u202e", "\u2066", "\u2028"]


@pytest.mark.parametrize("char", DRIVING)
def test_one_line_escapes_every_control_and_bidi_character(char: str) -> None:
    """A field of a row: each character shows as its Python escape, on one line."""
    shown = one_line(f"a{char}b")
    assert shown == "a" + char.encode("unicode_escape").decode("ascii") + "b"
    assert shown.isprintable()


def test_printable_text_is_unchanged_and_escaping_twice_changes_nothing() -> None:
    """Accents, emoji, a no-break space and right-to-left letters are text, not controls;
    an escaped string holds no control, so escaping it again is the identity."""
    text = "Café 🦉 a\u00a0b שלום \\x1b"
    assert one_line(text) == text
    assert block(text) == text
    once = one_line("x\x1b[31my\nz")
    assert one_line(once) == once


def test_block_keeps_line_ends_and_tabs_and_escapes_the_rest() -> None:
    """A body: LF and CRLF line ends are lines (shown with LF), tabs stay; a lone CR, ESC,
    BEL, C1 and a bidi override are escaped."""
    assert block("one\x1b[2J\r\ntwo\tx\rthree\x9b\u202e\n") == "one\\x1b[2J\ntwo\tx\\rthree\\x9b\\u202e\n"
    assert block("-a\r\n+a\n", crlf_as_lf=False) == "-a\\r\n+a\n"  # a diff shows the line-end change


def test_json_text_writes_no_raw_control_and_reads_back_exactly() -> None:
    """JSON for a terminal: C1, DEL and bidi marks (which json.dumps leaves raw) become
    \\u escapes; the parsed value is the same string."""
    value = {"title": "".join(DRIVING) + "é", "n": [1, None]}
    assert any(c in json.dumps(value, ensure_ascii=False) for c in ("\x9b", "\u202e"))
    text = json_text(value)
    assert not any(c in text for c in DRIVING if c != "\n")
    assert json.loads(text) == value
    assert "é" in text


def test_merge_candidates_listing_escapes_titles_and_keys() -> None:
    """`knowledge diagnostics`' possible duplicates: titles, ids, types and the shared alias
    in the reason come out escaped, one line per group."""
    group = {
        "strength": "weak",
        "type": "note",
        "reason": "same title 'x\x1b[31m'",
        "pages": [{"id": "pg_a", "title": "x\x1b[31m"}, {"id": "pg_b\x07", "title": "X\x1b[31m"}],
    }
    text = as_text([group])
    assert text == "weak    note         x\\x1b[31m (pg_a), X\\x1b[31m (pg_b\\x07) — same title 'x\\x1b[31m'"
