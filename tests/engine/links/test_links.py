"""Link extraction (spec: records-and-ontology, Filenames and links)."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from knowledge_desktop.engine.links import extract as extract_module
from knowledge_desktop.engine.links.extract import RawLink, extract
from knowledge_desktop.engine.records.parse import parse_bytes


def targets(body: str) -> list[tuple[str, str, str | None, int]]:
    return [(link.kind, link.target, link.label, link.line) for link in extract(body)]


def test_every_wikilink_form_is_found() -> None:
    """Links: path with label, path without .md, title and alias wikilinks."""
    body = "See [[people/ada-lovelace|Ada]], [[people/bob]], [[Grace Hopper]] and [[Countess]]."
    assert targets(body) == [
        ("wiki", "people/ada-lovelace", "Ada", 0),
        ("wiki", "people/bob", None, 0),
        ("wiki", "Grace Hopper", None, 0),
        ("wiki", "Countess", None, 0),
    ]


def test_relative_markdown_links_to_md_files_are_links() -> None:
    """Links: relative .md links count; web links, anchors and other files do not."""
    body = (
        "[Ada](../people/ada.md) [site](https://x.org/a.md) [top](#intro) "
        "[pic](../media/a.png) [enc](../people/grace%20hopper.md#bio) [js](javascript:alert(1))"
    )
    assert targets(body) == [
        ("markdown", "../people/ada.md", "Ada", 0),
        ("markdown", "../people/grace hopper.md", "enc", 0),
    ]


def test_nothing_in_code_is_a_link() -> None:
    """Links: code spans, fenced and indented code add no links."""
    body = "Inline `[[Ada]]` here.\n\n```\n[[Bob]] [b](b.md)\n```\n\n    [[Indented]]\n\nReal [[Carol]].\n"
    assert targets(body) == [("wiki", "Carol", None, 8)]


def test_images_and_embeds_are_not_links() -> None:
    """Links: image destinations (and ![[embeds]]) add no links."""
    assert targets("![diagram](../media/d.md) ![[people/ada]]") == []


def test_raw_html_adds_no_links() -> None:
    """Links: raw HTML, inline or block, is not scanned for links."""
    body = (
        '<a href="people/ada.md">Ada</a> and <span title="[[Eve]]">x</span>\n\n'
        "<div>\n[[Bob]]\n</div>\n\nText [[Carol]]"
    )
    assert [t[1] for t in targets(body)] == ["Carol"]


def test_the_generated_backlinks_section_adds_no_links() -> None:
    """Links: the <!-- backlinks:start --> … end section is generated and ignored."""
    body = (
        "Intro [[Ada]].\n\n<!-- backlinks:start -->\n- [[Bob]]\n- [c](c.md)\n"
        "<!-- backlinks:end -->\n\nAfter [[Carol]].\n"
    )
    assert [t[1] for t in targets(body)] == ["Ada", "Carol"]


def test_links_keep_their_line() -> None:
    """Links keep the body line they start on, inside lists, quotes and paragraphs."""
    body = (
        "# Title\n\nFirst line\nsecond [[Ada]] line\n\n- item\n- item [b](b.md)\n\n"
        "> quote\n> more [[Carol]]\n\n| a | [[Dan]] |\n"
    )
    assert [(t[1], t[3]) for t in targets(body)] == [("Ada", 3), ("b.md", 6), ("Carol", 9), ("Dan", 11)]


def test_wikilink_anchors_are_dropped_and_labels_kept() -> None:
    """Links: [[Page#Section|Label]] targets the page."""
    assert targets("[[Ada Lovelace#Early life|her youth]]") == [("wiki", "Ada Lovelace", "her youth", 0)]


def test_reference_style_links_resolve() -> None:
    """Links: reference-style Markdown links are links like inline ones."""
    body = "See [Ada][ada].\n\n[ada]: ../people/ada.md\n"
    assert targets(body) == [("markdown", "../people/ada.md", "Ada", 0)]


# -- robustness ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[]()|#!`<>-*_ \n\tab.md/\\:>~&;")), max_size=200))
def test_extraction_never_raises_on_markdown_punctuation(body: str) -> None:
    """Bad input never crashes: any mix of Markdown punctuation extracts without error."""
    extract(body)


_OLD_FAST_BLOCKERS = re.compile(
    r"[`~<\t]|\]:|^(?: {0,3}>| {4,}| {0,3}(?:(?:[-+*]|\d{1,9}[.)]) +)*?(?:[-+*]|\d{1,9}[.)]) {5,})",
    re.MULTILINE,
)
"""The one MULTILINE pattern `has_blockers` replaced (slow: SRE tried it at every character)."""


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.sampled_from(list(" \n\t-+*.)>`~<]:[0123456789ab")), max_size=12),
            st.sampled_from(
                ["\n    ", "\n   > ", "\n1. ", "\n- ", "1234567890.", "      ", "\n\n", "\r\n  "]
            ),
        ),
        max_size=20,
    )
)
def test_the_blocker_check_agrees_with_the_one_pattern_it_replaced(pieces: list[str]) -> None:
    """`has_blockers` sends exactly the bodies the former single regex sent to the full parse."""
    body = "".join(pieces)
    assert extract_module.has_blockers(body) == (_OLD_FAST_BLOCKERS.search(body) is not None)


def _every_line(body: str, limit: int) -> list[RawLink]:
    """The fast path as it was: every line of the body put into its chunk, each chunk read."""
    links: list[RawLink] = []
    env: dict[str, Any] = {}
    chunk: list[str] = []
    chunk_start = 0

    def flush() -> None:
        if chunk and len(links) < limit:
            extract_module._chunk_links(chunk, chunk_start, env, links, limit)

    for number, line in enumerate(body.split("\n")):
        if not line.strip():
            flush()
            chunk, chunk_start = [], number + 1
            continue
        if chunk and extract_module._CHUNK_START.match(line):
            flush()
            chunk, chunk_start = [], number
        if not chunk:
            chunk_start = number
        chunk.append(extract_module._strip_marker(line))
        if extract_module._HEADING.match(line):
            flush()
            chunk, chunk_start = [], number + 1
    flush()
    return links[:limit]


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "w",
                "[[a]]",
                "[[b|B]]",
                "[x](a.md)",
                "[y](b c.md)",
                "](",
                "[",
                "]",
                "\\[",
                "!",
                "- ",
                "1. ",
                "2) ",
                "# ",
                "## ",
                "#x",
                "---",
                "***",
                "===",
                "\n",
                "\n\n",
                "\r\n",
                "  ",
                "\x85",
                "\u2028",
                "\n \n",
                "a.md)",
                "\n- [[c]]",
                "\n# [[d]]",
            ]
        ),
        max_size=30,
    ),
    st.integers(min_value=1, max_value=6),
)
@example(["# ", "[", "w", "\n", "](", "a.md)"], 6)  # a heading ends its chunk: no link across it
@example(["# ", "[[a]]", " ", "[", "w", "\n", "](", "a.md)"], 6)
def test_the_fast_path_reads_only_the_chunks_with_links_and_finds_the_same(
    pieces: list[str], limit: int
) -> None:
    """Reading only the chunks around lines with `[[` or `](` finds exactly the links that
    putting every line in its chunk found, in order, with their lines, up to the limit."""
    body = "".join(pieces)
    assert extract_module._extract_fast(body, limit) == _every_line(body, limit)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "word",
                "[[Ada]]",
                "[[people/ada|A]]",
                "[x](a.md)",
                "[y](../b.md)",
                "[a b](c d.md)",
                "[é](é.md)",
                "[x](a.md#h)",
                "[x](%20.md)",
                "[x](javascript:a.md)",
                "[[a|b]]",
                "[[ ]]",
                "[[#x]]",
                "![x](a.md)",
                "\\[",
                "[x]( a.md )",
                "[](x.md)",
                "&#91;",
                "](",
                "[",
                "]",
                "(",
                ")",
                "- ",
                "1. ",
                "# ",
                "\n",
                "\n\n",
                "  ",
                "---",
                "===",
                "*",
                "_",
                "!",
                "|",
                ":",
            ]
        ),
        max_size=40,
    )
)
def test_fast_path_agrees_with_the_full_parser(pieces: list[str]) -> None:
    """The block-free fast path finds exactly what the full markdown-it parse finds."""
    body = "".join(pieces)
    if extract_module.has_blockers(body) or "[" not in body:
        return
    assert extract_module._extract_fast(body) == extract_module._extract_full(body)


@settings(max_examples=2500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "word",
                "[[Ada]]",
                "[x](a.md)",
                "[",
                "](",
                "a.md)",
                "- ",
                "1. ",
                "# ",
                "---",
                "\n",
                "\n\n",
                "  ",
                "    ",
                "\t",
                "`",
                "```",
                "````",
                "```py",
                "\n```\n",
                "\n````\n",
                "\n```py\n",
                "\n   ```\n",
                "\n``` \n",
                "\n```\t\n",
                "~~~",
                "\r\n",
                ">",
            ]
        ),
        max_size=30,
    )
)
@example(["\n````\n", "```", "\n", "[[Ada]]", "\n```\n", "````"])  # a shorter fence inside
def test_a_body_whose_only_code_is_fences_finds_what_the_full_parser_finds(pieces: list[str]) -> None:
    """Blanking plain fenced code blocks out (`without_fences`) and reading the rest by the
    fast path finds exactly the links of the full markdown-it parse."""
    body = "".join(pieces)
    masked = extract_module.without_fences(body)
    if masked is None or extract_module.has_blockers(masked) or "[" not in body:
        return
    assert extract_module._extract_fast(masked) == extract_module._extract_full(body)


@settings(max_examples=2500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "word",
                " ",
                "[[Ada]]",
                "[[a|b]]",
                "[x](a.md)",
                "[",
                "]",
                "](",
                "a.md)",
                "(",
                ")",
                "\\",
                "!",
                "`",
                "``",
                "`x`",
                "` [[a]] `",
                "[x](a`b.md)",
                "- ",
                "1. ",
                "# ",
                "---",
                "\n",
                "\n\n",
                "\n```\n",
                "\n  ``",
                "~",
                "    ",
            ]
        ),
        max_size=30,
    )
)
@example(["`", "[[Ada]]", "`"])
@example(["`a ", "[[Ada]]", " b`"])
def test_a_body_whose_only_code_is_code_spans_finds_what_the_full_parser_finds(pieces: list[str]) -> None:
    """A body whose backticks can only be code spans goes the fast path, with each chunk
    holding one parsed whole, and finds exactly the links of the full markdown-it parse."""
    body = "".join(pieces)
    if "[" not in body or not extract_module.only_code_spans(body):
        return
    assert extract_module.extract(body) == extract_module._extract_full(body)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_parsing_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    """Bad input never crashes: arbitrary bytes give a ParsedFile, maybe with diagnostics."""
    parse_bytes("private/x.md", "private", data)
    parse_bytes("private/x.md", "private", b"---\n" + data + b"\n---\n" + data)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parsing_never_raises_on_arbitrary_frontmatter_text(text: str) -> None:
    """Bad input never crashes: arbitrary text in a frontmatter block is diagnosed."""
    parsed = parse_bytes("private/x.md", "private", f"---\n{text}\n---\nbody".encode())
    assert parsed.status in ("record", "unrecognized", "note")
