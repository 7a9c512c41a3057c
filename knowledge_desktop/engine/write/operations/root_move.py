"""Notes at the vault root, adopted by moving them into a partition (issue 25, §5).

A record needs a partition and every partition is a top-level folder
(ARCHITECTURE.md, "Vault layout"), so a whole-vault adopt moves the root's
notes into one partition folder, `<partition>/<file name>`: the person names
it (`root_into`), else the vault's only partition that holds Markdown, else
`private` (docs/decisions.md, "Notes at the vault root move into one
partition"). They keep their file names and their layout among themselves,
so wikilinks by name and Markdown links between them keep working unchanged.

What could change a link's target is checked here, from the links the last
scan resolved (the engine's own answer), and either mended or refused:

- a Markdown link or image whose path no longer leads to its file from the
  new place (a root note's link out, another note's link in) is rewritten to
  the new relative path in the file the run writes — a link-only edit of the
  body, the rest byte for byte; `rewrite` does it on the note's text before
  the envelope is spliced in;
- a move that would leave such a link in a file the run does not write (a
  record, a note it skips, a root note that stays) is refused (`blocked`),
  and so is one whose file name another Markdown file shares (a link by name
  could then pick the other by folder), one whose new path is taken, and one
  whose wikilink would, from the partition, find another file first by the
  partition's own path or a record's title there.

A refused note stays at the root as a note, listed with code `root-note`,
its reason and `moveBlocked`.
"""

from __future__ import annotations

import os
import posixpath
import re
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from knowledge_desktop.engine.fs.walk import is_ignored_folder
from knowledge_desktop.engine.graph.keys import file_key, normalise_name
from knowledge_desktop.engine.write.link_claims import link_name
from knowledge_desktop.engine.write.plan import WriteRejected

if TYPE_CHECKING:
    from knowledge_desktop.engine.write.operations.adopt import Note

DEFAULT_PARTITION = "private"
"""ARCHITECTURE.md's partition of a person's own records: where root notes go when the vault
has no single partition of notes to take them."""
_DESTINATION = re.compile(r"\]\(\s*(<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))+)")
"""A Markdown link's or image's destination, `](path)` (balanced parentheses allowed, as
CommonMark has them: `Topic%20(6).md`) or `](<path with spaces>)`."""


def destination(requested: str | None, with_markdown: Collection[str], root: str) -> str:
    """The partition the root notes move into: `requested`, else the only partition holding
    Markdown files, else `private`. A requested name must be a plain top-level folder name
    the walk reads (an existing partition, or a new one)."""
    if requested is None:
        only = sorted(with_markdown)
        return only[0] if len(only) == 1 else DEFAULT_PARTITION
    name = requested.strip().strip("/")
    if not name or "/" in name or "\\" in name or name in (".", "..") or is_ignored_folder("", name):
        raise WriteRejected(
            "root-into-invalid",
            f"--root-into names a top-level folder, not {requested!r}",
            {"rootInto": requested},
        )
    existing = os.path.join(root, name)
    if os.path.lexists(existing) and not (os.path.isdir(existing) and not os.path.islink(existing)):
        raise WriteRejected(
            "root-into-invalid", f"{name!r} at the vault root is not a folder", {"rootInto": name}
        )
    return name


@dataclass(frozen=True, slots=True)
class PathLink:
    """A Markdown link or image, as the last scan resolved it."""

    source: str
    line: int
    target_text: str
    target: str


@dataclass(slots=True)
class Links:
    """The resolved links that touch the root's notes: Markdown/image ones (their paths may
    need rewriting) and wikilinks of root notes (their names must find the same file)."""

    paths: list[PathLink] = field(default_factory=list)
    wiki: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Root note -> (link name, file it reaches) of its wikilinks and embeds."""

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Links:
        out = cls()
        rows = conn.execute(
            "SELECT src_path, line, link_kind, target_text, target_path FROM links"
            " WHERE target_path IS NOT NULL AND status IN ('resolved', 'ambiguous')"
            " ORDER BY src_path, line"
        )
        for src, line, kind, text, target in rows:
            at_root = "/" not in src or "/" not in target
            if not at_root:
                continue
            if kind in ("markdown", "image"):
                out.paths.append(PathLink(src, int(line or 0), str(text), str(target)))
            elif "/" not in src:
                out.wiki.setdefault(src, []).append((link_name(str(text)), str(target)))
        return out


def blocked(
    ctx: Any,
    dest: str,
    moving: Iterable[str],
    written: Collection[str],
    links: Links,
) -> dict[str, str]:
    """Why each root note of `moving` cannot move into `dest` (absent: it can), given the
    files the run writes (`written`, old paths). Applied until nothing more is refused, since
    a note that stays turns its Markdown links into ones a moving note's place depends on."""
    graph = ctx.reconciler.graph()
    markdown = {p.lower() for p in graph.nodes}
    there = _listing(os.path.join(str(ctx.root), dest))
    moving = set(moving)
    out: dict[str, str] = {}
    for path in sorted(moving):
        target = f"{dest}/{path}"
        if path.lower() in there:
            out[path] = f"{target} already exists"
            continue
        others = sorted(set(graph.files.get("", file_key(path))) - {path})
        if others:
            out[path] = f"{others[0]} has the same file name; a link by name could reach either once moved"
            continue
        for name, reached in links.wiki.get(path, []):
            why = _captured(graph, dest, name, reached, markdown)
            if why is not None:
                out[path] = why
                break
    while True:
        more = {
            link.target: f"{link.source} links to it by a Markdown path and is not written by this run"
            for link in links.paths
            if link.target in moving
            and link.target not in out
            and link.source != link.target
            and (link.source in out or link.source not in written)
        }
        if not more:
            return out
        out.update(more)


def _captured(graph: Any, dest: str, name: str, reached: str, markdown: set[str]) -> str | None:
    """Why `[[name]]`, reaching `reached` from the root, would reach another file from `dest`
    (None: it would not). A record looks a link up by its partition's paths, then titles and
    aliases, before anything vault-wide (docs/decisions.md, "Links beyond a record's partition")."""
    if not name:
        return None
    bare = posixpath.normpath(name.strip().lstrip("/"))
    candidate = f"{dest}/{bare if bare.lower().endswith('.md') else bare + '.md'}".lower()
    final = reached if "/" in reached else f"{dest}/{reached}"
    if candidate in markdown and candidate != final.lower():
        return f"its [[{name}]] would reach {dest}/{bare} once in {dest}/"
    titled = set(graph.names.get(dest, normalise_name(name[:-3] if name.lower().endswith(".md") else name)))
    if titled - {final}:
        return f"its [[{name}]] would reach the record {sorted(titled)[0]} once in {dest}/"
    return None


def _listing(folder: str) -> set[str]:
    try:
        return {entry.name.lower() for entry in os.scandir(folder)}
    except OSError:
        return set()


def rewrite(
    notes: dict[str, Note], links: Links, moved: dict[str, str]
) -> tuple[dict[str, Note], list[dict[str, Any]]]:
    """The notes whose Markdown links must change so that each still reaches its file once
    `moved` (old path -> new) is applied, with their text rewritten (only the link paths),
    and each change made: {path, line, from, to}."""
    changed: dict[str, Note] = {}
    made: list[dict[str, Any]] = []
    by_source: dict[str, list[PathLink]] = {}
    for link in links.paths:
        if link.source in moved or link.target in moved:
            by_source.setdefault(link.source, []).append(link)
    for source, listed in sorted(by_source.items()):
        note = notes.get(source)
        if note is None:
            continue  # not written by the run: `blocked` refused the moves this would need
        home = moved.get(source, source)
        head = len(note.text) - len(note.body)
        if head < 0 or not note.text.endswith(note.body):
            continue
        lines = note.text.splitlines(keepends=True)
        edits = 0
        for link in listed:
            final = moved.get(link.target, link.target)
            index = link.line - 1
            if not 0 <= index < len(lines):
                continue
            new_line, done = _rewrite_line(lines[index], link.target_text, home, final)
            if done:
                made += [{"path": source, "line": link.line, "from": old, "to": new} for old, new in done]
                lines[index] = new_line
                edits += 1
        if edits:
            text = "".join(lines)
            changed[source] = replace(note, text=text, body=text[head:])
    return changed, made


def _rewrite_line(line: str, target_text: str, home: str, final: str) -> tuple[str, list[tuple[str, str]]]:
    """`line` with each destination that named `target_text` made to reach `final` from the
    file at `home`, and the (old, new) destinations changed."""
    wanted = target_text.split("#", 1)[0].strip()
    done: list[tuple[str, str]] = []

    def swap(match: re.Match[str]) -> str:
        raw = match.group(1)
        angled = raw.startswith("<")
        inner = raw[1:-1] if angled else raw
        path, sep, fragment = inner.partition("#")
        decoded = unquote(path)
        if decoded.strip() != wanted or _reaches(home, decoded, final):
            return match.group(0)
        if decoded.startswith("/"):
            new = "/" + final
        else:
            new = posixpath.relpath(final, posixpath.dirname(home) or ".")
        safe = "/-._~!$&'*+,;=:@" + ("()" if new.count("(") == new.count(")") else "")
        shown = new if angled else quote(new, safe=safe)
        replaced = ("<" + shown + sep + fragment + ">") if angled else (shown + sep + fragment)
        done.append((raw, replaced))
        return match.group(0).replace(raw, replaced, 1)

    return _DESTINATION.sub(swap, line), done


def _reaches(home: str, path: str, final: str) -> bool:
    base = "" if path.startswith("/") else posixpath.dirname(home)
    rel = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    return rel == final or (not rel.lower().endswith(".md") and f"{rel}.md" == final)
