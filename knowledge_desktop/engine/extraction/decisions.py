"""Decisions: one per ADR document, and explicit Decision sections elsewhere.

Spec: knowledge-entities-extraction.md, "Extraction and identity". An ADR is
a Markdown file inside an `adr/`, `adrs/` or `decisions/` folder (not its
README, index or template), or any document declaring `type: adr` or
`type: decision`. Its status and date come from frontmatter, else from
`Status:`/`Date:` lines or list items, or a `Status`/`Date` heading's first
paragraph, within the first 40 lines. Supersession comes from frontmatter
`supersedes`/`superseded-by`, else from "Supersedes …"/"Superseded by …"
links in the status, the frontmatter's or the body's; it is resolved to other
ADRs later (assembly), since only the whole set of ADRs says whether a path is
one. A status that declares supersession without any link is reported as
unresolved here, so a supersession never vanishes without a trace. Status and
date are what the document declares, never a judgement that it is approved.
"""

from __future__ import annotations

import re

from knowledge_desktop.engine.extraction import ids
from knowledge_desktop.engine.extraction.bounds import MAX_ALIASES, METADATA_LINES
from knowledge_desktop.engine.extraction.model import DECISIONS, Found, Reason
from knowledge_desktop.engine.extraction.parsed import Parsed, link_destinations
from knowledge_desktop.engine.extraction.source import text_list, text_value

ADR_FOLDERS = frozenset({"adr", "adrs", "decisions"})
# A numbered file is a record even when its slug ends in "template" (MADR 0019 is about one).
_NOT_ADR = re.compile(r"^(?:readme|index|template|(?!\d+[-_]).*[-_]template)$", re.IGNORECASE)
_META = re.compile(
    r"^[ \t]{0,8}(?:[-*+][ \t]{1,8})?(?:\*\*|__)?(status|date)(?:(?:\*\*|__)[ \t]{0,8}:|:(?:\*\*|__)?)(.*)$",
    re.IGNORECASE,
)
_SUPERSEDED_BY = re.compile(r"^\W*superseded[ -]by\b", re.IGNORECASE)
_SUPERSEDES = re.compile(r"^\W*supersedes\b", re.IGNORECASE)
_QUOTE_CHARS = 120
_DECISION_HEADING = re.compile(r"^Decisions?(?:\s*[:—–-]\s*(.+))?$")


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
    for key, kind in (("supersedes", "supersedes"), ("superseded-by", "superseded-by")):
        if key in data:
            declared = True
            values = text_list(data[key])
            if not values and data[key] not in (None, [], ""):
                doc.reasons.append(Reason(DECISIONS, "invalid-frontmatter", doc.path, f"{key} is not a path"))
            found.supersession += [(kind, v) for v in values]
    if not declared:
        texts = meta.get("status", [])
        fm_status = text_value(data.get("status"))
        for text in [fm_status, *texts] if fm_status else texts:
            _status_supersession(doc, found, text)
    found.aliases = _aliases(doc)
    found.cited = doc.citations(DECISIONS, region.line_start, region.line_end)
    return found


def _status_supersession(doc: Parsed, found: Found, text: str) -> None:
    """Supersession links a status text declares; a declaration with no link at all is
    unresolved (links that lead nowhere are reported at assembly)."""
    kind = "superseded-by" if _SUPERSEDED_BY.match(text) else "supersedes" if _SUPERSEDES.match(text) else ""
    if not kind:
        return
    targets = link_destinations(text)
    if not targets:
        quoted = text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…"
        doc.reasons.append(
            Reason(DECISIONS, "unresolved-supersession", doc.path, f"no link in status {quoted!r}")
        )
    found.supersession += [(kind, d) for d in targets]


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
                out.setdefault(m.group(1).lower(), []).append(_plain(m.group(2)))
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
    document; a repeated heading text gets an occurrence suffix in its id."""
    out: list[Found] = []
    if in_adr_folder(doc):
        return out
    seen: dict[str, int] = {}
    doc_title = doc.title()[0]
    for i, h in enumerate(doc.outline.headings):
        m = _DECISION_HEADING.match(h.text.strip())
        if not m:
            continue
        seen[h.text] = seen.get(h.text, 0) + 1
        parents = doc.outline.parents(i)[:-1]
        name = m.group(1) or (parents[-1].text if parents else doc_title if doc_title != doc.stem else h.text)
        region = doc.cut(DECISIONS, h.line, h.end) or doc.cut(DECISIONS, h.line, h.line)
        if region is None:
            continue
        clipped, cut = ids.clip_name(name.strip() or h.text)
        if cut:
            doc.reasons.append(Reason(DECISIONS, "name-truncated", doc.path))
        found = Found(ids.section_decision_id(doc.path, h.text, seen[h.text]), "decision", clipped)
        found.regions.append(region)
        found.cited = doc.citations(DECISIONS, region.line_start, region.line_end)
        out.append(found)
    return out
