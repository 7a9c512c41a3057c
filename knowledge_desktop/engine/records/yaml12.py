"""The read path for frontmatter: libyaml speed with YAML 1.2 core-schema meaning.

ruamel.yaml's round-trip loader keeps comments and order, which writes need,
but it is pure Python and costs about 4 ms a record. Here libyaml (PyYAML's C
parser) produces the event stream and one small loop builds plain data from
it, in one pass that also notes the line of every key and enforces limits.

Meaning follows the YAML 1.2 core schema, not PyYAML's YAML 1.1 default:
only true/false are booleans (`yes`/`on` stay text), dates and timestamps
stay the raw text the spec's date rules need, `0o17`/`0x1f` are integers,
and `<<` is an ordinary key. Duplicate keys are errors (YAML 1.2 requires
unique keys). Language tags such as `!!python/object` are refused. Aliases
are counted at the size of what they repeat, so an alias bomb is refused
before anything is expanded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.cyaml import CParser  # type: ignore[attr-defined]

MAX_NODES = 20_000
"""Values (scalars, lists, mappings) one YAML text may hold, an alias counted at the
size of what it repeats: an alias bomb is refused before anything is expanded."""
MAX_DEPTH = 40
"""How deep lists and mappings may nest."""


class YamlError(Exception):
    """Frontmatter YAML that cannot be accepted; `line` is 0-based within the YAML text."""

    def __init__(self, code: str, message: str, line: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line


@dataclass(slots=True)
class LoadedYaml:
    data: Any
    key_lines: dict[str, int]
    """Dotted key path (`fields.status`, `evidence.0.path`) -> 0-based line of the key."""


_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_STR_TAGS = ("tag:yaml.org,2002:str", "!")
_CONTAINER_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", None, "!")


def _plain_scalar(value: str) -> Any:
    """A plain (unquoted) scalar resolved by the YAML 1.2 core schema."""
    first = value[:1]
    if first in ("", "~", "n", "N") and _NULL.match(value):
        return None
    if first in ("t", "T", "f", "F"):
        return _BOOL.get(value, value)
    if first in "-+0123456789.":
        if _INT.match(value):
            return int(value, 10)
        if _OCT.match(value):
            return int(value[2:], 8)
        if _HEX.match(value):
            return int(value[2:], 16)
        if _FLOAT.match(value):
            return float(value)
        if _INF.match(value):
            return -math.inf if value.startswith("-") else math.inf
        if _NAN.match(value):
            return math.nan
    return value


resolve_plain = _plain_scalar
"""What a plain scalar means to the reader (the write path asks before leaving a string unquoted)."""


def _tagged_scalar(event: Any) -> Any:
    tag = event.tag
    if tag in _STR_TAGS:
        return event.value
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool" and event.value in _BOOL:
        return _BOOL[event.value]
    if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        resolved = _plain_scalar(event.value)
        if isinstance(resolved, int | float) and not isinstance(resolved, bool):
            return float(resolved) if tag.endswith("float") else resolved
    raise YamlError("yaml-syntax", _tag_message(tag), event.start_mark.line)


def _tag_message(tag: str) -> str:
    shown = tag.replace("tag:yaml.org,2002:", "!!")
    return f"the tag {shown} is not allowed: frontmatter holds plain text, numbers, lists and mappings"


class _Frame:
    __slots__ = ("container", "is_map", "key", "key_line", "path", "size")

    def __init__(self, container: Any, path: str) -> None:
        self.container = container
        self.is_map = isinstance(container, dict)
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.path = path
        self.size = 1


_NO_KEY = object()


def load(text: str, first_line: int = 1) -> LoadedYaml:
    """Parse one YAML document as plain JSON-like data, or raise `YamlError`.

    `first_line` is the file line of the text's first line, for messages that
    name another line than the one the error is reported at."""
    parser = CParser(text)
    try:
        return _build(parser, first_line)
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = _explain(exc, text, first_line)
        raise YamlError("yaml-syntax", message, mark.line if mark else None) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise YamlError("yaml-syntax", str(exc).splitlines()[0] or "invalid YAML", None) from None
    finally:
        parser.dispose()


def _explain(exc: yaml.MarkedYAMLError, text: str, first_line: int) -> str:
    """libyaml's complaint in words a person writing frontmatter understands."""
    problem = exc.problem or "invalid YAML"
    context = exc.context or ""
    opened = exc.context_mark.line + first_line if exc.context_mark is not None else None
    mark = exc.problem_mark
    if "flow sequence" in context and "expected ',' or ']'" in problem:
        return f"the [ list opened on line {opened} is not closed with ]"
    if "flow mapping" in context and "expected ',' or '}'" in problem:
        return f"the {{ mapping opened on line {opened} is not closed with }}"
    if "quoted scalar" in context and "end of stream" in problem:
        return f"the quoted text opened on line {opened} is never closed"
    if problem == "found character that cannot start any token" and mark is not None:
        lines = text.split("\n")
        line = lines[mark.line] if mark.line < len(lines) else ""
        char = line[mark.column : mark.column + 1]
        if char == "\t":
            return "a tab character here: YAML indents with spaces, never tabs"
        return f"{char!r} cannot start a value here; put the value in quotes"
    if problem == "mapping values are not allowed in this context":
        return "a ': ' inside a value that is not quoted; put the value in quotes"
    if problem.startswith(("did not find expected key", "expected <block end>")):
        return "this line's indentation does not match the keys above it"
    if "expected '-' indicator" in problem:
        return "a list item ('- ') was expected here; check the indentation"
    if problem == "found unknown escape character":
        return "an unknown \\ escape in double-quoted text; use single quotes or write \\\\"
    if context and opened is not None:
        return f"{problem} ({context} on line {opened})"
    return problem


def _build(parser: Any, first_line: int) -> LoadedYaml:
    key_lines: dict[str, int] = {}
    anchors: dict[str, tuple[Any, int]] = {}
    stack: list[_Frame] = []
    root: Any = None
    total = 0
    documents = 0
    pending_anchor: list[tuple[str, _Frame]] = []

    def place(value: Any, size: int, line: int) -> None:
        nonlocal root, total
        total += size
        if total > MAX_NODES:
            raise YamlError(
                "yaml-too-complex",
                f"the YAML expands to more than {MAX_NODES:,} values (aliases count at the size of"
                " what they repeat); it is not read",
                line,
            )
        if not stack:
            root = value
            return
        frame = stack[-1]
        frame.size += size
        if not frame.is_map:
            frame.container.append(value)
            return
        if frame.key is _NO_KEY:
            if isinstance(value, dict | list):
                raise YamlError("yaml-syntax", "a mapping or list cannot be a key", line)
            key = _key_text(value)
            if key in frame.container:
                first = key_lines.get(f"{frame.path}{key}", frame.key_line) + first_line
                raise YamlError(
                    "yaml-duplicate-key", f"the key {key!r} is given twice (first on line {first})", line
                )
            frame.key = key
            frame.key_line = line
            key_lines.setdefault(f"{frame.path}{key}", line)
            return
        frame.container[frame.key] = value
        frame.key = _NO_KEY

    def child_path() -> str:
        if not stack:
            return ""
        frame = stack[-1]
        if frame.is_map:
            return f"{frame.path}{frame.key}."
        return f"{frame.path}{len(frame.container)}."

    while True:
        event = parser.get_event()
        if event is None:
            break
        kind = type(event)
        if kind is yaml.ScalarEvent:
            line = event.start_mark.line
            at_key = bool(stack) and stack[-1].is_map and stack[-1].key is _NO_KEY
            if at_key and (not event.style or event.implicit[1]):
                value = event.value  # keys keep their text: `0x10:` is the key "0x10"
            elif not event.style and event.implicit[0]:  # plain (libyaml gives "" as style)
                value = _plain_scalar(event.value)
            elif event.tag is None or event.implicit[1]:
                value = event.value
            else:
                value = _tagged_scalar(event)
            if stack and not stack[-1].is_map:
                key_lines.setdefault(f"{stack[-1].path}{len(stack[-1].container)}", line)
            if event.anchor:
                anchors[event.anchor] = (value, 1)
            place(value, 1, line)
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if event.tag not in _CONTAINER_TAGS:
                raise YamlError("yaml-syntax", _tag_message(event.tag), event.start_mark.line)
            if len(stack) >= MAX_DEPTH:
                raise YamlError(
                    "yaml-too-complex",
                    f"lists and mappings nest more than {MAX_DEPTH} levels deep here; it is not read",
                    event.start_mark.line,
                )
            if stack and not stack[-1].is_map:
                key_lines.setdefault(f"{stack[-1].path}{len(stack[-1].container)}", event.start_mark.line)
            if stack and stack[-1].is_map and stack[-1].key is _NO_KEY:
                raise YamlError("yaml-syntax", "a mapping or list cannot be a key", event.start_mark.line)
            path = child_path()
            frame = _Frame({} if kind is yaml.MappingStartEvent else [], path)
            frame.key_line = event.start_mark.line
            if event.anchor:
                pending_anchor.append((event.anchor, frame))
            stack.append(frame)
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            frame = stack.pop()
            for name, anchored in list(pending_anchor):
                if anchored is frame:
                    anchors[name] = (frame.container, frame.size)
                    pending_anchor.remove((name, anchored))
            # The container counts once in the total (its children were counted as
            # they came) but its parent's size grows by all of it, for aliases.
            place(frame.container, 1, event.start_mark.line)
            if stack:
                stack[-1].size += frame.size - 1
        elif kind is yaml.AliasEvent:
            if event.anchor not in anchors:
                raise YamlError(
                    "yaml-syntax",
                    f"the alias *{event.anchor} names no anchor &{event.anchor} before it",
                    event.start_mark.line,
                )
            value, size = anchors[event.anchor]
            if stack and not stack[-1].is_map:
                key_lines.setdefault(f"{stack[-1].path}{len(stack[-1].container)}", event.start_mark.line)
            place(value, size, event.start_mark.line)
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise YamlError(
                    "yaml-syntax", "the frontmatter holds more than one YAML document", event.start_mark.line
                )
    return LoadedYaml(root, key_lines)


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float) and key.is_integer():
        return repr(key)
    return str(key)
