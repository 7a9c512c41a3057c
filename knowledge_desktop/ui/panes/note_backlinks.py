"""Backlinks of a note (issue 25 §2), in the shape the Backlinks tree reads.

`Vault.backlinks` answers for records by id; a note has no id, and the
engine lists what links to it in `Vault.show(note)["backlinks"]` (path,
title, line, via). This turns those rows into the `linked` group of a
backlinks answer, with the text of each linking line read from its file
(inside the vault only), so a note's Backlinks pane looks like a record's.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.fs.inside import read_inside
from knowledge_desktop.engine.vault import Vault

CONTEXT_CHARS = 240
"""A linking line is shown up to this many characters."""
READ_LIMIT = 4 * 1024 * 1024
"""A linking file larger than this shows no line text."""


def _line_text(vault: Vault, path: str, line: int, cache: dict[str, list[str]]) -> str:
    if path not in cache:
        try:
            cache[path] = read_inside(vault.root, path, READ_LIMIT).decode("utf-8", "replace").split("\n")
        except OSError:
            cache[path] = []
    lines = cache[path]
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text[:CONTEXT_CHARS]


def note_backlinks(vault: Vault, path: str, result: dict[str, Any]) -> dict[str, Any]:
    """`result` (a `Vault.backlinks` answer) with a note's linking files filled in, when the
    engine left them out and `path` is a note; otherwise `result` as it was."""
    if result.get("id") or result.get("linked"):
        return result
    view = vault.show(path)
    if view.get("status") != "note":
        return result
    by_source: dict[str, dict[str, Any]] = {}
    cache: dict[str, list[str]] = {}
    for row in view.get("backlinks") or []:
        source = str(row.get("path") or "")
        if not source:
            continue
        entry = by_source.setdefault(
            source,
            {"path": source, "id": row.get("id"), "title": row.get("title"), "kind": None, "lines": []},
        )
        line = int(row.get("line") or 0)
        entry["lines"].append({"line": line, "context": _line_text(vault, source, line, cache)})
    linked = sorted(by_source.values(), key=lambda e: str(e["title"] or e["path"]).casefold())
    counts = dict(result.get("counts") or {})
    counts["linked"] = len(linked)
    return {**result, "title": view.get("title"), "note": True, "linked": linked, "counts": counts}
