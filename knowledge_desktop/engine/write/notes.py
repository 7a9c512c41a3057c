"""Reading plain notes as Obsidian, Foam and zk write them: titles, aliases, tags, wikilinks.

Adopting a folder of notes (`operations/adopt.py`) has to keep every link
working, so it first has to know what each link meant to the tool that wrote
it. Obsidian resolves `[[target]]` (and `![[target]]`, `[[target#Heading]]`,
`[[target|label]]`) by file name, ignoring case and the `.md` suffix: a target
is first a path from the vault's root; failing that, one with a `/` is the end
of a path, and a bare name a file name — when several files share it, the one in the
linking note's folder, else the one nearest the root — and, failing a file, a
note's frontmatter alias. `ObsidianIndex` is that rule; what our resolver
needs to reach the same note (an alias for the file name) follows from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.graph.keys import normalise_name

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]*)\]\]")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TAG = re.compile(r"(?:^|(?<=[\s(,;]))#([\w/-]*[^\W\d/-][\w/-]*)", re.UNICODE)
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


@dataclass(frozen=True, slots=True)
class WikiLink:
    target: str
    """The note part: before `#` and `|`, trimmed, without a `.md` suffix."""
    embed: bool


def prose_lines(body: str) -> Iterable[str]:
    """The body's lines outside fenced code blocks, with inline code blanked."""
    fence: str | None = None
    for line in body.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line) if "`" in line else line


def first_heading(body: str) -> str | None:
    """The text of the first level-1 ATX heading (`# Title`) outside code."""
    for line in prose_lines(body):
        found = _H1.match(line)
        if found:
            text = found.group(1).strip()
            if text:
                return text
    return None


def inline_tags(body: str) -> list[str]:
    """Obsidian's inline `#tags` (letters, digits, `_`, `-`, `/`, not all digits), in order,
    without headings and code."""
    out: list[str] = []
    for line in prose_lines(body):
        if "#" not in line or _HEADING_LINE.match(line):
            continue
        for match in _TAG.finditer(_WIKILINK.sub(" ", line)):
            out.append(match.group(1))
    return out


def wikilinks(body: str) -> list[WikiLink]:
    """Every `[[…]]` and `![[…]]` outside code, with its note part."""
    out: list[WikiLink] = []
    for line in prose_lines(body):
        if "[[" not in line:
            continue
        for match in _WIKILINK.finditer(line):
            target = match.group(2).split("|", 1)[0].split("#", 1)[0].strip()
            if target.lower().endswith(".md"):
                target = target[:-3]
            if target:
                out.append(WikiLink(target, bool(match.group(1))))
    return out


def string_list(value: Any) -> list[str] | None:
    """An Obsidian/Foam list field (`aliases`, `tags`): a list of strings, or one string
    (tags split at commas and spaces, aliases at commas); None when it is something else."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    return None


def split_tags(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        out.extend(part.lstrip("#") for part in re.split(r"[,\s]+", value) if part.lstrip("#"))
    return out


def unique(values: Iterable[str]) -> list[str]:
    """Values in first-seen order, without repeats by normalised name."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        key = normalise_name(value)
        if key and key not in seen:
            seen.add(key)
            out.append(value)
    return out


@dataclass(slots=True)
class ObsidianIndex:
    """Obsidian's link resolution over one folder's notes (paths relative to the folder,
    with `.md`)."""

    by_stem: dict[str, list[str]] = field(default_factory=dict)
    by_path: dict[str, str] = field(default_factory=dict)
    by_alias: dict[str, list[str]] = field(default_factory=dict)

    def add(self, rel: str, aliases: Iterable[str] = ()) -> None:
        bare = rel[:-3] if rel.lower().endswith(".md") else rel
        self.by_path[bare.lower()] = rel
        self.by_stem.setdefault(bare.rsplit("/", 1)[-1].lower(), []).append(rel)
        for alias in aliases:
            self.by_alias.setdefault(alias.lower(), []).append(rel)

    def resolve(self, target: str, source_rel: str) -> str | None:
        """The note `[[target]]` in `source_rel` opens under Obsidian's rules; None: none."""
        key = target.strip().lstrip("/").lower()
        if not key:
            return None
        exact = self.by_path.get(key)
        if exact is not None:
            return exact
        if "/" in key:
            ends = sorted(
                (p for b, p in self.by_path.items() if b.endswith("/" + key)), key=lambda p: (len(p), p)
            )
            return ends[0] if ends else None
        found = self.by_stem.get(key)
        if found:
            if len(found) == 1:
                return found[0]
            folder = source_rel.rsplit("/", 1)[0] if "/" in source_rel else ""
            near = [p for p in found if (p.rsplit("/", 1)[0] if "/" in p else "") == folder]
            return near[0] if near else min(found, key=lambda p: (p.count("/"), p))
        aliased = self.by_alias.get(key)
        return sorted(aliased)[0] if aliased else None
