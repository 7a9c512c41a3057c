"""Visible text of inline Markdown, which names changelog entries and glossary table rows
(spec: knowledge-entities-extraction.md, "Extraction and identity": an entry's id binds
its title, and a reader titles an entry by what it shows)."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.extraction.inline import visible_text


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        (
            "**ui:** add a knob ([#7](https://example.org/i/7)) ([c0ffee1](https://example.org/c/c0ffee1))",
            "ui: add a knob (#7) (c0ffee1)",
        ),
        ('see [the guide](guide.md "The guide") and [notes](<my notes.md>)', "see the guide and notes"),
        ("[![Build badge](badge.svg)](https://ci.example.org)", "Build badge"),
        ("![a lamp](lamp.png) lit", "a lamp lit"),
        ("[**Bold** words](x.md)", "Bold words"),
        ("__strong__ *soft* _soft_ ***both***", "strong soft soft both"),
        ("use `--dry-run` or `` a`b ``", "use --dry-run or a`b"),
        ("`**kept**` and `[kept](x)`", "**kept** and [kept](x)"),
        ("snake_case_name stays, 2 * 3 * 4 stays", "snake_case_name stays, 2 * 3 * 4 stays"),
        ("**unclosed and [no link](two words)", "**unclosed and [no link](two words)"),
        ("[reference][ref] and <https://example.org>", "[reference][ref] and <https://example.org>"),
        (r"\*escaped\* and \[not a link](x)", r"\*escaped\* and \[not a link](x)"),
        ("wide \t  gaps\u00a0here", "wide gaps here"),
    ],
)
def test_visible_text(markdown: str, shown: str) -> None:
    assert visible_text(markdown) == shown
