"""A record file as a form sees it, and the form's values written back into it (no widgets).

The form never builds a file from nothing: it changes the keys it shows in
the file it started from (`update_frontmatter`), so the keys it does not
show — tags, unknown keys, comments — survive, as they do in the Advanced
tab. The frontmatter is read with the reader's own YAML loader, so an error
here names the same line the diagnostics would.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.records import frontmatter as fm
from knowledge_desktop.engine.records import yaml12
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter
from knowledge_desktop.engine.write.operations import drafts
from knowledge_desktop.engine.write.plan import WriteRejected

CLAIM_KINDS = ("fact", "preference", "decision", "commitment", "event", "belief")
ORIGINS = ("source", "user_belief", "agent_inference")
"""Spec: records-and-ontology, Claims."""
CLAIM_DATES = ("occurred_at", "due_at")
"""Date or timestamp (spec: records-and-ontology, Optional assertion fields)."""
UTC_DATES = ("valid_from", "valid_until", "expires_at")
"""UTC timestamps only (same table)."""


class DraftError(Exception):
    """A file the form cannot read: `line` is the file's 1-based line, when known."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return f"Line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True, slots=True)
class Draft:
    data: dict[str, Any]
    body: str
    key_lines: dict[str, int]
    """Top-level key -> its 1-based file line."""


def read(text: str) -> Draft:
    """The frontmatter and body of `text`; DraftError with the line of what is wrong."""
    try:
        split = fm.split(text)
    except fm.FrontmatterError as exc:
        raise DraftError(exc.message, exc.line) from None
    if split is None:
        raise DraftError("the file must start with a --- line opening its frontmatter", 1)
    try:
        loaded = yaml12.load(split.yaml_text, split.yaml_first_line)
    except yaml12.YamlError as exc:
        line = None if exc.line is None else exc.line + split.yaml_first_line
        raise DraftError(exc.message, line) from None
    if not isinstance(loaded.data, dict):
        raise DraftError("the frontmatter must be a mapping of keys to values", split.yaml_first_line)
    lines = {k: v + split.yaml_first_line for k, v in loaded.key_lines.items() if "." not in k}
    return Draft(loaded.data, split.body, lines)


def write(text: str, changes: Mapping[str, Any], body: str | None = None) -> str:
    """`text` with the keys in `changes` set (None or empty: removed) and its body replaced."""
    wanted = {k: DELETE if v is None or v in ("", [], {}) else v for k, v in changes.items()}
    out = update_frontmatter(text, wanted)
    if body is None:
        return out
    split = fm.split(out)
    if split is None:  # update_frontmatter refuses a file without frontmatter
        return out
    head_lines = split.body_first_line - 1
    head = "".join(out.splitlines(keepends=True)[:head_lines])
    if not head.endswith("\n"):
        head += "\n"
    return head + (body if not body or body.endswith("\n") else body + "\n")


def field_of(draft_text: str, line: int | None, message: str, keys: Collection[str]) -> str | None:
    """The form's key a refusal's diagnostic is about: the key its message starts with
    (`fields.hypothesis is required…`, `evidence must not be empty`), else the key on its line."""
    named = _NAMED.match(message)
    if named is not None and named.group(1) in keys:
        return named.group(1)
    key = field_at(draft_text, line)
    return key if key is not None and key in keys else None


_NAMED = re.compile(r"^([a-z_]+)\b")


def field_at(draft_text: str, line: int | None) -> str | None:
    """The top-level key whose lines hold line `line` of the file as the engine checks it:
    the draft with the keys the store adds (a line or so each) already in their places."""
    if line is None:
        return None
    try:
        data = read(draft_text).data
        kind = str(data.get("kind") or "claim")
        submitted = drafts.Draft(draft_text, data)
        written = drafts.complete(submitted, record_id="id", kind=kind, scope="s", now="t", supersedes="id")
        lines = read(written).key_lines
    except (DraftError, WriteRejected):
        return None
    before = [(at, key) for key, at in lines.items() if at <= line]
    return max(before)[1] if before else None


def skeleton(kind: str) -> str:
    """The file a New… form starts from: its kind and an empty title, in the envelope's order
    (the form's other keys follow them)."""
    return f"---\nkind: {kind}\ntitle: ''\n---\n"
