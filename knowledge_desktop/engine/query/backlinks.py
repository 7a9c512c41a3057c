"""Everything that points at one record, in four groups, as plain dicts.

- `linked`: records whose wikilinks or Markdown links resolve to it, one
  entry per linking line, with that line read back from disk so a reader
  sees why the link is there (the projection keeps line numbers, not text).
- `relationships`: relationship records with it as `from` or `to`, grouped
  by label, each naming the other endpoint and the direction.
- `references`: records naming it in a typed reference field (`entities`,
  `owner`, `dependencies`, the supersession and merge fields), grouped by
  field.
- `mentions`: records whose text contains its title or an alias without
  linking to or referencing it — candidates for a link. Found through the
  keyword index by the caller-supplied `search`, so this module stays free
  of the grep service's freshness duties. For a person or company page the
  caller also passes `confirm`, the mention matcher (`query/mentions.py`):
  only the records it finds naming the page are listed, at the line it
  found, so the pane and `documents.get` count the same mentions.

Source records are listed whatever their state (a broken record's link is
still a link); each entry carries `lifecycle` and `eligible` so a view can
dim what a current-records query would hide.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.fs.read import read_file
from knowledge_desktop.engine.records.parse import MAX_FILE_BYTES

CONTEXT_CHARS = 200
"""A context line longer than this is cut around the marked text."""
LEAD_CHARS = 60
"""How much of a long line to keep before the marked text."""
AROUND_CHARS = 4 * CONTEXT_CHARS
"""How much of a very long line either side of the marked text is cleaned for a context."""
MENTION_LIMIT = 30
RELATIONSHIP_FIELDS = ("from", "to")

FIELD_NAMES = {
    "entities": "Claims about it",
    "owner": "Owned by it",
    "dependencies": "Depend on it",
    "supersedes": "Supersede it",
    "superseded_by": "Superseded by it",
    "merged_into": "Merged into it",
    "merged_from": "Absorbed it in a merge",
}
"""How each reference field reads from the referenced record's side."""
FIELD_ORDER = tuple(FIELD_NAMES)

Search = Callable[[str], list[dict[str, Any]]]
"""Phrase search for one name; returns grep hits (id, path, title, snippet)."""
Confirm = Callable[[str], list[tuple[str, int]]]
"""The names of the record the mention matcher finds in one file's text, each with its
file line (first first); an empty list means the file does not mention it."""


def backlinks(
    conn: sqlite3.Connection,
    root: Path,
    row: dict[str, Any],
    search: Search | None = None,
    mention_limit: int = MENTION_LIMIT,
    confirm: Confirm | None = None,
) -> dict[str, Any]:
    record_id, scope = row["id"], row["scope"]
    out: dict[str, Any] = {
        "id": record_id,
        "path": row["path"],
        "title": row["title"],
        "scope": scope,
        "linked": [],
        "relationships": [],
        "references": [],
        "mentions": [],
    }
    is_note = row.get("status") == "note"
    if not record_id and not is_note:
        return out  # an unrecognized file has no id anything could point at
    lines = _LineCache(root)
    if is_note:  # a note is linked by path, from notes and records of any partition
        out["linked"] = _linked(conn, lines, _BY_PATH.format(notes=""), (row["path"], row["path"]))
    else:
        out["linked"] = _linked(conn, lines, _BY_ID, (scope, record_id))
        seen = {entry["path"] for entry in out["linked"]}
        by_notes = _BY_PATH.format(notes=BY_PATH_ONLY)
        out["linked"] += [  # notes, and records beyond its partition, link a record by path
            entry
            for entry in _linked(conn, lines, by_notes, (row["path"], row["path"]))
            if entry["path"] not in seen
        ]
        out["relationships"] = _relationships(conn, scope, record_id)
        out["references"] = _references(conn, scope, record_id)
    if search is not None:
        known = {row["path"]}
        known.update(entry["path"] for entry in out["linked"])
        for group in out["relationships"]:
            known.update(item["relationship"]["path"] for item in group["items"])
        for group in out["references"]:
            known.update(item["path"] for item in group["items"])
        names = _names(row)
        out["mentions"] = _mentions(lines, search, names, known, mention_limit, confirm)
    out["counts"] = {
        "linked": sum(len(entry["lines"]) for entry in out["linked"]),
        "relationships": sum(len(group["items"]) for group in out["relationships"]),
        "references": sum(len(group["items"]) for group in out["references"]),
        "mentions": len(out["mentions"]),
    }
    return out


# -- linked from ---------------------------------------------------------------------


_LINKED = (
    "SELECT l.src_path, l.line, l.link_kind, l.target_text, l.label, c.id, c.kind, c.type, c.title,"
    " c.lifecycle, c.eligible FROM links l JOIN catalog c ON c.path = l.src_path WHERE "
)
_BY_ID = _LINKED + (
    "l.scope IS ? AND l.target_id = ? AND l.status = 'resolved'"
    " ORDER BY c.title COLLATE NOCASE, l.src_path, l.line"
)
_BY_PATH = _LINKED + (
    "l.target_path = ? AND l.src_path <> ? AND l.status IN ('resolved', 'ambiguous'){notes}"
    " ORDER BY c.title COLLATE NOCASE, l.src_path, l.line"
)
"""Links to a file by path: a note's (an ambiguous link counts for the file it went to)."""
BY_PATH_ONLY = " AND (c.status='note' OR l.target_id IS NULL)"
"""The links to a record found by path alone: a note's, or one from beyond its partition (a
record's link within its partition names the record's id). The same condition as
`store/projections/links.py`'s, kept here so that this module does not load the graph."""


def _linked(conn: sqlite3.Connection, lines: _LineCache, sql: str, params: tuple[Any, ...]) -> list[Any]:
    by_source: dict[str, dict[str, Any]] = {}
    rows = conn.execute(sql, params).fetchall()
    for path, line, link_kind, target, label, sid, kind, type_, title, lifecycle, eligible in rows:
        entry = by_source.setdefault(
            path,
            {
                "id": sid,
                "path": path,
                "title": title,
                "kind": kind,
                "type": type_,
                "lifecycle": lifecycle,
                "eligible": bool(eligible),
                "lines": [],
            },
        )
        if entry["lines"] and entry["lines"][-1]["line"] == line:
            continue  # several links on one line: the line is shown once
        text = lines.get(path, line)
        span = _link_span(text, link_kind, target, label)
        context, mark = _trim(*plain_line(*_around(text, span)))
        entry["lines"].append({"line": line, "context": context, "mark": mark, "linkKind": link_kind})
    return list(by_source.values())


def _link_span(text: str, link_kind: str, target: str, label: str | None) -> tuple[int, int] | None:
    """Where the link sits in its line: the whole `[[…]]` or `[…](…)`, else its words."""
    escaped = re.escape(target.strip())
    if link_kind in ("wiki", "embed"):  # a note keeps the #anchor in its target
        pattern = r"!?\[\[\s*" + escaped + r"\s*(?:[#|][^\]]*)?\]\]"
    else:
        pattern = r"\[[^\]]*\]\(\s*<?" + escaped + r"[^)]*\)"
    found = re.search(pattern, text)
    if found is None:
        for words in (label, target):
            if words and words.strip():
                found = re.search(re.escape(words.strip()), text, re.IGNORECASE)
                if found is not None:
                    break
    return found.span() if found is not None else None


def _around(text: str, span: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
    """A long line cut to the stretch around `span` that a context can show: cleaning a
    line costs time and memory with its length, and a line may be megabytes long."""
    if len(text) <= AROUND_CHARS * 2:
        return text, span
    if span is None:
        return text[: AROUND_CHARS * 2], None
    start = max(0, span[0] - AROUND_CHARS)
    return text[start : span[1] + AROUND_CHARS], (span[0] - start, span[1] - start)


def _trim(text: str, span: tuple[int, int] | None) -> tuple[str, list[int] | None]:
    """The stripped line, cut to about CONTEXT_CHARS with the span kept in view."""
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    if span is not None:
        span = (span[0] - lead, span[1] - lead)
    if len(stripped) <= CONTEXT_CHARS:
        return stripped, list(span) if span else None
    start = 0 if span is None else max(0, span[0] - LEAD_CHARS)
    end = min(len(stripped), start + CONTEXT_CHARS)
    start = max(0, min(start, end - CONTEXT_CHARS))
    # Cut between words, never inside one (nor inside the marked text).
    if start > 0:
        space = stripped.find(" ", start, span[0] if span else end)
        start = space + 1 if space != -1 else start
    if end < len(stripped):
        space = stripped.rfind(" ", span[1] if span else start, end)
        end = space if space != -1 else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(stripped) else ""
    cut = prefix + stripped[start:end].strip() + suffix
    if span is None:
        return cut, None
    skipped = len(stripped[start:end]) - len(stripped[start:end].lstrip())
    shift = len(prefix) - start - skipped
    first, last = span[0] + shift, min(span[1] + shift, len(cut) - len(suffix))
    return cut, [first, last] if first < last else None


# -- Markdown to reading text --------------------------------------------------------

_LINE_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)?")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")
_MD_LINK = re.compile(
    r"!?\[([^\[\]\n]*)\]\((?:<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"\n]*\")?\)"
)
_CODE = re.compile(r"(`+)(?=\S)(.+?)(?<=\S)\1")
_STRONG = re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])"
)
_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")

Piece = tuple[int, int] | str
"""A kept slice of the current text (start, end), or new text standing where the match began."""


class _Plain:
    """Text being cleaned, with the original column of every character it still holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.origin = list(range(len(text)))

    def sub(self, pattern: re.Pattern[str], pieces: Callable[[re.Match[str]], list[Piece]]) -> None:
        text, origin, cursor = [], [], 0
        for match in pattern.finditer(self.text):
            text.append(self.text[cursor : match.start()])
            origin.extend(self.origin[cursor : match.start()])
            at = self.origin[match.start()] if match.start() < len(self.origin) else len(self.origin)
            for piece in pieces(match):
                if isinstance(piece, str):
                    text.append(piece)
                    origin.extend([at] * len(piece))
                else:
                    text.append(self.text[piece[0] : piece[1]])
                    origin.extend(self.origin[piece[0] : piece[1]])
            cursor = match.end()
        text.append(self.text[cursor:])
        origin.extend(self.origin[cursor:])
        self.text, self.origin = "".join(text), origin

    def span(self, span: tuple[int, int] | None) -> tuple[int, int] | None:
        """Where the characters that stood in `span` of the original now are."""
        if span is None:
            return None
        inside = [i for i, column in enumerate(self.origin) if span[0] <= column < span[1]]
        return (inside[0], inside[-1] + 1) if inside else None


def _wikilink_words(match: re.Match[str]) -> list[Piece]:
    inner_start = match.start(1)
    written, bar, label = match.group(1).partition("|")
    if bar and label.strip():
        start = inner_start + len(written) + 1
        return [(start + len(label) - len(label.lstrip()), start + len(label.rstrip()))]
    target = written.split("#", 1)[0].rstrip().rstrip("/")
    if not target.strip():
        # `[[#Heading]]` points inside the page itself: its words are the heading.
        return [(inner_start + written.index("#") + 1, inner_start + len(written.rstrip()))]
    name = target.rsplit("/", 1)[-1]
    start = inner_start + len(target) - len(name) + len(name) - len(name.lstrip())
    name_end = inner_start + len(target) - (3 if name.lower().endswith(".md") else 0)
    return [(start, name_end)]


def plain_line(text: str, span: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
    """A Markdown line as a reader sees it, and where `span` of it went.

    Wikilinks show their label (else their target without folders), Markdown
    links and images their text, code its content; emphasis, heading, quote,
    list and table markers and inline HTML go. The span is carried through, so
    a mark computed on the raw line still covers the same words.
    """
    if _TABLE_RULE.match(text):
        return "", None
    plain = _Plain(text)
    plain.sub(_LINE_PREFIX, lambda _m: [])
    plain.sub(_TAG, lambda _m: [])
    plain.sub(_CODE, lambda m: [m.span(2)])
    plain.sub(_WIKILINK, _wikilink_words)
    plain.sub(_MD_LINK, lambda m: [m.span(1)] if m.group(1).strip() else ["link"])
    plain.sub(_STRONG, lambda m: [m.span(2)])
    plain.sub(_EMPHASIS, lambda m: [m.span(1) if m.group(1) is not None else m.span(2)])
    stripped = plain.text.strip()
    if stripped.startswith("|") or stripped.endswith("|") or stripped.count("|") >= 2:
        plain.sub(re.compile(r"^\s*\|\s*|\s*\|\s*$"), lambda _m: [])
        plain.sub(re.compile(r"\s*(?<!\\)\|\s*"), lambda _m: [" · "])
    return plain.text, plain.span(span)


class _LineCache:
    """Source files read once per call, split into lines."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, list[str]] = {}

    def get(self, path: str, line: int) -> str:
        lines = self._files.get(path)
        if lines is None:
            try:
                data = read_file(str(self.root / path), MAX_FILE_BYTES).data or b""
            except OSError:
                data = b""
            text = data.decode("utf-8", errors="replace")
            lines = text.removeprefix("\ufeff").splitlines()
            self._files[path] = lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""


# -- typed references ----------------------------------------------------------------


def _relationships(conn: sqlite3.Connection, scope: str | None, record_id: str) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    rows = conn.execute(
        "SELECT DISTINCT r.src_path, r.field, c.id, c.title, c.type, c.lifecycle, c.eligible"
        " FROM refs r JOIN catalog c ON c.path = r.src_path"
        " WHERE r.scope IS ? AND r.resolved_id = ? AND r.status = 'resolved'"
        " AND r.field IN ('from', 'to') AND c.kind = 'relationship'"
        " ORDER BY c.type, c.title COLLATE NOCASE, r.src_path, r.field",
        (scope, record_id),
    ).fetchall()
    for path, field, rid, title, label, lifecycle, eligible in rows:
        other_field = "to" if field == "from" else "from"
        other = conn.execute(
            "SELECT target_id, resolved_id FROM refs WHERE src_path = ? AND field = ? LIMIT 1",
            (path, other_field),
        ).fetchone()
        other_id = (other[1] or other[0]) if other else None
        groups.setdefault(label or "", []).append(
            {
                "direction": "out" if field == "from" else "in",
                "relationship": {
                    "id": rid,
                    "path": path,
                    "title": title,
                    "lifecycle": lifecycle,
                    "eligible": bool(eligible),
                },
                "other": _endpoint(conn, scope, other_id),
            }
        )
    return [{"label": label, "items": items} for label, items in sorted(groups.items())]


def _endpoint(conn: sqlite3.Connection, scope: str | None, record_id: str | None) -> dict[str, Any]:
    if record_id is None:
        return {"id": None, "path": None, "title": None}
    found = conn.execute(
        "SELECT path, title, type FROM catalog WHERE scope IS ? AND id = ? ORDER BY path LIMIT 1",
        (scope, record_id),
    ).fetchone()
    if found is None:
        return {"id": record_id, "path": None, "title": None}
    return {"id": record_id, "path": found[0], "title": found[1], "type": found[2]}


def _references(conn: sqlite3.Connection, scope: str | None, record_id: str) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    rows = conn.execute(
        "SELECT DISTINCT r.field, c.path, c.id, c.kind, c.type, c.title, c.lifecycle, c.eligible"
        " FROM refs r JOIN catalog c ON c.path = r.src_path"
        " WHERE r.scope IS ? AND r.resolved_id = ? AND r.status = 'resolved'"
        " AND NOT (r.field IN ('from', 'to') AND c.kind = 'relationship')"
        " ORDER BY c.title COLLATE NOCASE, c.path",
        (scope, record_id),
    ).fetchall()
    for field, path, rid, kind, type_, title, lifecycle, eligible in rows:
        groups.setdefault(field, []).append(
            {
                "id": rid,
                "path": path,
                "kind": kind,
                "type": type_,
                "title": title,
                "lifecycle": lifecycle,
                "eligible": bool(eligible),
            }
        )
    order = {name: index for index, name in enumerate(FIELD_ORDER)}
    return [
        {"field": field, "name": FIELD_NAMES.get(field, field.replace("_", " ")), "items": items}
        for field, items in sorted(groups.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))
    ]


# -- unlinked mentions ---------------------------------------------------------------


def _names(row: dict[str, Any]) -> list[str]:
    """Title first, then aliases, each once whatever its case."""
    names: list[str] = []
    seen: set[str] = set()
    for name in [row.get("title"), *(row.get("aliases") or [])]:
        if isinstance(name, str) and name.strip() and name.strip().casefold() not in seen:
            seen.add(name.strip().casefold())
            names.append(name.strip())
    return names


def _name_pattern(name: str) -> re.Pattern[str]:
    """The name's words in order, any punctuation or spacing between them, whole words only."""
    words = re.findall(r"\w+", name)
    return re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE)


def _mentions(
    lines: _LineCache,
    search: Search,
    names: list[str],
    known: set[str],
    limit: int,
    confirm: Confirm | None = None,
) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for searched in names:
        if not re.search(r"\w", searched):
            continue
        pattern = _name_pattern(searched)
        for hit in search(searched):
            path = hit.get("path")
            if not isinstance(path, str) or path in known or path in found:
                continue
            if len(found) >= limit:
                return list(found.values())
            name = searched
            if confirm is None:
                line, context, mark = _mention_context(lines, path, hit, pattern)
            else:
                named = confirm(path)
                if not named:
                    continue  # the words, but not the name as the page writes it
                name, line = named[0]
                context, mark = _exact_context(lines.get(path, line), name)
            found[path] = {
                "id": hit.get("id"),
                "path": path,
                "title": hit.get("title"),
                "kind": hit.get("kind"),
                "type": hit.get("type"),
                "lifecycle": hit.get("lifecycle"),
                "name": name,
                "line": line,
                "context": context,
                "mark": mark,
            }
    return sorted(found.values(), key=lambda m: (str(m["title"] or "").casefold(), m["path"]))


def _exact_context(text: str, name: str) -> tuple[str, list[int] | None]:
    """The line cut around the first word-bounded, case-exact occurrence of `name`."""
    match = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text)
    return _trim(*plain_line(*_around(text, match.span() if match else None)))


def _mention_context(
    lines: _LineCache, path: str, hit: dict[str, Any], pattern: re.Pattern[str]
) -> tuple[int, str, list[int] | None]:
    """The first line of the hit's snippet that holds the name; the title when only it matched."""
    snippet = hit.get("snippet") or {}
    first = snippet.get("lineStart") or 0
    last = snippet.get("lineEnd") or first
    if isinstance(first, int) and isinstance(last, int) and first > 0:
        for number in range(first, last + 1):
            text = lines.get(path, number)
            match = pattern.search(text)
            if match is not None:
                context, mark = _trim(*plain_line(*_around(text, match.span())))
                return number, context, mark
    title = str(hit.get("title") or "")
    match = pattern.search(title)
    return 0, title, list(match.span()) if match else None
