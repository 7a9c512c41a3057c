"""ParsedFile <-> JSON, so the parse cache survives between runs."""

from __future__ import annotations

import json
from typing import Any

from knowledge_desktop.engine.diagnostics import CODES, Diagnostic
from knowledge_desktop.engine.links.extract import RawLink
from knowledge_desktop.engine.records.notes import NoteMeta
from knowledge_desktop.engine.records.parse import ParsedFile

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""`json.dumps` with these options, without building an encoder for every file."""


def encode(parsed: ParsedFile) -> str:
    return _ENCODE(
        {
            "status": parsed.status,
            "data": parsed.data,
            "key_lines": parsed.key_lines,
            "body_line": parsed.body_line,
            "body_chars": parsed.body_chars,
            "body_blank": parsed.body_blank,
            "links": [[link.kind, link.target, link.label, link.line] for link in parsed.links],
            "diags": [[d.code, d.line, d.message, d.record_id] for d in parsed.diagnostics],
            "valid": parsed.structurally_valid,
            "note": parsed.note.as_list() if parsed.note is not None else None,
        }
    )


def decode(path: str, scope: str | None, sha256: str, size: int, text: str) -> ParsedFile:
    raw: dict[str, Any] = json.loads(text)
    parsed = ParsedFile(path, scope, sha256, size, raw["status"])
    parsed.data = raw["data"]
    parsed.key_lines = raw["key_lines"]
    parsed.body_line = raw["body_line"]
    parsed.body_chars = raw["body_chars"]
    parsed.body_blank = raw["body_blank"]
    parsed.links = [RawLink(k, t, lab, ln) for k, t, lab, ln in raw["links"]]
    parsed.diagnostics = [
        Diagnostic(code, CODES[code][0], path, line, record_id, message)
        for code, line, message, record_id in raw["diags"]
    ]
    parsed.structurally_valid = raw["valid"]
    note = raw.get("note")
    parsed.note = NoteMeta.from_list(note) if note is not None else None
    return parsed
