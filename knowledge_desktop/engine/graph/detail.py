"""What a node keeps of a file's frontmatter and body, in compact form.

Frontmatter values, links, evidence locators and key lines are over half of
a node's weight, but only the file's own derivation and projection rows read
them. They live in a `Detail` that a node may let go and read back from the
parse cache (see `node.DetailSource`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from knowledge_desktop.engine.records.notes import NoteMeta
from knowledge_desktop.engine.records.parse import ParsedFile

REFERENCE_FIELDS = ("from", "to", "entities", "owner", "dependencies")
"""References whose targets must be available for the record to be eligible."""
HISTORY_FIELDS = ("supersedes", "superseded_by", "merged_into", "merged_from")

RETAINED = (
    "title",
    "aliases",
    "revision",
    "tags",
    "recorded_at",
    "updated_at",
    "occurred_at",
    "due_at",
    "superseded_by",
    "merged_into",
    "source_event",
    "type",
    "claim_kind",
    "label",
    "fields",
    "fact",
    "valid_from",
    "filing",
)
"""Frontmatter values a node keeps as they were parsed: what derivation and the
projections (catalog, temporal, keyword, facts) read besides ids, kinds, names,
references and evidence, which are kept in their own compact form."""
_SLOT = {key: index for index, key in enumerate(RETAINED)}

LINE_KEYS = frozenset(("id", "type", "label", "fields", "lifecycle", *REFERENCE_FIELDS, *HISTORY_FIELDS))
"""Frontmatter keys whose line a derived diagnostic may cite (with fields.* and evidence.N)."""

EvidenceLocator = tuple[str | None, str | None, str | None, tuple[int, int] | None, str | None]
"""One evidence mapping as (source, path, url, lines, sha256), each None unless well-typed."""
EvidenceItem = EvidenceLocator | None
"""None for an entry that is not a mapping (it still takes an index)."""

_intern = sys.intern


class _Absent:
    """Marks a RETAINED key the frontmatter does not have (None is a value)."""

    __slots__ = ()


_ABSENT = _Absent()


class StaleDetail(RuntimeError):
    """The parse cache no longer holds the file a node describes (a bug, or the
    state database changed under the open vault)."""


class KeyLines(tuple[str | int, ...]):
    """Frontmatter key -> line, flattened (key, line, key, line …); `get` as on a dict.

    A dict per record costs several hundred bytes; derivation needs a handful
    of lines, and only when it writes a diagnostic.
    """

    __slots__ = ()

    @classmethod
    def keep(cls, key_lines: Mapping[str, int]) -> KeyLines:
        flat: list[str | int] = []
        judged = _KEPT_KEYS
        for key, line in key_lines.items():
            kept = judged.get(key)
            if kept is None:
                kept = _judge_key(key)
            if kept:
                flat += (kept, line)
        return cls(flat)

    def get(self, key: str, default: int | None = None) -> int | None:
        for index in range(0, len(self), 2):
            if self[index] == key:
                line = self[index + 1]
                return line if isinstance(line, int) else default
        return default


_KEPT_KEYS: dict[str, str] = {}
"""Each frontmatter key seen -> its interned self when `KeyLines` keeps its line, else "".
The same few dozen keys recur in every record: judging each anew was a third of building
a node (a cold scan builds one per file)."""
_KEPT_KEYS_MAX = 4096


def _judge_key(key: str) -> str:
    kept = (
        _intern(key)
        if key in LINE_KEYS
        or key.startswith("fields.")
        or (key.startswith("evidence.") and key.count(".") == 1)
        else ""
    )
    if len(_KEPT_KEYS) < _KEPT_KEYS_MAX:  # (a vault of odd keys judges the rest each time)
        _KEPT_KEYS[key] = kept
    return kept


class Detail:
    """What deriving one file reads of it that no other file's derivation does.

    A graph with a `DetailSource` lets it go once the file's rows are written
    and reads it back from the parse cache (`files.node`) when the file is
    derived again.
    """

    __slots__ = ("evidence_items", "key_lines", "link_parts", "note", "values")

    def __init__(self, parsed: ParsedFile, data: dict[str, Any], is_record: bool) -> None:
        self.key_lines = KeyLines.keep(parsed.key_lines)
        parts: list[str | int | None] = []
        for kind, target, label, line in parsed.links:
            parts += (kind, _intern(target), _intern(label) if label is not None else None, line)
        self.link_parts: tuple[str | int | None, ...] = tuple(parts)
        """(kind, target, label, line) per link, flattened: a RawLink each costs 72 bytes more."""
        self.values: tuple[Any, ...] | None = _retained_values(data) if data else None
        self.evidence_items: tuple[EvidenceItem, ...] | None = (
            _evidence_items(data.get("evidence")) if is_record else None
        )
        """The evidence locators evidence checking reads; None when `evidence` is not a list."""
        self.note: NoteMeta | None = parsed.note
        """A note's metadata (what its catalog row lists); None for any other file."""

    def value(self, key: str) -> Any:
        """A RETAINED frontmatter value, None when absent."""
        if self.values is None:
            return None
        found = self.values[_SLOT[key]]
        return None if found is _ABSENT else found


def _retained_values(data: dict[str, Any]) -> tuple[Any, ...]:
    """The RETAINED values of a frontmatter, in RETAINED's order, `_ABSENT` for a missing
    key, each in its cheapest equal form: recurring strings interned."""
    get = data.get
    values = [get(key, _ABSENT) for key in RETAINED]
    for slot in _INTERNED_SLOTS:
        value = values[slot]
        if isinstance(value, str):
            values[slot] = _intern(value)
    tags = values[_TAGS]
    if isinstance(tags, list):
        values[_TAGS] = [_intern(v) if isinstance(v, str) else v for v in tags]
    fields = values[_FIELDS]
    if isinstance(fields, dict):
        values[_FIELDS] = {_intern(k) if isinstance(k, str) else k: v for k, v in fields.items()}
    return tuple(values)


_INTERNED_SLOTS = tuple(_SLOT[key] for key in ("type", "claim_kind", "label", "merged_into", "superseded_by"))
_TAGS = _SLOT["tags"]
_FIELDS = _SLOT["fields"]


def _evidence_items(items: Any) -> tuple[EvidenceItem, ...] | None:
    """Evidence as the locators `evidence.check` reads; quotes and attribution are dropped."""
    if not isinstance(items, list):
        return None
    out: list[EvidenceItem] = []
    for item in items:
        if not isinstance(item, dict):
            out.append(None)
            continue
        get = item.get
        source, path, url, sha = get("source"), get("path"), get("url"), get("sha256")
        out.append(
            (
                _intern(source) if isinstance(source, str) else None,
                path if isinstance(path, str) else None,
                url if isinstance(url, str) else None,
                _cited_lines(item.get("lines")),
                sha if isinstance(sha, str) else None,
            )
        )
    return tuple(out)


def _cited_lines(raw: object) -> tuple[int, int] | None:
    """An evidence item's `lines: [start, end]` as a pair, or None when absent or malformed
    (the shape is validated, and diagnosed, by the record models)."""
    if (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
    ):
        return (raw[0], raw[1])
    return None
