"""What a search shows of each hit: snippet, matched fields, summary, verified
evidence and a citation (spec: retrieval-and-dates — Results and citations).

The ranking only picks rowids; each hit on the page is completed here from
its rows, FTS and catalog entries, so the cost is per hit shown, not per
match.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.query import text as textmod
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.store.projections import links as links_projection
from knowledge_desktop.engine.store.projections.keyword import tables

EVIDENCE_SHOWN = 3


@dataclass(slots=True)
class Hit:
    """A ranked row before completion; `via` is the superseded record that led
    to it, for a hit found through superseded wording."""

    scope: str
    rowid: int
    score: float | None
    history: bool
    record_id: str
    via: dict[str, Any] | None = None
    matches: list[str] = field(default_factory=list)


def complete(conn: sqlite3.Connection, hit: Hit, words: list[str], q: GrepQuery) -> dict[str, Any]:
    fts, rows = tables(hit.scope, hit.history)
    row = conn.execute(
        f"SELECT id, kind, type, title, path, revision, sha256, lifecycle, body_line"
        f" FROM {rows} WHERE rowid=?",
        (hit.rowid,),
    ).fetchone()
    rid, kind, type_, title, path, revision, sha, lifecycle, body_line = row
    title_text, aliases_text, body = conn.execute(
        f"SELECT title, aliases, body FROM {fts} WHERE rowid=?", (hit.rowid,)
    ).fetchone()
    node_row = conn.execute("SELECT node FROM files WHERE path=?", (path,)).fetchone()
    data = json.loads(node_row[0]).get("data") or {} if node_row and node_row[0] else {}
    if hit.via is None:
        found = textmod.first_match(body, words)
        matches = textmod.field_matches(words, title=title_text, aliases=aliases_text)
        matches += ["body"] if found is not None else []
        snip = textmod.snippet_in_body(body, found)
    else:
        matches = list(hit.matches)
        snip = textmod.snippet(body, [], locate=False)
    line_start = body_line + body.count("\n", 0, snip.char_start)
    line_end = body_line + body.count("\n", 0, max(snip.char_start, snip.char_end - 1))
    evidence = [
        {
            k: v
            for k, v in {"source": s, "path": p, "url": u, "lines": [a, b] if a is not None else None}.items()
            if v is not None
        }
        for _i, s, p, u, a, b, _status, _reason in links_projection.evidence_of(
            conn, path, verified_only=True
        )
    ]
    summary = None
    recall = data.get("recall")
    if isinstance(recall, dict) and isinstance(recall.get("summary"), str):
        summary = recall["summary"]
    else:
        summary = _first_paragraph(body)
    out: dict[str, Any] = {
        "id": rid,
        "kind": kind,
        "type": type_,
        "title": title,
        "path": path,
        "revision": revision,
        "hash": sha,
        "score": round(hit.score, 6) if hit.score is not None else None,
        "lifecycle": lifecycle,
        "scope": hit.scope,
        "snippet": textmod.snippet_json(snip, line_start, line_end),
        "matches": matches,
        "summary": summary,
        "attribution": data.get("attribution"),
        "assertionOrigin": data.get("assertion_origin"),
        "evidence": evidence[:EVIDENCE_SHOWN],
        "evidenceTruncated": len(evidence) > EVIDENCE_SHOWN,
        "citation": {
            "id": rid,
            "path": path,
            "revision": revision,
            "sha256": sha,
            "lines": [line_start, line_end],
        },
    }
    if hit.via is not None:
        out["via"] = {k: v for k, v in hit.via.items() if not k.startswith("_")}
    return out


def _first_paragraph(body: str, limit: int = 280) -> str:
    for block in body.split("\n\n"):
        text = " ".join(
            line.strip() for line in block.strip().splitlines() if not line.lstrip().startswith("#")
        )
        if text:
            return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    return ""
