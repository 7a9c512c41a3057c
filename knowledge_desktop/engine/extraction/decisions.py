"""Decisions: one per ADR document, and explicit Decision sections elsewhere.

Spec: knowledge-entities-extraction.md, "Extraction and identity". An ADR is a Markdown
file inside an `adr/`, `adrs/` or `decisions/` folder (not its README, index or
template), or any document declaring `type: adr` or `type: decision`. Its status and
date come from frontmatter, else from `Status:`/`Date:` lines or list items, or a
`Status`/`Date` heading's first paragraph, within the first 40 lines. Supersession comes
from frontmatter `supersedes`/`superseded-by` (also spelled `superseded_by`), else from
`Supersedes:`/`Superseded by:` lines or list items and from status clauses that open
with the verb ("Superseded by …", "Superseded ([B](..))", "Accepted — supersedes …"),
the frontmatter's status or the body's; it is resolved to other ADRs later (assembly),
since only the whole set of ADRs says whether a path is one. A status that declares
supersession without any link is reported as unresolved here, so a supersession never
vanishes without a trace. Status and date are what the document declares, never a
judgement that it is approved.
"""

from __future__ import annotations

import re

from knowledge_desktop.engine.extraction import ids
from knowledge_desktop.engine.extraction.bounds import MAX_ALIASES, METADATA_LINES
from knowledge_desktop.engine.extraction.inline import visible_text
from knowledge_desktop.engine.extraction.model import DECISIONS, Found, Reason
from knowledge_desktop.engine.extraction.outline import Heading
from knowledge_desktop.engine.extraction.parsed import Parsed, link_destinations
from knowledge_desktop.engine.extraction.source import text_list, text_value

ADR_FOLDERS = frozenset({"adr", "adrs", "decisions"})
# A numbered file is a record even when its slug ends in "template" (MADR 0019 is about one);
# a number followed by nothing but "template" (`0000-template.md`) is the blank form itself.
_NOT_ADR = re.compile(r"^(?:readme|index|\d*[-_]?template|(?!\d+[-_]).*[-_]template)$", re.IGNORECASE)
_META = re.compile(
    r"^[ \t]{0,8}(?:[-*+][ \t]{1,8})?(?:\*\*|__)?(status|date|supersedes|superseded[ \t-]by)"
    r"(?:(?:\*\*|__)[ \t]{0,8}:|:(?:\*\*|__)?)(.*)$",
    re.IGNORECASE,
)
# Supersession in a status is declared where a clause starts with the verb: the status's own
# start, or after `;`, a dash or an opening parenthesis ("Accepted — supersedes [..](..)").
# A verb in the middle of a clause has another subject ("the old figure is superseded by
# [..]") and declares nothing about the record.
_CLAUSE_VERB = re.compile(
    r"(?:^\W*|(?:[;—–]|(?<!\])\(|\s-\s)[ \t*_]*)(supersedes|superseded(?:[ \t-]by)?)\b", re.IGNORECASE
)
_CLAUSE_END = re.compile(r"[;—–]|\s-\s")
# Link text is masked before a clause's end is looked for: "[3. Use C - the new way](..)" is
# one link, not a clause ending in its middle.
_LINK_TEXT = re.compile(r"\[[^\[\]\n]*\]")
# A `Supersedes:` item saying there is nothing ("none", "N/A", a dash) declares no link.
_NOTHING = re.compile(r"^[-—–\s*_]*(?:(?:none|n/a|na|nothing|null)\b.*)?$", re.IGNORECASE | re.DOTALL)
_QUOTE_CHARS = 120
# `superseded_by` is how many templates spell the MADR key; both spellings are one key.
_SUPERSESSION_KEYS = (
    ("supersedes", "supersedes"),
    ("superseded-by", "superseded-by"),
    ("superseded_by", "superseded-by"),
)
_DECISION_HEADING = re.compile(r"^Decisions?(?:\s*[:—–-]\s*(.+))?$")
_LOG_HEADING = re.compile(r"^Decisions$")
# Sub-headings that divide one decision into its parts (the sections of an ADR template), so
# a `Decisions` heading over them records one decision, not a log of entries.
PART_HEADINGS = frozenset(
    {"context", "background", "problem", "problem statement", "motivation", "outcome", "decision outcome"}
    | {"consequences", "rationale", "options", "considered options", "alternatives", "pros and cons"}
    | {"alternatives considered", "decision drivers", "status", "discussion", "notes", "summary"}
    | {"implications", "drawbacks", "details", "links", "references", "open questions", "next steps"}
)
_NAME_CHARS = 80


def is_adr(doc: Parsed) -> bool:
    if doc.type in ("adr", "decision"):
        return True
    return in_adr_folder(doc) and not _NOT_ADR.match(doc.stem)


def in_adr_folder(doc: Parsed) -> bool:
    """A README, index or template beside the ADRs: it lists or shapes decisions, it
    records none (its Decision headings are not decisions either)."""
    return bool(ADR_FOLDERS.intersection(doc.path.split("/")[:-1]))


def adr_decision(doc: Parsed) -> Found | None:
    """The one decision an ADR document records, or None when no evidence can be cut."""
    name, title_line = doc.title()
    name, clipped = ids.clip_name(name)
    if clipped:
        doc.reasons.append(Reason(DECISIONS, "name-truncated", doc.path))
    region = doc.whole(DECISIONS, title_line)
    if region is None:
        doc.reasons.append(Reason(DECISIONS, "no-evidence", doc.path))
        return None
    found = Found(ids.adr_id(doc.path), "decision", name, regions=[region], adr=True)
    data = doc.fm.data or {}
    found.status = _declared(doc, data, "status")
    found.date = _declared(doc, data, "date")
    meta = _metadata(doc)
    if found.status is None and "status" in meta:
        found.status = meta["status"][0]
    if found.date is None and "date" in meta:
        found.date = meta["date"][0]
    declared = False
    for key, kind in _SUPERSESSION_KEYS:
        if data.get(key) not in (None, "", []):  # an empty key (a template's) declares nothing
            declared = True
            values = _supersession_values(data[key])
            if not values:
                doc.reasons.append(Reason(DECISIONS, "invalid-frontmatter", doc.path, f"{key} is not a path"))
            found.supersession += [(kind, v) for v in values]
    if not declared:
        texts = meta.get("status", [])
        fm_status = text_value(data.get("status"))
        for text in [fm_status, *texts] if fm_status else texts:
            _status_supersession(doc, found, text)
        for kind in ("supersedes", "superseded-by"):
            for text in meta.get(kind, []):
                _item_supersession(doc, found, kind, text)
    found.aliases = _aliases(doc)
    found.cited = doc.citations(DECISIONS, region.line_start, region.line_end)
    return found


def _supersession_values(value: object) -> list[str]:
    """A frontmatter supersession value as the texts it names: a path, or a list of them;
    a number (`[130]`) or a bare id (`ADR-0007`) is kept as written so that assembly,
    which finds no ADR at it, reports it as unresolved rather than dropping it."""
    items = value if isinstance(value, list) else [value]
    out = [text_value(v) for v in items if not isinstance(v, list | dict)]
    return [v for v in out if v is not None]


def _status_supersession(doc: Parsed, found: Found, text: str) -> None:
    """Supersession links a status text declares, clause by clause (a clause runs from its
    verb to the next `;` or dash); a declaration with no link at all is unresolved (links
    that lead nowhere are reported at assembly)."""
    masked = _LINK_TEXT.sub(lambda m: "x" * len(m.group()), text)
    verbs = list(_CLAUSE_VERB.finditer(masked))
    linkless = False
    for i, m in enumerate(verbs):
        # Each clause stops at the next verb too, so clauses never overlap (linear time).
        limit = verbs[i + 1].start(1) if i + 1 < len(verbs) else len(text)
        end = _CLAUSE_END.search(masked, m.end(1), limit)
        targets = link_destinations(text[m.start(1) : end.start() if end else limit])
        kind = "supersedes" if m.group(1).lower() == "supersedes" else "superseded-by"
        found.supersession += [(kind, d) for d in targets]
        linkless = linkless or not targets
    if linkless:
        _unresolved(doc, "status", text)


def _item_supersession(doc: Parsed, found: Found, kind: str, text: str) -> None:
    """A `Supersedes:` / `Superseded by:` line or list item: its links, as the frontmatter
    keys of the same names would give; "none" or "N/A" with no link declares nothing (one
    with a link, "nothing yet, see [A](..)", still names A)."""
    targets = link_destinations(text)
    if not targets and not _NOTHING.match(text):
        _unresolved(doc, kind, text)
    found.supersession += [(kind, d) for d in targets]


def _unresolved(doc: Parsed, where: str, text: str) -> None:
    quoted = text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…"
    detail = f"no link in {where} {quoted!r}"
    doc.reasons.append(Reason(DECISIONS, "unresolved-supersession", doc.path, detail))


def _declared(doc: Parsed, data: dict[str, object], key: str) -> str | None:
    if key not in data:
        return None
    value = text_value(data[key])
    if value is None:
        doc.reasons.append(Reason(DECISIONS, "invalid-frontmatter", doc.path, f"{key} is not text"))
        return None
    return ids.clip_name(value)[0]


def _metadata(doc: Parsed) -> dict[str, list[str]]:
    """`status` / `date` texts declared in the first 40 lines: `Key: value` lines or list
    items, or the paragraphs of a `Status` / `Date` heading (the first is the value;
    later ones may carry supersession links)."""
    out: dict[str, list[str]] = {}
    limit = min(METADATA_LINES, doc.outline.scanned_to)
    for block in doc.outline.blocks:
        if block.start > limit:
            break
        if doc.outline.is_generated(block.start, block.end):
            continue
        for n in range(block.start, min(block.end, limit) + 1):
            m = _META.match(doc.src.content(n))
            if m and m.group(2).strip():
                key = m.group(1).lower()
                key = key if key in ("status", "date", "supersedes") else "superseded-by"
                out.setdefault(key, []).append(_plain(m.group(2)))
    for i, h in enumerate(doc.outline.headings):
        key = h.text.strip().rstrip(":").lower()
        if h.line > limit or key not in ("status", "date") or key in out:
            continue
        texts = [
            " ".join(doc.src.content(n).strip() for n in range(b.start, b.end + 1))
            for b in doc.outline.blocks
            if b.heading == i and b.start <= limit and not doc.outline.is_generated(b.start, b.end)
        ]
        if texts:
            out[key] = [_plain(t) for t in texts]
    return out


def _plain(text: str) -> str:
    return ids.clip_name(text.strip().strip("*_").strip())[0]


def _aliases(doc: Parsed) -> list[str]:
    aliases = text_list((doc.fm.data or {}).get("aliases"))
    if len(aliases) > MAX_ALIASES:
        doc.reasons.append(Reason(DECISIONS, "aliases-capped", doc.path))
    return aliases[:MAX_ALIASES]


def section_decisions(doc: Parsed) -> list[Found]:
    """Decisions from `Decision` / `Decisions` / `Decision: …` headings of a non-ADR
    document; a repeated heading text gets an occurrence suffix in its id. A plural
    `Decisions` heading divided by sub-headings is a log: each sub-heading is one entry
    (a decision log kept in one file, "## D-1 · …"), and the text before them is its
    preamble, not a decision. Sub-headings that name a decision's parts ("Context",
    "Outcome") are not entries: a `Decisions` heading over nothing else is one decision."""
    out: list[Found] = []
    if in_adr_folder(doc):
        return out
    seen: dict[str, int] = {}
    doc_title = doc.title()[0]
    headings = doc.outline.headings
    for i, h in enumerate(headings):
        m = _DECISION_HEADING.match(h.text.strip())
        if not m:
            continue
        entries = _log_entries(i, headings) if _LOG_HEADING.match(h.text.strip()) else []
        for j in entries:  # an entry holding Decision headings is named by them instead
            if not _holds_decision_heading(j, headings):
                _section_decision(doc, out, seen, headings[j], headings[j].text.strip())
        if entries:
            continue
        name = m.group(1) or _unnamed_decision(doc, i, doc_title)
        _section_decision(doc, out, seen, h, name.strip() or h.text)
    return out


def _holds_decision_heading(j: int, headings: list[Heading]) -> bool:
    h = headings[j]
    return any(_DECISION_HEADING.match(o.text.strip()) for o in headings[j:] if h.line <= o.line <= h.end)


def _unnamed_decision(doc: Parsed, i: int, doc_title: str) -> str:
    """A bare `Decision` heading is named by the nearest enclosing heading that is not
    itself about decisions ("## Storage" over "### Decision"), else by the document's
    title, else by its own first line of text (a log of bare `## Decision` entries)."""
    for parent in reversed(doc.outline.parents(i)[:-1]):
        if not _DECISION_HEADING.match(parent.text.strip()):
            return parent.text
    if doc_title != doc.stem and not _DECISION_HEADING.match(doc_title.strip()):
        return doc_title
    first = next((b for b in doc.outline.blocks if b.heading == i), None)
    text = visible_text(doc.src.content(first.start)) if first is not None else ""
    if len(text) > _NAME_CHARS:
        text = text[: _NAME_CHARS - 1].rstrip() + "…"
    return text or doc.outline.headings[i].text


def _log_entries(i: int, headings: list[Heading]) -> list[int]:
    """The direct sub-headings of heading `i` (the shallowest level inside its section)
    that are entries, not parts of one decision."""
    h = headings[i]
    inner = [j for j in range(i + 1, len(headings)) if h.line < headings[j].line <= h.end]
    level = min((headings[j].level for j in inner), default=0)
    return [
        j
        for j in inner
        if headings[j].level == level and headings[j].text.strip().rstrip(":").lower() not in PART_HEADINGS
    ]


def _section_decision(doc: Parsed, out: list[Found], seen: dict[str, int], h: Heading, name: str) -> None:
    seen[h.text] = seen.get(h.text, 0) + 1
    region = doc.cut(DECISIONS, h.line, h.end) or doc.cut(DECISIONS, h.line, h.line)
    if region is None:
        return
    clipped, cut = ids.clip_name(name)
    if cut:
        doc.reasons.append(Reason(DECISIONS, "name-truncated", doc.path))
    found = Found(ids.section_decision_id(doc.path, h.text, seen[h.text]), "decision", clipped)
    found.regions.append(region)
    found.cited = doc.citations(DECISIONS, region.line_start, region.line_end)
    out.append(found)
