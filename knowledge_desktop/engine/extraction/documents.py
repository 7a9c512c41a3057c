"""Finding and reading a repository's Markdown documents, within the spec's bounds.

Spec: knowledge-entities-extraction.md, "Bounds and coverage": at most 10,000
documents (in path order), 4 MiB each and 64 MiB in all; whatever is left
unread is a coverage reason, never silently skipped. Hidden folders (`.git`
among them) and `node_modules` are not walked; symbolic links are not
followed. A document's result depends on its own bytes only, so it is cached
by path and content hash (with the file's stat as a cheaper first check) and
an unchanged document is never parsed twice.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from knowledge_desktop.engine.extraction.bounds import MAX_DOCUMENT_BYTES, MAX_DOCUMENTS, MAX_TOTAL_BYTES
from knowledge_desktop.engine.extraction.changelog import changelog_entries, is_changelog
from knowledge_desktop.engine.extraction.concepts import (
    bind_glossary_aliases,
    concept_document,
    glossary_terms,
    is_glossary,
)
from knowledge_desktop.engine.extraction.decisions import adr_decision, is_adr, section_decisions
from knowledge_desktop.engine.extraction.model import DOCUMENTS, DocumentResult, Reason
from knowledge_desktop.engine.extraction.parsed import Parsed
from knowledge_desktop.engine.fs.read import read_file

MARKDOWN_SUFFIXES = (".md", ".markdown")
SKIPPED_FOLDERS = frozenset({"node_modules"})


@dataclass(slots=True)
class _Cached:
    stat_key: tuple[int, int, int]
    digest: str
    result: DocumentResult


@dataclass(slots=True)
class DocumentCache:
    """Per-document results of earlier runs, by repository-relative path."""

    entries: dict[str, _Cached] = field(default_factory=dict)
    parsed: int = 0
    """Documents parsed by the last run (the rest came from the cache)."""


@dataclass(slots=True)
class Scan:
    results: list[DocumentResult] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    discovered: int = 0
    read: int = 0
    bytes: int = 0


def discover(root: Path, reasons: list[Reason]) -> list[str]:
    """Repository-relative paths of Markdown documents, sorted by their code points."""
    found: list[str] = []

    def unreadable(exc: OSError) -> None:
        where = os.path.relpath(exc.filename, root) if exc.filename else "."
        reasons.append(Reason(DOCUMENTS, "folder-unreadable", where.replace(os.sep, "/"), exc.strerror or ""))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        rel = os.path.relpath(folder, root)
        kept = []
        for d in sorted(dirs):
            where = (d if rel == "." else f"{rel}/{d}").replace(os.sep, "/")
            full = os.path.join(folder, d)
            why = None
            if os.path.islink(full):
                why = "a symbolic link: not followed"
            elif d.startswith(".") or d in SKIPPED_FOLDERS:
                why = None if d == ".git" else "a hidden or tool folder: not read"
            else:
                kept.append(d)
                continue
            if why is not None and _holds_markdown(full):
                reasons.append(Reason(DOCUMENTS, "folder-skipped", where, why))
        dirs[:] = kept
        for name in files:
            if name.lower().endswith(MARKDOWN_SUFFIXES) and not name.startswith("."):
                path = (name if rel == "." else f"{rel}/{name}").replace(os.sep, "/")
                try:
                    path.encode("utf-8")
                except UnicodeEncodeError:  # a name that is not UTF-8 cannot be a JSON path
                    shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                    reasons.append(Reason(DOCUMENTS, "document-unread", shown, "the name is not UTF-8"))
                    continue
                found.append(path)
    return sorted(found)


def _holds_markdown(folder: str, budget: int = 2000) -> bool:
    """Whether a folder left out holds Markdown (looked at up to `budget` entries), so
    that leaving it out is said in coverage, never silent."""
    seen = 0
    for _here, _dirs, files in os.walk(folder):
        for name in files:
            if name.lower().endswith(MARKDOWN_SUFFIXES):
                return True
        seen += len(files) + len(_dirs)
        if seen > budget:
            return True  # too big to look through: say it may hold some
    return False


def scan_documents(root: Path, cache: DocumentCache | None = None) -> Scan:
    """Every document's result, from the cache when its bytes did not change."""
    cache = cache if cache is not None else DocumentCache()
    cache.parsed = 0
    out = Scan()
    paths = discover(root, out.reasons)
    out.discovered = len(paths)
    if len(paths) > MAX_DOCUMENTS:
        out.reasons.append(
            Reason(DOCUMENTS, "documents-capped", detail=f"{len(paths) - MAX_DOCUMENTS} documents not read")
        )
        paths = paths[:MAX_DOCUMENTS]
    seen: set[str] = set()
    for path in paths:
        result = _one(root, path, cache, out)
        if result is not None:
            seen.add(path)
            out.results.append(result)
    for gone in set(cache.entries) - seen:
        del cache.entries[gone]
    return out


def _one(root: Path, path: str, cache: DocumentCache, out: Scan) -> DocumentResult | None:
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
    except OSError as exc:
        out.reasons.append(Reason(DOCUMENTS, "document-unread", path, exc.strerror or str(exc)))
        return None
    if not stat.S_ISREG(st.st_mode):
        out.reasons.append(Reason(DOCUMENTS, "document-unread", path, "not a regular file"))
        return None
    if st.st_size > MAX_DOCUMENT_BYTES:
        out.reasons.append(Reason(DOCUMENTS, "document-too-large", path, f"{st.st_size} bytes"))
        return None
    if out.bytes + st.st_size > MAX_TOTAL_BYTES:
        out.reasons.append(Reason(DOCUMENTS, "text-budget", path, "64 MiB of documents already read"))
        return None
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    cached = cache.entries.get(path)
    if cached is not None and cached.stat_key == key:
        out.bytes += st.st_size
        out.read += 1
        return cached.result
    try:
        data = read_file(full, MAX_DOCUMENT_BYTES).data
    except OSError as exc:
        out.reasons.append(Reason(DOCUMENTS, "document-unread", path, exc.strerror or str(exc)))
        return None
    if data is None:
        out.reasons.append(Reason(DOCUMENTS, "document-too-large", path))
        return None
    out.bytes += len(data)
    out.read += 1
    digest = hashlib.sha256(data).hexdigest()
    if cached is not None and cached.digest == digest:
        cache.entries[path] = _Cached(key, digest, cached.result)
        return cached.result
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        out.reasons.append(Reason(DOCUMENTS, "document-unread", path, f"not UTF-8 at byte {exc.start}"))
        out.read -= 1
        return None
    result = analyze(path, text)
    cache.parsed += 1
    cache.entries[path] = _Cached(key, digest, result)
    return result


def analyze(path: str, text: str) -> DocumentResult:
    """Everything one document yields: decisions, concepts, changes and its own reasons."""
    doc = Parsed.of(path, text)
    result = DocumentResult(path, adr=is_adr(doc))
    if result.adr:
        decision = adr_decision(doc)
        result.found += [decision] if decision is not None else []
    else:
        result.found += section_decisions(doc)
    if is_glossary(doc):
        terms = glossary_terms(doc, whole_glossary=True)
        bind_glossary_aliases(doc, terms)
        result.found += terms
    else:
        concept = None if result.adr else concept_document(doc)
        result.found += [concept] if concept is not None else []
        result.found += glossary_terms(doc, whole_glossary=False)
    if is_changelog(doc):
        result.found += changelog_entries(doc)
    result.reasons = doc.reasons
    return result
