"""Finding the links a record body makes (spec: records-and-ontology, Filenames and links).

A link is a wikilink (`[[target]]`, `[[target|Label]]`) or a Markdown link
whose destination is a relative `.md` file. Nothing inside code spans,
fences, indented code, raw HTML, image destinations, or the generated
`<!-- backlinks:start --> … <!-- backlinks:end -->` section is a link.

markdown-it-py does the parsing, with only the rules that decide what is a
link enabled. Its block pass is the costly part (about 1 ms per 4 KB), and
its only job here is to find code and HTML blocks, so a body that provably
has neither (no backtick, tilde, `<`, `>` quote, reference definition or
indented line) skips it: its paragraphs go straight to the inline parser.
So does a body whose only code is plain backtick fences (blanked out first)
or code spans (their paragraphs parsed whole). Property tests hold each
path to the full parse's answer.

markdown-it-py is imported when the first body is parsed, not with this module: a
process that only reads the index (an MCP server answering its first call, issue 28
§3) never needs it.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

MAX_LINKS = 5_000
"""Links followed per body; `parse` reports a body with more (`links-truncated`)."""
MAX_LINK_SCAN_CHARS = 1024 * 1024
"""How much of a body is searched for links (cut at a line end); `parse` reports a
longer body (`links-truncated`). Markdown parsing costs about 5 µs a character on
bracket-heavy text, so this keeps one file's link search within seconds."""
MAX_BRACKET_DEPTH = 32
"""Deeper `[` nesting in one paragraph is not given to the Markdown parser (see
`_inline_links`)."""

LinkKind = Literal["wiki", "markdown", "embed", "image"]
"""Records' bodies give "wiki" and "markdown" links; notes also "embed" (`![[…]]`) and
"image" (`![alt](…)`), see `records.notes`."""


class RawLink(NamedTuple):
    kind: LinkKind
    target: str
    """Wikilink: text before `|` without `#anchor`. Markdown: the decoded relative path.
    A note's links keep their `#anchor` (`records.notes.links`)."""
    label: str | None
    line: int
    """0-based line within the body."""


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    end = src.find("]]", pos + 2)
    if end < 0:
        return False
    inner = src[pos + 2 : end]
    if not inner.strip() or "\n" in inner or "[" in inner or "]" in inner:
        return False
    if not silent:
        embed = pos > 0 and src[pos - 1] == "!"
        token = state.push("wikilink", "", 0)
        target, _, label = inner.partition("|")
        token.meta = {
            "target": target.split("#", 1)[0].strip(),
            "label": label.strip() or None,
            "line": _line_at(state, pos),
            "embed": embed,
        }
        token.content = inner
    state.pos = end + 2
    return True


def _link_with_line(state: StateInline, silent: bool) -> bool:
    """The stock link rule, noting on link_open the line offset where it began."""
    from markdown_it.rules_inline.link import link as markdown_link

    start, first_new = state.pos, len(state.tokens)
    matched = markdown_link(state, silent)
    if matched and not silent:
        for token in state.tokens[first_new:]:
            if token.type == "link_open":
                token.meta = {"line": _line_at(state, start)}
                break
    return matched


def _line_at(state: StateInline, pos: int) -> int:
    """The 0-based line of `pos` in the inline source, counted on from the last
    answer, so that a paragraph with many links is not rescanned from its start
    for each (which made a long single line take minutes)."""
    memo: tuple[str, int, int] | None = state.env.get("_line_at")
    if memo is not None and memo[0] is state.src and memo[1] <= pos:
        line: int = memo[2] + state.src.count("\n", memo[1], pos)
    else:
        line = state.src.count("\n", 0, pos)
    state.env["_line_at"] = (state.src, pos, line)
    return line


@cache
def _parser() -> MarkdownIt:
    """The link parser, built on first use (building twice at once is harmless)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("zero", {"html": True})
    md.enable(["code", "fence", "blockquote", "list", "reference", "html_block", "paragraph", "heading"])
    md.enable(["newline", "escape", "backticks", "image", "autolink", "html_inline"])
    md.inline.ruler.push("link_line", _link_with_line)
    md.inline.ruler.before("link_line", "wikilink", _wikilink_rule)
    md.core.ruler.disable(["inline", "text_join"], ignoreInvalid=True)
    return md


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_BLOCKER_TEXT = ("`", "~", "<", "\t", "]:")
"""Text that may open code or HTML, or be a reference definition, wherever it stands."""
_BLOCKER_LINE = re.compile(
    r"\n(?: {0,3}>| {4,}| {0,3}(?:(?:[-+*]|\d{1,9}[.)]) +)*?(?:[-+*]|\d{1,9}[.)]) {5,})"
)
"""A line (after its `\\n`) that opens a quote, indented code, or a list item whose text
is indented code. Anchored on the `\\n` rather than on `^` in MULTILINE: a pattern that
starts with a literal lets SRE skip from one line end to the next, where `^` made it try
the whole alternation at every character (a fifth of link extraction's time)."""
_FENCE_LIKE = re.compile(r" {0,3}`{3}")
_FENCE_LINE = re.compile(r"^ {0,3}`{3}", re.MULTILINE)
_FENCE_OPEN = re.compile(r"(`{3,})[^`]*$")
_FENCE_CLOSE = re.compile(r"(`{3,}) *$")
_CHUNK_START = re.compile(r"^ {0,3}(?:[-+*]\s|\d{1,9}[.)]\s|#{1,6}(?:\s|$)|[-=*_]{3,}\s*$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")


def scanned_part(body: str) -> str:
    """The part of `body` searched for links: all of it, or its first
    `MAX_LINK_SCAN_CHARS` characters up to the last line end among them."""
    if len(body) <= MAX_LINK_SCAN_CHARS:
        return body
    cut = body.rfind("\n", 0, MAX_LINK_SCAN_CHARS)
    return body[: cut + 1] if cut >= 0 else ""


def extract(body: str, limit: int = MAX_LINKS) -> list[RawLink]:
    """The first `limit` links in `body`, in order, with their 0-based body line."""
    if "[" not in body:
        return []
    if not has_blockers(body):
        return _extract_fast(body, limit)
    fast = body
    if "```" in body:
        masked = without_fences(body)
        if masked is None:
            return _extract_full(body, limit)
        if not has_blockers(masked):
            return _extract_fast(masked, limit)
        fast = masked
    if only_code_spans(fast):
        return _extract_fast(fast, limit, code_spans=True)
    return _extract_full(body, limit)


def only_code_spans(body: str) -> bool:
    """Whether the backticks are all that keeps `body` off the fast path and none of them
    can open a fence: then they are code spans, which stay within a paragraph, and the
    paragraphs that hold one are given whole to the inline parser (`_chunk_links`).
    Taking the backticks out cannot hide another blocker, only make one."""
    return "`" in body and _FENCE_LINE.search(body) is None and not has_blockers(body.replace("`", ""))


def without_fences(body: str) -> str | None:
    """`body` with its fenced code blocks blanked out line for line, so that a body whose
    only code is such blocks can take the fast path (a tenth of records have one, and the
    full parse costs ten times the fast one). A fence ends a paragraph as a blank line does
    and holds no links, so the links and their lines stay the same. Only plain fences are
    taken: each opens at the start of a line with three or more backticks (no backtick
    after them) and is closed by a line of as many or more backticks, nothing else on it but
    spaces. None for any other body: no fence, one left open, a carriage return, or a line
    that might open or close a fence otherwise (indented, a tab after it)."""
    if "\r" in body:
        return None
    lines = body.split("\n")
    width = 0
    for number, line in enumerate(lines):
        if width:
            lines[number] = ""
            if _FENCE_LIKE.match(line) is None:
                continue
            closing = _FENCE_CLOSE.match(line)
            if closing is None:
                return None
            if len(closing.group(1)) >= width:
                width = 0
        elif _FENCE_LIKE.match(line) is not None:
            opening = _FENCE_OPEN.match(line)
            if opening is None:
                return None
            width = len(opening.group(1))
            lines[number] = ""
    if width:
        return None
    masked = "\n".join(lines)
    return masked if len(masked) < len(body) else None


def has_blockers(body: str) -> bool:
    """Whether `body` may hold code, HTML, a quote or a reference definition, which only
    the full block parse finds (otherwise `_extract_fast` is exact)."""
    for text in _BLOCKER_TEXT:
        if text in body:
            return True
    return _BLOCKER_LINE.search("\n" + body) is not None


def _extract_full(body: str, limit: int = MAX_LINKS) -> list[RawLink]:
    env: dict[str, Any] = {}
    links: list[RawLink] = []
    in_generated = False
    for block in _parser().parse(body, env):
        if block.type == "html_block":
            if "backlinks:start" in block.content:
                in_generated = "backlinks:end" not in block.content.split("backlinks:start", 1)[1]
            elif "backlinks:end" in block.content:
                in_generated = False
            continue
        if in_generated or block.type != "inline" or "[" not in block.content:
            continue
        first_line = block.map[0] if block.map else 0
        _inline_links(block.content, first_line, env, links, limit)
        if len(links) >= limit:
            return links[:limit]
    return links


def _extract_fast(body: str, limit: int = MAX_LINKS, *, code_spans: bool = False) -> list[RawLink]:
    """The links of a body without code or HTML, chunk by chunk: a chunk is a run of lines
    that a blank line, a list item, a heading or a thematic break starts, and a heading or
    a blank line ends. Only the chunks holding a line with `[[` or `](` can hold a link, so
    only those are found and read (the lines around them decide where they start and end);
    going through every line was most of this path's time (issue 26)."""
    links: list[RawLink] = []
    env: dict[str, Any] = {}
    lines = body.split("\n")
    last = len(lines) - 1
    read_up_to = -1
    for number, line in enumerate(lines):
        if number <= read_up_to or ("[[" not in line and "](" not in line):
            continue
        start = number
        while not _CHUNK_START.match(lines[start]) and start > 0:
            before = lines[start - 1]
            if not before.strip() or _HEADING.match(before):
                break
            start -= 1
        end = number
        while not _HEADING.match(lines[end]) and end < last:
            after = lines[end + 1]
            if not after.strip() or _CHUNK_START.match(after):
                break
            end += 1
        read_up_to = end
        chunk = [_strip_marker(line) for line in lines[start : end + 1]]
        _chunk_links(chunk, start, env, links, limit, code_spans)
        if len(links) >= limit:
            break
    return links[:limit]


def _chunk_links(
    chunk: list[str],
    chunk_start: int,
    env: dict[str, Any],
    links: list[RawLink],
    limit: int,
    code_spans: bool = False,
) -> None:
    # Without code or HTML (the fast path's precondition) a link needs "[[" or "](" in its
    # chunk; text before the word holding the first "[" and after the last "]" or ")"
    # cannot take part in one, so the parser never sees it. A chunk with a code span
    # (`code_spans`) is parsed whole: a backtick before or after a link may enclose it.
    text = "\n".join(line.strip() for line in chunk)
    if "[[" not in text and "](" not in text:
        return
    if code_spans and "`" in text:
        _inline_links(text, chunk_start, env, links, limit)
        return
    start = text.find("[")
    if start < 0:
        return
    start = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1
    end = max(text.rfind("]"), text.rfind(")")) + 1
    first_line = chunk_start + text.count("\n", 0, start)
    text = text[start:end]
    simple = _simple_links(text, first_line, limit - len(links))
    if simple is not None:
        links.extend(simple)
        return
    _inline_links(text, first_line, env, links, limit)


def _inline_links(text: str, first_line: int, env: dict[str, Any], out: list[RawLink], limit: int) -> None:
    """The links of one paragraph's text, by markdown-it's inline parser, unless its
    brackets nest deeper than `MAX_BRACKET_DEPTH`: the parser's link rule scans ahead
    from every `[` to its `]`, so such text costs it quadratic time (100,000 nested
    brackets took minutes); there, links are taken by their plain form instead."""
    if bracket_depth(text) > MAX_BRACKET_DEPTH:
        out.extend(_pattern_links(text, first_line, limit - len(out)))
        return
    children: list[Token] = []
    md = _parser()
    md.inline.parse(text, md, env, children)
    _collect(children, first_line, out)


def bracket_depth(text: str) -> int:
    """How deep `[` brackets nest in `text`, counted up to just past `MAX_BRACKET_DEPTH`."""
    depth = deepest = 0
    for match in _BRACKET.finditer(text):
        if match.group() == "[":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_BRACKET_DEPTH:
                    break
        elif depth:
            depth -= 1
    return deepest


def _pattern_links(text: str, first_line: int, limit: int) -> list[RawLink]:
    """The first `limit` one-line links of `text` found by their plain form alone."""
    out: list[RawLink] = []
    pos, line = 0, first_line
    for match in _SIMPLE_LINK.finditer(text):
        if len(out) >= limit:
            break
        line += text.count("\n", pos, match.start())
        pos = match.start()
        wiki = match.group(1)
        if wiki is not None:
            target, _, label = wiki.partition("|")
            target = target.split("#", 1)[0].strip()
            if target:
                out.append(RawLink("wiki", target, label.strip() or None, line))
        elif (path := _relative_md_target(_normalized(match.group(3)))) is not None:
            out.append(RawLink("markdown", path, match.group(2) or None, line))
    return out


@lru_cache(maxsize=8192)
def _normalized(destination: str) -> str:
    """markdown-it's normalized form of a link destination, remembered: the same few
    destinations recur across a vault's records, and percent-encoding one costs more than
    the rest of reading a simple link."""
    return _parser().normalizeLink(destination)


_BRACKET = re.compile(r"[\[\]]")
_SIMPLE_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]|\[([^\[\]\n\\]*)\]\(([^()\s\\]+)\)")
_SPECIAL = re.compile(r"[\[\]\\]")


def _simple_links(text: str, first_line: int, limit: int) -> list[RawLink] | None:
    """The first `limit` links of a chunk made only of plain text and one-line links,
    else None.

    When no bracket or backslash stands outside `[[…]]` and `[label](dest)`
    matches, markdown-it's inline parser would find exactly these links, so
    they are read off directly; anything less plain goes to the parser. Text
    after the last link wanted does not change the links before it, so it is
    not looked at.
    """
    out: list[RawLink] = []
    pos = 0
    line = first_line
    for match in _SIMPLE_LINK.finditer(text):
        if len(out) >= limit:
            return out
        begin = match.start()
        if _SPECIAL.search(text, pos, begin) or (begin and text[begin - 1] == "!"):
            return None
        line += text.count("\n", pos, begin)
        inner = match.group(1)
        if inner is not None:
            if not inner.strip():
                return None
            target, _, label = inner.partition("|")
            target = target.split("#", 1)[0].strip()
            if target:
                out.append(RawLink("wiki", target, label.strip() or None, line))
        else:
            href = _normalized(match.group(3))
            if not _parser().validateLink(href):
                return None
            path = _relative_md_target(href)
            if path is not None:
                out.append(RawLink("markdown", path, match.group(2) or None, line))
        pos = match.end()
    if _SPECIAL.search(text, pos):
        return None
    return out


_MARKER = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)]|#{1,6})(?=\s|$)")


def _strip_marker(line: str) -> str:
    return _MARKER.sub("", line, count=1)


def _collect(children: list[Token], first_line: int, out: list[RawLink]) -> None:
    index = 0
    while index < len(children):
        token = children[index]
        if token.type == "wikilink" and not token.meta["embed"] and token.meta["target"]:
            out.append(
                RawLink("wiki", token.meta["target"], token.meta["label"], first_line + token.meta["line"])
            )
        elif token.type == "link_open":
            href = str(token.attrs.get("href", ""))
            label_parts: list[str] = []
            depth = 1
            index += 1
            while index < len(children) and depth:
                inner = children[index]
                if inner.type == "link_open":
                    depth += 1
                elif inner.type == "link_close":
                    depth -= 1
                elif inner.type in ("text", "code_inline"):
                    label_parts.append(inner.content)
                index += 1
            target = _relative_md_target(href)
            if target is not None:
                line = first_line + int(token.meta.get("line", 0)) if token.meta else first_line
                out.append(RawLink("markdown", target, "".join(label_parts) or None, line))
            continue
        index += 1


def _relative_md_target(href: str) -> str | None:
    if not href or href.startswith(("#", "/", "\\")) or _SCHEME.match(href):
        return None
    path = href.split("#", 1)[0].split("?", 1)[0]
    path = unquote(path)
    if not path.lower().endswith(".md"):
        return None
    return path
