"""What the Repository pane says: coverage in words, supersession chains, short labels.

Pure functions over a `KnowledgeEntitiesV1` document (docs/extraction.md), so
the pane's widgets only place text. Coverage is worded for a person rather
than shown as codes: issue 17 §3 asks that what was partial, and why, be seen.
"""

from __future__ import annotations

from typing import Any

AREA_NAMES = {
    "documents": "Documents",
    "decisions": "Decisions",
    "concepts": "Concepts",
    "changes": "Changes",
    "history": "Git history",
    "symbols": "Code symbols",
    "memory": "Vault claims",
}
STATUS_WORDS = {"complete": "complete", "partial": "partial", "not-analyzed": "not analysed"}
REASONS = {
    "aliases-capped": "more aliases than the 32 kept",
    "ambiguous-alias": "an alias names several concepts, so it names none",
    "citations-capped": "more links than the 4,096 read in one document",
    "commit-window": "only the most recent commits were read",
    "document-too-large": "a document is over 4 MiB and was not read",
    "document-unread": "a document could not be read",
    "documents-capped": "more than 10,000 documents: the rest were not read",
    "documents-partial": "some documents were not read completely",
    "entities-capped": "more than 10,000 entities: the rest are left out",
    "evidence-capped": "an entity has more evidence than the 64 kept",
    "folder-unreadable": "a folder could not be read",
    "generated-content": "generated content was left out",
    "glossary-aliases-unbound": "the glossary's aliases cannot be tied to one of its terms",
    "headings-capped": "a document has more than 128 headings: the rest was not read",
    "history-not-requested": "history was not asked for",
    "history-unavailable": "the history cannot be read",
    "invalid-frontmatter": "a document's frontmatter is not valid YAML",
    "links-capped": "an entity has more links than the 64 kept",
    "missing-object": "an older commit is missing from the local repository",
    "name-truncated": "a name was cut at 256 characters",
    "no-evidence": "an entity was left out for lack of evidence",
    "no-memory-source": "no vault claims were given",
    "no-repository": "the folder is not the root of a Git working tree",
    "symbols-not-requested": "code symbols were not asked for",
    "ambiguous-symbol": "several modules export this name, so no concept is linked to one",
    "syntax-error": "a code file does not parse: what parsed is listed",
    "file-unread": "a code file could not be read",
    "file-too-large": "a code file is over 1 MiB and was not read",
    "files-capped": "more than 10,000 code files: the rest were not read",
    "bytes-capped": "the 64 MiB code reading budget ran out",
    "symbols-capped": "more symbols than kept (1,000 a file, 100,000 in all)",
    "language-not-supported": "code in a language this program does not read",
    "export-unresolved": "__all__ lists a name the module does not bind",
    "reasons-capped": "more reasons than listed",
    "region-oversized": "a region is over 16 KiB: only its title is cited",
    "tag-not-ancestor": "the tag is not an ancestor of HEAD",
    "text-budget": "the 64 MiB reading budget ran out",
    "time-budget": "the 10-second history budget ran out",
    "traversal-capped": "a document is too long to outline: the rest was not read",
    "unknown-tag": "the tag does not exist",
    "unresolved-supersession": "a supersession names a file that is not an extracted ADR",
}


def reason_text(reason: dict[str, Any]) -> str:
    """One reason as a sentence: what happened, then where and the engine's detail."""
    words = REASONS.get(str(reason.get("code")), str(reason.get("code")))
    where = [str(reason[k]) for k in ("path", "detail") if reason.get(k)]
    return f"{words} ({'; '.join(where)})" if where else words


def coverage_lines(coverage: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(area name, status words, reason sentences) per area, in the document's order."""
    out = []
    for area, entry in coverage.items():
        status = STATUS_WORDS.get(str(entry.get("status")), str(entry.get("status")))
        out.append((AREA_NAMES.get(area, area), status, [reason_text(r) for r in entry.get("reasons", [])]))
    return out


def coverage_summary(coverage: dict[str, Any]) -> str:
    """One line for the pane's header: which areas are not complete."""
    gaps = [
        f"{AREA_NAMES.get(area, area)} {STATUS_WORDS.get(e['status'], e['status'])}"
        for area, e in coverage.items()
        if e.get("status") != "complete"
    ]
    return "Coverage: " + (", ".join(gaps) if gaps else "complete")


def supersession_chain(entity: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> str:
    """The decision's place in its supersession chain, oldest first: `A → B → C`.

    Follows `supersedes` back and `superseded-by` forward (the links the engine
    resolved to other extracted ADRs); a cycle stops at the first repeat."""
    older: list[str] = []
    seen = {entity["id"]}
    cur = entity
    while True:
        prev = next((lk["target"] for lk in cur.get("links", []) if lk["kind"] == "supersedes"), None)
        if prev is None or prev in seen or prev not in by_id:
            break
        seen.add(prev)
        older.insert(0, prev)
        cur = by_id[prev]
    newer: list[str] = []
    cur = entity
    while True:
        nxt = next((lk["target"] for lk in cur.get("links", []) if lk["kind"] == "superseded-by"), None)
        if nxt is None or nxt in seen or nxt not in by_id:
            break
        seen.add(nxt)
        newer.append(nxt)
        cur = by_id[nxt]
    if not older and not newer:
        return ""
    names = [by_id[i]["name"] for i in older] + [f"[{entity['name']}]"] + [by_id[i]["name"] for i in newer]
    return " → ".join(names)


def evidence_label(ev: dict[str, Any]) -> str:
    if ev.get("kind") == "commit":
        return f"commit {str(ev.get('sha', ''))[:12]}"
    start, end = ev.get("lineStart"), ev.get("lineEnd")
    lines = f"line {start}" if start == end else f"lines {start}–{end}"
    return f"{ev.get('path')} · {lines}"


def change_release(entity: dict[str, Any]) -> str:
    """A changelog entry's release heading, or `commit <short id>`."""
    if entity["id"].startswith("commit:"):
        return f"commit {entity['id'][len('commit:') :][:12]}"
    parts = entity["id"].split("#")
    return parts[1] if len(parts) >= 3 else ""


def supporters(document: dict[str, Any]) -> dict[str, list[str]]:
    """Entity id → the claim ids that support it (memoryRelations)."""
    out: dict[str, list[str]] = {}
    for rel in document.get("memoryRelations", []):
        ids = out.setdefault(rel["target"], [])
        if rel["candidateId"] not in ids:
            ids.append(rel["candidateId"])
    return out
