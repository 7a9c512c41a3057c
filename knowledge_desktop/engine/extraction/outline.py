"""A document's block outline: headings, paragraphs and list items, fences skipped.

A small line scanner rather than a full CommonMark parser: extraction needs
only where headings, paragraphs and top-level list items start and end, which
lines are fenced code (never a definition) and which lines are marked as
generated (never evidence). The traversal bounds of the spec (8,192 root
nodes, 128 headings; knowledge-entities-extraction.md, "Bounds and coverage")
end the scan early, and the outline says so, for partial coverage.

Supported: ATX and setext headings, ``` and ~~~ fences, indented code outside
lists, `-`/`*`/`+`/`1.`/`1)` list items with indented or lazy continuation,
thematic breaks, and generated-content markers: an HTML comment
`<!-- BEGIN GENERATED … -->` (or START) up to `<!-- END GENERATED … -->`, or a
comment naming the file generated / "do not edit" in its first five lines,
which marks the whole document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowledge_desktop.engine.extraction.bounds import MAX_HEADINGS, MAX_ROOT_NODES
from knowledge_desktop.engine.extraction.source import Source

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# Every repetition here is bounded: a hostile line (megabytes of spaces or `<!--`) must
# cost time linear in its length, never quadratic.
_GEN_BEGIN = re.compile(r"<!--\s{0,10}(?:BEGIN|START)\b[^>]{0,200}?\bGENERATED\b", re.IGNORECASE)
_GEN_END = re.compile(r"<!--\s{0,10}END\b[^>]{0,200}?\bGENERATED\b", re.IGNORECASE)
_GEN_FILE = re.compile(r"<!--[^>]{0,200}?\b(?:generated|do not edit)\b", re.IGNORECASE)
WHOLE_FILE_MARKER_LINES = 5


@dataclass(frozen=True, slots=True)
class Heading:
    line: int
    """The heading's first line (a setext heading starts at its text)."""
    level: int
    text: str
    end: int
    """The last line of its section: before the next heading of the same or a higher level."""


@dataclass(frozen=True, slots=True)
class Block:
    kind: str
    """`paragraph` or `item` (a list item with its nested content)."""
    start: int
    end: int
    indent: int
    heading: int
    """Index in `Outline.headings` of the innermost heading above it, or -1."""


@dataclass(slots=True)
class Outline:
    headings: list[Heading] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    generated: list[tuple[int, int]] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    """Bound codes that ended the scan early: `traversal-capped`, `headings-capped`."""
    scanned_to: int = 0

    def is_generated(self, start: int, end: int) -> bool:
        return any(a <= end and start <= b for a, b in self.generated)

    def chain(self, index: int) -> list[int]:
        """Indices of heading `index` and the headings enclosing it, outermost first."""
        out: list[int] = []
        while index >= 0:
            out.append(index)
            level = self.headings[index].level
            index = next((j for j in range(index - 1, -1, -1) if self.headings[j].level < level), -1)
        return out[::-1]

    def parents(self, index: int) -> list[Heading]:
        """The headings enclosing heading or block heading `index`, innermost last."""
        return [self.headings[i] for i in self.chain(index)]


@dataclass(slots=True)
class _Open:
    kind: str
    start: int
    end: int
    indent: int
    blank: bool = False


@dataclass(slots=True)
class _Scan:
    src: Source
    out: Outline
    raw_headings: list[tuple[int, int, str]] = field(default_factory=list)
    open: _Open | None = None
    nodes: int = 0

    def close(self) -> None:
        if self.open is not None:
            o = self.open
            self.out.blocks.append(Block(o.kind, o.start, o.end, o.indent, len(self.raw_headings) - 1))
            self.open = None

    def node(self) -> bool:
        """Count one root node; False once over the bound."""
        self.nodes += 1
        if self.nodes > MAX_ROOT_NODES:
            self.out.cut.append("traversal-capped")
            return False
        return True


def scan(src: Source, body_start: int) -> Outline:
    """The outline of `src` from line `body_start` on."""
    out = Outline()
    st = _Scan(src, out)
    last = len(src)
    fence: tuple[str, int] | None = None
    fence_in_item = False
    gen_start: int | None = None
    n = body_start - 1
    while n < last:
        n += 1
        line = src.content(n)
        if fence is not None:
            m = _FENCE.match(line)
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and not m.group(3).strip():
                fence = None
            if fence_in_item and st.open is not None:
                st.open.end = n
            continue
        comment = line.lstrip().startswith("<!--")
        if comment and _GEN_BEGIN.match(line.lstrip()):
            gen_start = n if gen_start is None else gen_start
            st.close()
            continue
        if comment and _GEN_END.match(line.lstrip()):
            if gen_start is not None:
                out.generated.append((gen_start, n))
                gen_start = None
            st.close()
            continue
        if comment and n < body_start + WHOLE_FILE_MARKER_LINES and _GEN_FILE.match(line.lstrip()):
            out.generated.append((body_start, last))
        expanded = line.expandtabs(4)
        stripped = expanded.strip()
        indent = len(expanded) - len(expanded.lstrip(" "))
        item = st.open if st.open is not None and st.open.kind == "item" else None
        if not stripped:
            if st.open is not None and st.open.kind == "paragraph":
                st.close()
            elif item is not None:
                item.blank = True
            continue
        m = _FENCE.match(expanded)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            fence = (m.group(2)[0], len(m.group(2)))
            if item is not None and indent > item.indent:
                fence_in_item = True
                item.end, item.blank = n, False
                continue
            fence_in_item = False
            st.close()
            if not st.node():
                break
            continue
        if item is not None and indent > item.indent:
            item.end, item.blank = n, False
            continue
        atx = _ATX.match(expanded)
        if atx:
            st.close()
            if not _heading(st, n, len(atx.group(1)), _atx_text(expanded[atx.end() :])):
                break
            continue
        para = st.open if st.open is not None and st.open.kind == "paragraph" else None
        setext = _SETEXT.match(expanded)
        if setext and para is not None:
            text = " ".join(src.content(k).strip() for k in range(para.start, n))
            st.open = None
            if not _heading(st, para.start, 1 if setext.group(1)[0] == "=" else 2, text):
                break
            continue
        if _BREAK.match(expanded):
            st.close()
            if not st.node():
                break
            continue
        li = _ITEM.match(expanded)
        if li and ((li.group(3) or "").strip() or para is None):
            st.close()
            if not st.node():
                break
            st.open = _Open("item", n, n, indent)
            continue
        if item is not None:
            if not item.blank:
                item.end = n
                continue
            st.close()
        if para is not None:
            para.end = n
            continue
        if indent >= 4:
            continue  # indented code: never a definition
        if not st.node():
            break
        st.open = _Open("paragraph", n, n, indent)
    else:
        n = last
    st.close()
    if gen_start is not None:
        out.generated.append((gen_start, last))
    out.scanned_to = n if out.cut else last
    _sections(st)
    return out


def _atx_text(rest: str) -> str:
    """An ATX heading's text: without its optional closing run of `#` (one preceded by
    a space or tab, or the whole text)."""
    text = rest.strip()
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip()
    return text


def _heading(st: _Scan, line: int, level: int, text: str) -> bool:
    if len(st.raw_headings) >= MAX_HEADINGS:
        st.out.cut.append("headings-capped")
        return False
    if not st.node():
        return False
    st.raw_headings.append((line, level, text))
    return True


def _sections(st: _Scan) -> None:
    """Each heading's section end: the line before the next heading at its level or
    above, else the last scanned line; trailing blank lines are not part of it."""
    raw = st.raw_headings
    end_of_scan = st.out.scanned_to
    if st.out.cut:
        end_of_scan = max(end_of_scan - 1, 0)
        st.out.scanned_to = end_of_scan
    for i, (line, level, text) in enumerate(raw):
        end = end_of_scan
        for line2, level2, _ in raw[i + 1 :]:
            if level2 <= level:
                end = line2 - 1
                break
        st.out.headings.append(Heading(line, level, text, max(st.src.trim_end(line, end), line)))
