"""Concepts: glossary terms, definition lists, bold and dash definitions, concept documents.

Spec: knowledge-entities-extraction.md, "Extraction and identity". A glossary
scope is a whole glossary document (named glossary, terminology, definitions,
terms, vocabulary or lexicon, or declaring `type: glossary`) or the section
under a heading of one of those names. Inside it, a term is a leaf heading
with content, a `**Term**: definition` line or list item, or a `Term — definition`
(em or en dash, white space on both sides) line or list item. A term may hold
underscores; every term is named by its visible text, so one written as a code span
(`` `snake_case` ``) is named by the text inside the backticks. Within a paragraph, a
later line opens another definition only when the paragraph is a run of definitions
written alike; a leaf heading whose section opens with a definition (or a table of
terms) groups them and is not a term. A bold label naming a part of an entry
("**Note**:", "**Example**:") is no term.
A pipe table whose first header cell names terms
("Term", "Name", "Acronym", …) gives one term per body row, named by its first cell
and bound to the row's line; any other table in a scope defines nothing.
A definition list (`Term` then `: definition`)
defines a term anywhere. Outside glossary scopes bold and dash lines are left
alone: they are too common in prose to be declarations. Fenced and indented
code never reaches here (the outline skips it); generated lines are cut out.

A concept document (`type: concept`, or a non-glossary document declaring
`aliases`) is one concept whose aliases bind to its principal title. A
glossary's frontmatter aliases cannot say which of several terms they name:
they stay unbound and coverage says so; with a single term they bind to it.
"""

from __future__ import annotations

import re

from knowledge_desktop.engine.extraction import ids
from knowledge_desktop.engine.extraction.bounds import MAX_ALIASES
from knowledge_desktop.engine.extraction.inline import visible_text
from knowledge_desktop.engine.extraction.model import CONCEPTS, Found, Reason
from knowledge_desktop.engine.extraction.outline import Block
from knowledge_desktop.engine.extraction.parsed import Parsed
from knowledge_desktop.engine.extraction.source import text_list

GLOSSARY_NAMES = frozenset({"glossary", "terminology", "definitions", "terms", "vocabulary", "lexicon"})
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
# The term runs to the closing delimiter it opened with, so `max_commits` keeps its
# underscores inside `**…**` (and a `*` inside `__…__`); each character is looked at
# once, and the delimiter search is a fixed two characters, so a hostile line is linear.
_BOLD = re.compile(r"^(\*\*|__)(?P<term>(?:(?!\1).)+?)(?:\1[ \t]*:|:[ \t]*\1)\s+\S")
# The dash needs white space on both sides: `Term—definition` or `2019–2020` reads as one word.
_DASH = re.compile(r"^(?:\*\*|__)?(?P<term>[^—–*\n]{1,100}?)(?:\*\*|__)?\s+[—–]\s+\S")
_DEFINITION = re.compile(r"^\s{0,3}:\s+\S")
_SENTENCE = re.compile(r"[.!?;,]\s|[.!?;:,]$")
# The first header cell of a table that lists terms, singular or plural, any case.
TERM_COLUMNS = frozenset(
    {"term", "name", "concept", "word", "abbreviation", "acronym"}
    | {"terms", "names", "concepts", "words", "abbreviations", "acronyms"}
)
_PIPE = re.compile(r"(?<!\\)\|")
_ALIGN = re.compile(r"^\s*:?-+:?\s*$")
# Bold labels that name a part of an entry ("**Note**: taken hourly.") rather than a term.
LABELS = frozenset(
    {"note", "notes", "definition", "example", "examples", "see also", "synonym", "synonyms"}
    | {"alias", "aliases", "usage", "source", "sources", "related", "warning", "tip", "important"}
)
MAX_DASH_TERM_WORDS = 6
"""A dash line whose left side is longer than this reads as prose, not a term."""


def is_glossary(doc: Parsed) -> bool:
    return doc.type == "glossary" or doc.stem.lower() in GLOSSARY_NAMES


def concept_document(doc: Parsed) -> Found | None:
    """The concept a `type: concept` or alias-declaring document defines."""
    data = doc.fm.data or {}
    if doc.type != "concept" and "aliases" not in data:
        return None
    name, title_line = doc.title()
    region = doc.whole(CONCEPTS, title_line)
    if region is None:
        return None
    found = Found(ids.concept_id(name), "concept", ids.clip_name(name)[0], regions=[region])
    found.aliases = _bounded(doc, text_list(data.get("aliases")))
    return found


def glossary_terms(doc: Parsed, whole_glossary: bool) -> list[Found]:
    """Terms in glossary scopes, and definition lists anywhere; in document order."""
    outline = doc.outline
    scopes: list[tuple[int, int, int]] = []  # (first line, last line, heading level)
    if whole_glossary:
        scopes.append((doc.fm.body_start, outline.scanned_to, 0))
    else:
        for h in outline.headings:
            if h.text.strip().rstrip(":").lower() in GLOSSARY_NAMES:
                scopes.append((h.line + 1, h.end, h.level))
    out: list[Found] = []
    with_text = {b.heading for b in outline.blocks}
    found: list[tuple[Block, list[tuple[int, str]]]] = []
    rows: set[int] = set()  # lines of table rows: each is its own region
    opens: dict[int, bool] = {}  # heading -> its section opens with a definition
    for b in outline.blocks:
        in_scope = _scope_of(scopes, b.start) is not None
        table = _table_terms(doc, b) if in_scope else None
        if table is not None:
            rows.update(line for line, _ in table)
        starts = table if table is not None else _block_starts(doc, b, in_scope)
        found.append((b, starts))
        opens.setdefault(b.heading, bool(starts))
    # A heading whose section opens with a definition or a table of terms groups them
    # ("## Exchange" over "**Data bundle** — …"); it is not a term itself. A label opening
    # a term's section ("## Validity interval" over "**Note**: …") is no definition, so
    # that heading stays a term.
    groups = {h for h, first in opens.items() if first}
    for i, h in enumerate(outline.headings):
        scope = _scope_of(scopes, h.line)
        if scope is None or h.level <= scope[2] or len(h.text.strip()) <= 1:
            continue
        if h.text.strip().rstrip(":").lower() in GLOSSARY_NAMES:
            continue  # a "Glossary" or "Terms" heading names a scope, not a term
        leaf = not any(o.line > h.line and o.line <= h.end for o in outline.headings[i + 1 :])
        has_text = i in with_text
        title_heading = whole_glossary and h.level == 1 and i == 0
        if leaf and has_text and not title_heading and i not in groups:
            _add(doc, out, h.text.strip(), h.line, h.end)
    for block, starts in found:
        for k, (line_no, term) in enumerate(starts):
            end = starts[k + 1][0] - 1 if k + 1 < len(starts) else block.end
            end = line_no if line_no in rows else end
            _add(doc, out, term, line_no, end)
    return out


def _scope_of(scopes: list[tuple[int, int, int]], line: int) -> tuple[int, int, int] | None:
    return next((s for s in scopes if s[0] <= line <= s[1]), None)


def _table_terms(doc: Parsed, block: Block) -> list[tuple[int, str]] | None:
    """None when `block` is no pipe table (a header row, then a delimiter row with as many
    cells); else the terms of its body rows when its first header names terms, and none
    when it is some other table (a table of versions or options declares no vocabulary).
    The table ends at a row without a pipe; a row with an empty first cell is skipped."""
    if block.kind != "paragraph" or block.end <= block.start:
        return None
    header = _cells(doc.src.content(block.start))
    delimiter = _cells(doc.src.content(block.start + 1))
    if len(header) < 2 or len(delimiter) != len(header) or not all(_ALIGN.match(c) for c in delimiter):
        return None
    if visible_text(header[0].replace("\\|", "|")).rstrip(":").lower() not in TERM_COLUMNS:
        return []
    out: list[tuple[int, str]] = []
    for n in range(block.start + 2, block.end + 1):
        line = doc.src.content(n)
        if not _PIPE.search(line):
            break
        term = visible_text(_cells(line)[0].replace("\\|", "|"))
        if term:
            out.append((n, term))
    return out


def _cells(line: str) -> list[str]:
    """A table row's cells, split at pipes that are not escaped, the outer pipes dropped."""
    text = line.strip()
    if not _PIPE.search(text):
        return [text]
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return _PIPE.split(text)


def _block_starts(doc: Parsed, block: Block, in_glossary: bool) -> list[tuple[int, str]]:
    """Lines of one paragraph or list item that open a definition, with their terms;
    each region runs to the line before the next one. A later line of a paragraph opens
    one only in a paragraph of definitions written alike (bold with bold, plain with
    plain): a wrapped line of prose that happens to hold a dash ("boundary — it is …"
    under a `**Term** — …` line, or under a line of prose) continues its paragraph."""
    starts: list[tuple[int, str]] = []
    first_form: tuple[bool, ...] | None = None
    n = block.start
    while n <= block.end:
        line = doc.src.content(n)
        nxt = doc.src.content(n + 1) if n < block.end else ""
        if block.kind == "paragraph" and not _DEFINITION.match(line) and _DEFINITION.match(nxt):
            starts.append((n, line.strip()))
        elif in_glossary and (n == block.start or block.kind == "paragraph"):
            text = _MARKER.sub("", line, count=1).strip() if n == block.start else line.strip()
            m = _BOLD.match(text)
            dash = None if m else _DASH.match(text)
            if dash and len(dash.group("term").split()) <= MAX_DASH_TERM_WORDS:
                m = dash
            if m and (_SENTENCE.search(m.group("term").strip()) or _is_label(m.group("term"))):
                m = None
            form = (m is not None, text.startswith(("**", "__")))
            if n == block.start:
                first_form = form
            if m and form == first_form:
                starts.append((n, m.group("term").strip()))
        n += 1
    return starts


def _is_label(term: str) -> bool:
    words = visible_text(term).rstrip(":").lower()
    return words in LABELS or words.split(" ", 1)[0] in ("note", "notes")


def _add(doc: Parsed, out: list[Found], term: str, start: int, end: int) -> None:
    """One term, named as a reader sees it rendered: `` `snake_case` `` is snake_case, and
    two code spans `` `a` `b` `` are "a b", never "a` `b"."""
    term = visible_text(term)
    if not term:
        return
    region = doc.cut(CONCEPTS, start, end)
    if region is None:
        return
    name, clipped = ids.clip_name(term)
    if clipped:
        doc.reasons.append(Reason(CONCEPTS, "name-truncated", doc.path))
    out.append(Found(ids.concept_id(term), "concept", name, regions=[region]))


def bind_glossary_aliases(doc: Parsed, terms: list[Found]) -> None:
    """A glossary's frontmatter aliases bind to its only term, else stay unbound."""
    aliases = text_list((doc.fm.data or {}).get("aliases"))
    if not aliases:
        return
    names = {t.id for t in terms}
    if len(names) == 1:
        for t in terms:
            t.aliases = _bounded(doc, aliases)
        return
    doc.reasons.append(
        Reason(CONCEPTS, "glossary-aliases-unbound", doc.path, f"{len(aliases)} aliases, {len(names)} terms")
    )


def _bounded(doc: Parsed, aliases: list[str]) -> list[str]:
    if len(aliases) > MAX_ALIASES:
        doc.reasons.append(Reason(CONCEPTS, "aliases-capped", doc.path))
    return aliases[:MAX_ALIASES]
