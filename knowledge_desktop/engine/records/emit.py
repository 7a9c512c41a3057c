"""Emitting one frontmatter key as YAML 1.2 block text, the way the vault's records are written.

Used by `roundtrip` for the keys an operation sets. Strings are plain when
the reader (`yaml12`, the YAML 1.2 core schema) would read them back as the
same string — so timestamps stay `2026-09-28T18:30:00.000Z`, as in every
record of the demo vault, not quoted as ruamel.yaml's 1.1 habits would —
and double-quoted (JSON escapes, which YAML 1.2 shares) otherwise. A key
that was quoted keeps its quote style, and a flow sequence stays flow.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.records.yaml12 import resolve_plain

_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_UNSAFE = re.compile(r"[,\[\]{}]")


@dataclass(frozen=True, slots=True)
class Style:
    """How the value being replaced was written."""

    quote: str | None = None
    """A scalar's style: '"', "'", '|', '>' or None (plain)."""
    flow: bool = False
    """A collection written in flow style (`[a, b]`)."""


def emit_entry(key: str, value: Any, style: Style, indent: int = 0) -> list[str]:
    """The lines (without line ends) of `key: value` at `indent` spaces."""
    pad = " " * indent
    name = scalar(key, flow=False)
    if isinstance(value, Mapping):
        if not value:
            return [f"{pad}{name}: {{}}"]
        out = [f"{pad}{name}:"]
        for sub_key, sub_value in value.items():
            out += emit_entry(str(sub_key), sub_value, Style(), indent + 2)
        return out
    if isinstance(value, list | tuple):
        if not value:
            return [f"{pad}{name}: []"]
        if style.flow and all(_is_scalar(v) for v in value):
            return [f"{pad}{name}: [{', '.join(scalar(v, flow=True) for v in value)}]"]
        return [f"{pad}{name}:", *_items(list(value), indent + 2)]
    return [f"{pad}{name}: {scalar(value, flow=False, quote=style.quote)}"]


def _items(items: list[Any], indent: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    for item in items:
        if _is_scalar(item) or not item:
            out.append(f"{pad}- {_flow_or_scalar(item)}")
        elif isinstance(item, Mapping):
            lines: list[str] = []
            for sub_key, sub_value in item.items():
                lines += emit_entry(str(sub_key), sub_value, Style(), indent + 2)
            lines[0] = f"{pad}- {lines[0][indent + 2 :]}"
            out += lines
        else:  # a list in a list: JSON is YAML flow
            out.append(f"{pad}- {json.dumps(item, ensure_ascii=False)}")
    return out


def _flow_or_scalar(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return scalar(value, flow=False)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def scalar(value: Any, *, flow: bool, quote: str | None = None) -> str:
    """One scalar as YAML 1.2 text that reads back as `value`."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    text = str(value)
    if quote == "'" and text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    if quote != '"' and plain_safe(text, flow=flow):
        return text
    # JSON escapes control characters itself; other unprintables (U+2028, DEL, a character
    # past the BMP that this Python's Unicode tables do not know) get YAML's escapes: JSON's
    # `ensure_ascii` would write the last as a surrogate pair, which YAML refuses.
    return "".join(_yaml_escaped(ch) for ch in json.dumps(text, ensure_ascii=False))


def _yaml_escaped(ch: str) -> str:
    """`ch` inside a double-quoted scalar: itself, or its escape when it is not printable."""
    code = ord(ch)
    if ch.isprintable() or code < 0x20:  # C0 controls are already escaped by json.dumps
        return ch
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def plain_safe(text: str, *, flow: bool) -> bool:
    """Whether `text` can be written unquoted and read back as the same string."""
    if not text or text != text.strip() or not text.isprintable():
        return False
    if text[0] in _INDICATORS or text.endswith(":"):
        return False
    if ": " in text or " #" in text or "\t" in text:
        return False
    if flow and _FLOW_UNSAFE.search(text):
        return False
    return resolve_plain(text) == text and isinstance(resolve_plain(text), str)
