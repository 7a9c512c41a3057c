"""What a plain Markdown note says about itself: title, aliases, tags, date, anchors, links.

A note is Markdown that is not a knowledge record and does not try to be one
(issue 25 §1): an Obsidian, Logseq, Foam or hand-written page. Nothing in it
is judged; this module only reads what those tools read, so that a vault of
notes is listed, linked and searched the way its owner already sees it.

The body is read with a few whole-text patterns rather than a Markdown
parser: a notes vault has thousands of files, and parsing each with
markdown-it would cost more than everything else a scan does (issue 25 §8).
Code (fences and inline spans) and comments (`%% … %%`, `<!-- … -->`) are
blanked out first, keeping every line end, so nothing inside them counts and
line numbers stay those of the file.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from knowledge_desktop.engine.links.extract import MAX_LINKS, LinkKind, RawLink

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)[^\n]*?\1")
_COMMENT = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)", re.S)
_NON_NEWLINE = re.compile(r"[^\n]")

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MARKDOWN = re.compile(r"(!?)\[([^\[\]\n]*)\]\(([^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_TAG = re.compile(r"(?<!\S)#([\w\-/]+)")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?(?:[ \t]+\^[A-Za-z0-9\-]+)?[ \t]*$", re.M)
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9\-]+)[ \t]*$", re.M)
_PROPERTY = re.compile(r"([A-Za-z][\w\-]*):: ?(.*)")
_DAILY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_JOURNAL = re.compile(r"(\d{4})_(\d{2})_(\d{2})")
_ISO_PREFIX = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?![\d])")


@dataclass(slots=True)
class NoteMeta:
    """A note's metadata as notes tools read it (the field names are a seam: never rename)."""

    title: str
    """Frontmatter `title`, else a Logseq `title::` property, else the file name without `.md`."""
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    """Frontmatter `tags`/`tag`, Logseq `tags::` and inline `#tag`s, without `#`, first seen first."""
    date: str | None = None
    """ISO date: a daily note's name, a Logseq journal's name, or frontmatter `date`/`created`."""
    properties: dict[str, str] = field(default_factory=dict)
    """Logseq `key:: value` lines at the top of the body, keys lowercased."""
    headings: tuple[str, ...] = ()
    block_ids: tuple[str, ...] = ()

    def as_list(self) -> list[Any]:
        """The compact form the parse cache stores."""
        return [
            self.title,
            list(self.aliases),
            list(self.tags),
            self.date,
            self.properties,
            list(self.headings),
            list(self.block_ids),
        ]

    @classmethod
    def from_list(cls, raw: list[Any]) -> NoteMeta:
        title, aliases, tags, date, properties, headings, block_ids = raw
        return cls(title, tuple(aliases), tuple(tags), date, properties, tuple(headings), tuple(block_ids))


def stem(path: str) -> str:
    """The file name without its folder and a `.md` ending: what `[[Name]]` names."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def read_note(path: str, frontmatter: dict[str, Any] | None, body: str) -> tuple[NoteMeta, str]:
    """The note's metadata, and its body with code and comments blanked (for `links`)."""
    masked = mask_code(body)
    properties, property_lines = _properties(body)
    if property_lines:  # `alias:: [[A]]` names this page and `tags:: [[t]]` tags it: no links
        head = masked.split("\n", property_lines)
        masked = "\n".join([*(" " * len(line) for line in head[:property_lines]), *head[property_lines:]])
    fm = frontmatter or {}
    name = stem(path)
    title = _text(fm.get("title")) or properties.get("title", "").strip() or name
    aliases = _strings(fm.get("aliases", fm.get("alias")), split_commas=False)
    aliases += _strings(properties.get("alias", properties.get("aliases")), split_commas=True)
    tags = _strings(fm.get("tags", fm.get("tag")), split_commas=True)
    tags += _strings(properties.get("tags"), split_commas=True)
    if "#" in masked:
        prose = _HEADING.sub(_blank, masked)  # a heading's line holds no tags (issue 25 §1)
        tags += [t.rstrip("/") for t in _TAG.findall(prose) if not t.isdigit() and t.strip("/")]
    meta = NoteMeta(
        title=title,
        aliases=tuple(dict.fromkeys(a for a in aliases if a)),
        tags=tuple(dict.fromkeys(t.lstrip("#") for t in tags if t.lstrip("#"))),
        date=_date(path, name, fm),
        properties=properties,
        headings=tuple(h.strip() for h in _HEADING.findall(masked)) if "#" in masked else (),
        block_ids=tuple(_BLOCK_ID.findall(masked)) if "^" in masked else (),
    )
    return meta, masked


def mask_code(body: str) -> str:
    """`body` with fenced and inline code and comments replaced by spaces, line ends kept."""
    if "`" in body or "~~~" in body:
        body = _FENCE.sub(_blank, body)
        if "`" in body:
            body = _INLINE_CODE.sub(_blank, body)
    if "%%" in body or "<!--" in body:
        body = _COMMENT.sub(_blank, body)
    return body


def _blank(match: re.Match[str]) -> str:
    return _NON_NEWLINE.sub(" ", match.group())


def links(masked: str, limit: int = MAX_LINKS) -> list[RawLink]:
    """The first `limit` links of a masked body, in order, with their 0-based body line.

    Kinds: "wiki" `[[…]]`, "embed" `![[…]]`, "markdown" `[text](dest)`, "image"
    `![alt](dest)`. The target keeps its `#heading` or `#^block` part (resolution
    splits it off); a Markdown destination is %-decoded; web addresses and
    same-note `(#anchor)` links are not links to vault files.
    """
    if "[" not in masked:
        return []
    found: list[tuple[int, LinkKind, str, str | None]] = []
    if "[[" in masked:
        for match in _WIKI.finditer(masked):
            target, _, label = match.group(2).partition("|")
            target = target.rstrip("\\").strip()
            if not target:
                continue
            kind: LinkKind = "embed" if match.group(1) else "wiki"
            found.append((match.start(), kind, target, label.strip() or None))
    if "](" in masked:
        for match in _MARKDOWN.finditer(masked):
            target = _destination(match.group(3))
            if target is None:
                continue
            kind = "image" if match.group(1) else "markdown"
            found.append((match.start(), kind, target, match.group(2).strip() or None))
    if found and found[0][1] in ("wiki", "embed") and found[-1][1] in ("markdown", "image"):
        found.sort(key=lambda item: item[0])  # (each pattern's matches are in order already)
    out: list[RawLink] = []
    pos = line = 0
    for start, kind, target, label in found[:limit]:
        line += masked.count("\n", pos, start)
        pos = start
        out.append(RawLink(kind, target, label, line))
    return out


def _destination(raw: str) -> str | None:
    """A Markdown link's destination as a vault path (with any #anchor), None when it is
    not one: empty, a web or other scheme address, or an anchor in the same note."""
    raw = raw.strip()
    if raw.startswith("<"):
        end = raw.find(">")
        raw = raw[1:end] if end > 0 else ""
    else:
        raw = raw.split(None, 1)[0] if raw else ""
    if not raw or raw.startswith("#") or _SCHEME.match(raw):
        return None
    target = unquote(raw.split("?", 1)[0])
    return target.strip() or None


def property_text(body: str) -> str:
    """The Logseq property lines the body opens with, as written ("" when none): a note
    reads no links in them, a record would (adopting, `write/operations/adopt.py`)."""
    taken = _properties(body)[1]
    return "\n".join(body.split("\n", taken)[:taken]) if taken else ""


def _properties(body: str) -> tuple[dict[str, str], int]:
    """Logseq page properties: the `key:: value` lines the body opens with, and how many
    lines of the body (blank ones before them included) they take."""
    if "::" not in body[:4096]:
        return {}, 0
    out: dict[str, str] = {}
    taken = 0
    for line in body.split("\n"):
        text = line.rstrip("\r").strip()
        if not text and not out:
            taken += 1
            continue
        match = _PROPERTY.fullmatch(text)
        if match is None:
            break
        out.setdefault(match.group(1).lower(), match.group(2).strip())
        taken += 1
    return out, taken if out else 0


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _strings(value: Any, *, split_commas: bool) -> list[str]:
    """A frontmatter or property value as a list of names: a list's strings, or one string
    (split at commas where the tool does, `[[…]]` and quotes taken off)."""
    if isinstance(value, str):
        items = value.split(",") if split_commas else [value]
    elif isinstance(value, list):
        items = [v for v in value if isinstance(v, str)]
    else:
        return []
    out = []
    for raw in items:
        item = raw.strip().strip("\"'").strip()
        if item.startswith("[[") and item.endswith("]]"):
            item = item[2:-2].strip()
        if item:
            out.append(item)
    return out


def _date(path: str, name: str, fm: dict[str, Any]) -> str | None:
    match = _DAILY.fullmatch(name)
    if match is None and (path.startswith("journals/") or "/journals/" in path):
        match = _JOURNAL.fullmatch(name)
    if match is None:
        for key in ("date", "created"):
            value = fm.get(key)
            if isinstance(value, (_dt.date, _dt.datetime)):
                value = value.isoformat()
            if isinstance(value, str):
                match = _ISO_PREFIX.match(value.strip())
                if match is not None:
                    break
    if match is None:
        return None
    try:
        return _dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3))).isoformat()
    except ValueError:
        return None
