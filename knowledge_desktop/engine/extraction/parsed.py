"""One document ready for the pattern modules: its text, frontmatter and outline.

Also the helpers those modules share: cutting a region (never from generated
lines, never over 16 KiB; both reported), the document's title, and Markdown
link destinations (citations, bounded per document).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from knowledge_desktop.engine.extraction.bounds import MAX_CITATIONS
from knowledge_desktop.engine.extraction.model import Reason, Region
from knowledge_desktop.engine.extraction.outline import Outline, scan
from knowledge_desktop.engine.extraction.source import Frontmatter, Source, frontmatter, text_value

# bounded repetitions: a line of `[` or `](` costs linear time, not quadratic
_LINK = re.compile(
    r"\[[^\[\]\n]{0,1000}\]\(\s{0,10}<?([^()\s>]{1,2048})>?(?:\s{1,10}(?:\"[^\"]{0,500}\"|'[^']{0,500}'))?\s{0,10}\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(slots=True)
class Parsed:
    path: str
    src: Source
    fm: Frontmatter
    outline: Outline
    reasons: list[Reason] = field(default_factory=list)
    citations_seen: int = 0

    @classmethod
    def of(cls, path: str, text: str) -> Parsed:
        src = Source.of(path, text)
        fm = frontmatter(src)
        parsed = cls(path, src, fm, scan(src, fm.body_start))
        if fm.error:
            parsed.reasons.append(Reason("documents", "invalid-frontmatter", path, fm.error))
        for code in parsed.outline.cut:
            parsed.reasons.append(Reason("documents", code, path))
        if fm.data and fm.data.get("generated") is True:
            parsed.outline.generated.append((fm.body_start, len(src)))
        return parsed

    @property
    def stem(self) -> str:
        return posixpath.splitext(posixpath.basename(self.path))[0]

    @property
    def type(self) -> str | None:
        return text_value((self.fm.data or {}).get("type"))

    def title(self) -> tuple[str, int | None]:
        """The principal title (frontmatter `title`, else the first level-1 heading, else
        the first heading, else the file name) and its heading line, if any."""
        declared = text_value((self.fm.data or {}).get("title"))
        headings = self.outline.headings
        first = next((h for h in headings if h.level == 1), headings[0] if headings else None)
        if declared:
            return declared, first.line if first is not None and first.text == declared else None
        if first is not None and first.text:
            return first.text, first.line
        return self.stem, None

    def cut(self, area: str, start: int, end: int) -> Region | None:
        """The region `start..end`, or None (with a reason) when it touches generated
        lines or is over 16 KiB."""
        end = self.src.trim_end(start, end)
        if self.outline.is_generated(start, end):
            self.reasons.append(Reason(area, "generated-content", self.path, f"lines {start}-{end}"))
            return None
        region = self.src.region(start, end)
        if region is None:
            self.reasons.append(Reason(area, "region-oversized", self.path, f"lines {start}-{end}"))
        return region

    def body_range(self) -> tuple[int, int] | None:
        """The document's body without leading and trailing blank lines."""
        start, end = self.fm.body_start, self.outline.scanned_to
        while start <= end and not self.src.content(start).strip():
            start += 1
        return (start, self.src.trim_end(start, end)) if start <= end else None

    def whole(self, area: str, fallback_line: int | None) -> Region | None:
        """The body as one region; when that cannot be evidence, the title line alone."""
        body = self.body_range()
        region = self.cut(area, *body) if body else None
        if region is None and fallback_line is not None:
            region = self.cut(area, fallback_line, fallback_line)
        return region

    def citations(self, area: str, start: int, end: int) -> list[str]:
        """Repository-relative paths that relative Markdown links in `start..end` point at
        (resolved against the document's folder; links leaving the repository dropped)."""
        out: list[str] = []
        for n in range(start, end + 1):
            for m in _LINK.finditer(self.src.content(n)):
                self.citations_seen += 1
                if self.citations_seen > MAX_CITATIONS:
                    if self.citations_seen == MAX_CITATIONS + 1:
                        self.reasons.append(Reason(area, "citations-capped", self.path))
                    return out
                resolved = resolve(self.path, m.group(1))
                if resolved is not None:
                    out.append(resolved)
        return out


def link_destinations(text: str) -> list[str]:
    return [m.group(1) for m in _LINK.finditer(text)]


def resolve(doc_path: str, destination: str) -> str | None:
    """`destination` relative to the folder of `doc_path`, as a repository path; None for
    URLs, in-page anchors, absolute paths and paths leaving the repository. The
    fragment is dropped (it names a place in the file, not another file)."""
    target = destination.split("#", 1)[0]
    if not target or _SCHEME.match(target) or target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc_path), target))
    if joined == "." or joined.startswith("../") or joined == "..":
        return None
    return joined
