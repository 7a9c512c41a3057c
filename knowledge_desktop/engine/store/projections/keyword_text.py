"""A record's search text as the keyword projection stores it, worked out where the file is read.

A cold scan reads and parses every file in worker processes (`engine/reading.py`);
the text index used to read each body from disk again in the main process and
tokenize it there, half of that process's time (issue 26). The worker that holds
the bytes now also computes, per record, what `keyword.sync` writes: the body as
stored (`packed.pack`), our tokenizer's terms (`weights.own_terms`) and the date spans
(`keyword.record_times`), in compact form. The main process then only writes rows.

The body is stored once, compressed: the FTS5 tables take their text from a view
over a table of packed bodies (`keyword.ensure`), which unpacks them with the SQL
function `store/packed.UNPACK_SQL`, which every connection to `state.sqlite` registers.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.records.parse import ParsedFile
from knowledge_desktop.engine.store.packed import pack
from knowledge_desktop.engine.store.projections import weights

LARGE = 1 << 20
"""Characters past which a file's text is left to the indexer (it reads the file again):
its list of terms could take tens of times its size, and FTS5's own count tells the
indexer first whether it has too many tokens to need them (`weights.record_terms`)."""
EXTRAS_LEVEL = 2
"""zlib's level for `RecordText.extras`: on these term ids (uint16) level 2 packs smaller
than level 1 and in about three quarters of its time (10k records: 16 MB from 29 MB)."""
TIME_FIELDS = ("occurred_at", "recorded_at", "updated_at", "due_at")
"""The date fields a keyword row keeps as spans (`keyword.record_times`), in its column order."""


@dataclass(slots=True)
class RecordText:
    """What the keyword projection writes of one record's bytes, worked out by the reader.

    A bulk write holds one for every record it read until it indexes their text, so it
    is compact: the body packed as it is stored, the rest packed together (`extras`)."""

    sha256: str
    body: str | bytes
    """The body as stored (`packed.pack`)."""
    exact: bool
    """The title, aliases and body are ASCII, where our tokenizer and FTS5's agree by
    construction: no need to check the lengths against FTS5's."""
    sizes: tuple[int, int, int] | None
    """The column lengths of our tokenizer's terms; None when it may read the text unlike
    FTS5 (`weights.own_terms`)."""
    extras: bytes
    """zlib of: the date spans joined by tabs, a newline, the terms' `vocab`, NUL, their `ids`."""

    def unpacked(self) -> tuple[tuple[str | None, ...], weights.Tokens | None]:
        """(`keyword.record_times` flattened in `TIME_FIELDS` order, our tokenizer's terms)."""
        raw = zlib.decompress(self.extras)
        cut = raw.index(b"\0")
        spans, vocab = raw[:cut].decode("utf-8").split("\n", 1)
        tokens = weights.Tokens(vocab, raw[cut + 1 :], self.sizes) if self.sizes is not None else None
        return tuple(s or None for s in spans.split("\t")), tokens


def of_record(parsed: ParsedFile, body: str, data: bytes) -> RecordText | None:
    """The search text of a parsed record from its body as the parse split it off and its
    bytes; None for other files."""
    if parsed.status != "record" or parsed.scope is None or parsed.data is None:
        return None
    if len(data) > LARGE and len(data.decode("utf-8")) > LARGE:  # (no more characters than bytes)
        return None
    from knowledge_desktop.engine.store.projections import keyword  # (it imports this module)

    try:
        return _of_record(parsed, parsed.data, body, keyword.times_of)
    except Exception:  # odd values: the indexer works them out itself, as for any file
        return None


def _of_record(parsed: ParsedFile, data: dict[str, Any], body: str, times: Any) -> RecordText:
    title = _text(data.get("title")) or ""
    aliases = "\n".join(a for a in data.get("aliases") or [] if isinstance(a, str))
    exact = title.isascii() and aliases.isascii() and body.isascii()
    spans = times(str(data.get("kind")), data.get)
    tokens = weights.own_terms((title, aliases, body))
    head = "\t".join(v or "" for field in TIME_FIELDS for v in spans[field])
    head += "\n" + (tokens.vocab if tokens is not None else "")
    raw = head.encode("utf-8") + b"\0" + (tokens.ids if tokens is not None else b"")
    extras = zlib.compress(raw, EXTRAS_LEVEL)
    return RecordText(parsed.sha256, pack(body), exact, tokens.sizes if tokens is not None else None, extras)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
