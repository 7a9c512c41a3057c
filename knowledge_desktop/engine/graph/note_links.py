"""Resolving links the way Obsidian does, across the whole vault (issue 25 §2).

A note's `[[Name]]` names a file, not a record: it matches a Markdown file of
that name anywhere in the vault, case-insensitively, `.md` optional;
`[[folder/Name]]` matches the files whose path ends so. Several files of one
name: the one in the linking note's folder, else the one with the fewest
folders, then the shortest path, then the first by path — and the link is
reported ambiguous (docs/decisions.md, "Links in a notes vault"). When no file
has the name, a record's title or alias matches (a note reaching a record),
and last a non-Markdown file of the vault (images, PDFs). A Markdown link
`[text](path)` is a path from the note's folder first.

A record's link that its partition's rules match to nothing is read as a
note's link would be, over the whole vault (`beyond_partition`;
docs/decisions.md, "Links beyond a record's partition").

Every lookup notes the vault-wide key it read ('f' a file name, 'N' a record
name; `graph/keys.py`), so a note is derived again exactly when a file of a
name it links appears, goes or is renamed, or a record takes or drops the title
it links.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from typing import TYPE_CHECKING

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.diagnostics import Diagnostic
from knowledge_desktop.engine.graph.derived import Derived, ResolvedLink
from knowledge_desktop.engine.graph.keys import Key, file_key, normalise_name
from knowledge_desktop.engine.links.extract import RawLink

if TYPE_CHECKING:
    from knowledge_desktop.engine.graph.node import RecordNode
    from knowledge_desktop.engine.graph.resolve import Resolver

Found = tuple[ResolvedLink, tuple[str, ...]]
"""A resolved link, and every candidate it had (more than one: it was ambiguous)."""


def resolve(resolver: Resolver, node: RecordNode, raw: RawLink, watch: set[Key]) -> Found:
    """One link of a note, with the files it could have meant."""
    if raw.kind in ("wiki", "embed"):
        name = raw.target.split("#", 1)[0].strip()
        if not name:  # [[#Heading]]: a place in this note
            return ResolvedLink(raw, "resolved", None, node.path), ()
        return _by_name(resolver, node, raw, name, watch)
    path = raw.target.split("#", 1)[0].strip()
    if not path:
        return ResolvedLink(raw, "resolved", None, node.path), ()
    rel = _vault_path(node.path, path)
    if rel is None:
        return ResolvedLink(raw, "missing"), ()  # a note's link is resolved, missing or ambiguous
    markdown = rel if rel.lower().endswith(".md") else f"{rel}.md"
    watch.add(("f", "", file_key(markdown)))
    if markdown in resolver.nodes:
        return _to(resolver, raw, markdown, ()), ()
    if not rel.lower().endswith(".md") and resolver.attachments.exists(rel):
        return ResolvedLink(raw, "resolved", None, rel), ()
    return _by_name(resolver, node, raw, path.lstrip("/"), watch)  # Obsidian reads it as a link path too


def _vault_path(source: str, path: str) -> str | None:
    """A Markdown link's path from the note at `source` as a vault path; None when it
    climbs out of the vault."""
    base = "" if path.startswith("/") else posixpath.dirname(source)
    rel = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    return None if rel in ("..", ".") or rel.startswith("../") else rel


def beyond_partition(resolver: Resolver, node: RecordNode, raw: RawLink, watch: set[Key]) -> Found | None:
    """A record's link that its partition's rules matched to nothing, read by this module's
    rule over the whole vault (a file name or a path from the vault root, a title or alias of
    any partition, an attachment); None when that finds nothing too. A record of its own
    partition is found here by a path only, never by a bare file name: there its title and
    aliases name it (records-and-ontology), so a record vault's links keep their meaning.
    A record of another partition is reached by path alone, without its id: ids are a
    partition's own, and the links table's id column means a record of the linking record's
    partition."""
    if raw.kind == "markdown":
        rel = _vault_path(node.path, raw.target)
        if rel is None:
            return None
        markdown = rel if rel.lower().endswith(".md") else f"{rel}.md"
        watch.add(("f", "", file_key(markdown)))
        if markdown not in resolver.nodes:
            return None
        return _beyond(resolver, node, raw, markdown, ()), ()
    name = raw.target.strip()
    if not name:
        return None
    found = _files(resolver, name, watch)
    if "/" not in name:  # a bare name: a record of the partition by its title or alias only
        found = [p for p in found if not _own_record(resolver, node, p)]
    if not found:
        bare = name[:-3] if name.lower().endswith(".md") else name
        key = normalise_name(bare)
        watch.add(("N", "", key))
        found = [p for scope in resolver.names.groups() for p in resolver.names.get(scope, key)]
    if not found and "." in name.rsplit("/", 1)[-1]:
        found = _attachments(resolver, name)
    if not found:
        return None
    chosen, every = pick(found, node.path)
    return _beyond(resolver, node, raw, chosen, every), every


def _own_record(resolver: Resolver, node: RecordNode, path: str) -> bool:
    target = resolver.nodes[path]
    return target.is_record and target.scope == node.scope


def _beyond(
    resolver: Resolver, node: RecordNode, raw: RawLink, path: str, every: tuple[str, ...]
) -> ResolvedLink:
    target = resolver.nodes.get(path)
    same = target is not None and target.is_record and target.scope == node.scope
    record_id = target.id if target is not None and same else None
    return ResolvedLink(raw, "ambiguous" if len(every) > 1 else "resolved", record_id, path)


def pick(candidates: Collection[str], source: str) -> tuple[str, tuple[str, ...]]:
    """The file a link of `source` takes among `candidates` (the rule of this module's
    docstring), and all of them sorted."""
    if len(candidates) == 1:  # the common case, worth no sorting
        only = next(iter(candidates))
        return only, (only,)
    every = tuple(sorted(candidates))
    folder = posixpath.dirname(source)
    near = [p for p in every if posixpath.dirname(p) == folder] or every
    return min(near, key=lambda p: (p.count("/"), len(p), p)), every


def _by_name(resolver: Resolver, node: RecordNode, raw: RawLink, name: str, watch: set[Key]) -> Found:
    found = _files(resolver, name, watch)
    if not found:
        bare = name[:-3] if name.lower().endswith(".md") else name
        key = normalise_name(bare)
        watch.add(("N", "", key))
        found = [path for scope in resolver.names.groups() for path in resolver.names.get(scope, key)]
    if not found and "." in name.rsplit("/", 1)[-1]:
        found = _attachments(resolver, name)
    if not found:
        return ResolvedLink(raw, "missing"), ()
    chosen, every = pick(found, node.path)
    return _to(resolver, raw, chosen, every), every


def _files(resolver: Resolver, name: str, watch: set[Key]) -> list[str]:
    """Markdown files named `name` (`folder/Name`: whose path ends so)."""
    bare = name[:-3] if name.endswith((".md", ".MD", ".Md", ".mD")) else name
    key = normalise_name(bare.rsplit("/", 1)[-1])  # (`file_key` of the file it names)
    watch.add(("f", "", key))
    found = resolver.files.get("", key)
    if "/" not in bare or not found:
        return list(found)
    tail = normalise_name(bare.strip("/"))
    return [p for p in found if _ends_with(normalise_name(p[:-3]), tail)]


def _attachments(resolver: Resolver, name: str) -> list[str]:
    base = name.rsplit("/", 1)[-1]
    found = resolver.attachments.named(base)
    if "/" not in name:
        return found
    tail = name.strip("/").lower()
    return [p for p in found if _ends_with(p.lower(), tail)]


def _ends_with(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


def _to(resolver: Resolver, raw: RawLink, path: str, every: tuple[str, ...]) -> ResolvedLink:
    target = resolver.nodes.get(path)
    record_id = target.id if target is not None and target.is_record else None
    return ResolvedLink(raw, "ambiguous" if len(every) > 1 else "resolved", record_id, path)


def derive_note(resolver: Resolver, node: RecordNode) -> Derived:
    """A note's meaning among the vault's files: where each of its links goes. A note has
    no id, type or references, so nothing else is judged, and it is valid as it is."""
    derived = Derived(scope=node.scope or "", valid=True)
    results: list[str | None] = []
    for raw in node.links:
        link, every = resolve(resolver, node, raw, derived.watch)
        results += (link.status, link.target_id, link.target_path)
        if link.status != "resolved":
            derived.diagnostics.append(link_diagnostic(node, link, every))
    derived.link_results = tuple(results)
    return derived


def link_diagnostic(node: RecordNode, link: ResolvedLink, every: tuple[str, ...]) -> Diagnostic:
    """The warning for a note's link (or a record's link taken to a note) that did not
    resolve cleanly: ambiguous (with the file taken) or missing."""
    raw = link.raw
    shown = _SHOWN[raw.kind].format(raw.target)
    line = node.body_line + raw.line
    if link.status == "ambiguous":
        listed = ", ".join(every[:3]) + (f" and {len(every) - 3} more" if len(every) > 3 else "")
        return dg.make(
            "link-ambiguous",
            node.path,
            f"link {shown} matches {len(every)} files ({listed}); it goes to {link.target_path}",
            line=line,
            record_id=node.id,
        )
    climbs = raw.kind in ("markdown", "image") and _vault_path(node.path, raw.target.split("#", 1)[0]) is None
    why = "leaves the vault" if climbs else "matches no note, record or file of the vault"
    return dg.make("link-missing", node.path, f"link {shown} {why}", line=line, record_id=node.id)


_SHOWN = {"wiki": "[[{}]]", "embed": "![[{}]]", "markdown": "({})", "image": "![]({})"}
