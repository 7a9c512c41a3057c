"""The discovery snapshot: a repository's code modules and what each exports, bounded.

Python is read with `ast`, TypeScript and JavaScript with tree-sitter's
grammars; nothing is guessed with patterns over code. The walk is the
documents' (spec: knowledge-entities-extraction.md, "Bounds and coverage"):
hidden folders, `node_modules`, virtual environments and caches are not
walked and symbolic links are not followed; files are taken in path order up
to 10,000, 1 MiB each and 64 MiB in all, 1,000 symbols a file and 100,000 in
all. Whatever a bound cuts, a file that does not parse, code in a language we
do not read, or a name `__all__` lists but nothing binds is a coverage
reason, so the `symbols` area is `complete` only when every code file was
read whole. A module's facts depend on its bytes alone and are cached by
path and SHA-256 between runs.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.extraction.bounds import (
    MAX_CODE_FILE_BYTES,
    MAX_CODE_FILES,
    MAX_CODE_TOTAL_BYTES,
    MAX_SYMBOLS,
    MAX_SYMBOLS_PER_FILE,
)
from knowledge_desktop.engine.extraction.model import SYMBOLS, Reason
from knowledge_desktop.engine.extraction.symbols.model import ModuleFacts
from knowledge_desktop.engine.extraction.symbols.python_facts import python_facts
from knowledge_desktop.engine.extraction.symbols.script_facts import LANGUAGES, script_facts

SNAPSHOT_VERSION = 1
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages", "bower_components"})
_SUFFIXES = {".py": "python", ".pyi": "python", **LANGUAGES}
UNSUPPORTED = {
    ".sh": "shell",
    ".bash": "shell",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".swift": "Swift",
    ".scala": "Scala",
    ".ex": "Elixir",
    ".clj": "Clojure",
    ".lua": "Lua",
}
"""Code we do not read: present, it makes `symbols` partial (`language-not-supported`), since
a concept may be defined there."""


@dataclass(slots=True)
class _Cached:
    stat_key: tuple[int, int, int]
    facts: ModuleFacts


@dataclass(slots=True)
class SymbolCache:
    """Module facts of earlier runs, by repository-relative path."""

    entries: dict[str, _Cached] = field(default_factory=dict)
    parsed: int = 0


@dataclass(slots=True)
class Discovery:
    """The snapshot of one run: module facts in path order, and why it is partial."""

    modules: list[ModuleFacts] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    discovered: int = 0
    read: int = 0
    bytes: int = 0

    @property
    def status(self) -> str:
        return "partial" if self.reasons else "complete"

    def counts(self) -> dict[str, int]:
        return {
            "files": self.discovered,
            "read": self.read,
            "bytes": self.bytes,
            "modules": len(self.modules),
            "symbols": sum(len(m.symbols) for m in self.modules),
        }

    def as_json(self) -> dict[str, Any]:
        """The snapshot as a JSON object in canonical order (same inputs, same bytes)."""
        return {
            "schemaVersion": SNAPSHOT_VERSION,
            "facts": [m.as_json() for m in self.modules],
            "coverage": {
                "status": self.status,
                **self.counts(),
                "reasons": [r.as_json() for r in sorted(set(self.reasons))[:1000]],
            },
        }


def language_of(path: str) -> str | None:
    """The language discovery reads `path` as, or None. Minified bundles and other
    files are not modules anyone defines a concept in."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith(".") or ".min." in name:
        return None
    return _SUFFIXES.get(os.path.splitext(name)[1].lower())


def discover_symbols(root: Path, cache: SymbolCache | None = None) -> Discovery:
    """The discovery snapshot of `root` as it is now."""
    cache = cache if cache is not None else SymbolCache()
    cache.parsed = 0
    out = Discovery()
    paths = _walk(root, out.reasons)
    out.discovered = len(paths)
    if len(paths) > MAX_CODE_FILES:
        out.reasons.append(
            Reason(SYMBOLS, "files-capped", detail=f"{len(paths) - MAX_CODE_FILES} code files not read")
        )
        paths = paths[:MAX_CODE_FILES]
    total_symbols = 0
    seen: set[str] = set()
    for path in paths:
        facts = _one(root, path, cache, out)
        if facts is None:
            continue
        seen.add(path)
        for code, detail in facts.problems:
            out.reasons.append(Reason(SYMBOLS, code, path, detail))
        room = MAX_SYMBOLS - total_symbols
        if len(facts.symbols) > room:
            out.reasons.append(
                Reason(SYMBOLS, "symbols-capped", path, f"{len(facts.symbols) - room} symbols left out")
            )
            facts = ModuleFacts(
                facts.path, facts.language, facts.sha256, facts.symbols[:room], facts.problems
            )
        total_symbols += len(facts.symbols)
        out.modules.append(facts)
    for gone in set(cache.entries) - seen:
        del cache.entries[gone]
    return out


def _walk(root: Path, reasons: list[Reason]) -> list[str]:
    found: list[str] = []
    unsupported: dict[str, int] = {}

    def unreadable(exc: OSError) -> None:
        where = os.path.relpath(exc.filename, root) if exc.filename else "."
        reasons.append(Reason(SYMBOLS, "folder-unreadable", where.replace(os.sep, "/"), exc.strerror or ""))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_FOLDERS
            and not os.path.islink(os.path.join(folder, d))
        )
        for name in files:
            path = (name if rel == "." else f"{rel}/{name}").replace(os.sep, "/")
            if language_of(path) is None:
                other = UNSUPPORTED.get(os.path.splitext(name)[1].lower())
                if other is not None:
                    unsupported[other] = unsupported.get(other, 0) + 1
                continue
            try:
                path.encode("utf-8")
            except UnicodeEncodeError:
                shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                reasons.append(Reason(SYMBOLS, "file-unread", shown, "the name is not UTF-8"))
                continue
            found.append(path)
    for language, count in sorted(unsupported.items()):
        noun = "file" if count == 1 else "files"
        reasons.append(
            Reason(SYMBOLS, "language-not-supported", detail=f"{language}: {count} {noun} not read")
        )
    return sorted(found)


def _one(root: Path, path: str, cache: SymbolCache, out: Discovery) -> ModuleFacts | None:
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
    except OSError as exc:
        out.reasons.append(Reason(SYMBOLS, "file-unread", path, exc.strerror or "cannot stat"))
        return None
    if not stat.S_ISREG(st.st_mode):  # a symbolic link or a device: not followed
        out.reasons.append(Reason(SYMBOLS, "file-unread", path, "not a regular file"))
        return None
    if st.st_size > MAX_CODE_FILE_BYTES:
        out.reasons.append(Reason(SYMBOLS, "file-too-large", path, f"{st.st_size} bytes"))
        return None
    if out.bytes + st.st_size > MAX_CODE_TOTAL_BYTES:
        out.reasons.append(Reason(SYMBOLS, "bytes-capped", path, "64 MiB of code read"))
        return None
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = cache.entries.get(path)
    if cached is not None and cached.stat_key == key:
        out.read += 1
        out.bytes += st.st_size
        return cached.facts
    try:
        with open(full, "rb") as f:
            data = f.read(MAX_CODE_FILE_BYTES + 1)
    except OSError as exc:
        out.reasons.append(Reason(SYMBOLS, "file-unread", path, exc.strerror or "cannot read"))
        return None
    out.read += 1
    out.bytes += len(data)
    digest = hashlib.sha256(data).hexdigest()
    if cached is not None and cached.facts.sha256 == digest:
        cached.stat_key = key
        return cached.facts
    facts = _parse(path, data, digest)
    cache.parsed += 1
    cache.entries[path] = _Cached(key, facts)
    return facts


def _parse(path: str, data: bytes, digest: str) -> ModuleFacts:
    language = language_of(path) or "unknown"
    facts = ModuleFacts(path, language, digest)
    lines = data.splitlines(keepends=True)
    if b"\0" in data:
        facts.problems.append(("file-unread", "binary content"))
        return facts
    if language == "python":
        python_facts(path, data, lines, facts)
    else:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            facts.problems.append(("file-unread", f"not UTF-8 at byte {exc.start}"))
            return facts
        script_facts(language, data, lines, facts)
    if len(facts.symbols) > MAX_SYMBOLS_PER_FILE:
        facts.problems.append(
            ("symbols-capped", f"{len(facts.symbols) - MAX_SYMBOLS_PER_FILE} symbols left out")
        )
        del facts.symbols[MAX_SYMBOLS_PER_FILE:]
    return facts
