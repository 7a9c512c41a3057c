"""The read path for frontmatter: libyaml speed with YAML 1.2 core-schema meaning.

ruamel.yaml's round-trip loader keeps comments and order, which writes need,
but it is pure Python and costs about 4 ms a record; PyYAML's libyaml parser
costs about 0.2 ms. PyYAML's default resolver speaks YAML 1.1, though
(`yes`/`on` become booleans, `2026-09-28` becomes a date, `010` is octal), so
this module pairs the C parser with a resolver for the YAML 1.2 core schema:
booleans are only true/false, dates and timestamps stay the raw text the
spec's date validators need, and `<<` is an ordinary key.

It also guards against hostile input: duplicate keys are errors (YAML 1.2
requires unique keys), and the constructed value is walked with a node
budget so an alias bomb is refused instead of expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import yaml
from yaml.cyaml import CParser  # type: ignore[attr-defined]

MAX_NODES = 20_000
MAX_DEPTH = 40


class YamlError(Exception):
    """Frontmatter YAML that cannot be accepted; `line` is 0-based within the YAML text."""

    def __init__(self, code: str, message: str, line: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line


class _Yaml12Resolver(yaml.resolver.BaseResolver):
    """Implicit tags of the YAML 1.2 core schema (spec section 10.3)."""


_Yaml12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
_Yaml12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_Yaml12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_Yaml12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:null",
    re.compile(r"^(?:~|null|Null|NULL|)$"),
    ["~", "n", "N", ""],
)


class _Yaml12Constructor(yaml.constructor.SafeConstructor):
    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text, 10)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # unhashable key: the base class reports it
            if duplicate:
                raise YamlError("yaml-duplicate-key", f"duplicate key {key!r}", key_node.start_mark.line)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Yaml12Constructor.add_constructor(  # type: ignore[type-var]
    "tag:yaml.org,2002:int",
    _Yaml12Constructor.construct_yaml_int,
)


class _Loader(CParser, _Yaml12Constructor, _Yaml12Resolver):
    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        _Yaml12Constructor.__init__(self)
        _Yaml12Resolver.__init__(self)


@dataclass(slots=True)
class LoadedYaml:
    data: Any
    key_lines: dict[str, int]
    """Dotted key path (`fields.status`, `evidence.0.path`) -> 0-based line of the key."""


def load(text: str) -> LoadedYaml:
    """Parse one YAML document as plain JSON-like data, or raise `YamlError`."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return LoadedYaml(None, {})
        key_lines: dict[str, int] = {}
        _collect_key_lines(node, "", key_lines, [0])
        data = loader.construct_document(node)
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        raise YamlError("yaml-syntax", problem, mark.line if mark else None) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise YamlError("yaml-syntax", str(exc).splitlines()[0] or "invalid YAML", None) from None
    finally:
        loader.dispose()
    budget = [MAX_NODES]
    return LoadedYaml(_plain(data, budget, 0), key_lines)


def _collect_key_lines(node: yaml.Node, prefix: str, out: dict[str, int], count: list[int]) -> None:
    count[0] += 1
    if count[0] > MAX_NODES or len(prefix) > 512:
        raise YamlError("yaml-too-complex", "frontmatter has too many nodes", node.start_mark.line)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                path = f"{prefix}{key_node.value}"
                out.setdefault(path, key_node.start_mark.line)
                _collect_key_lines(value_node, path + ".", out, count)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = f"{prefix}{index}"
            out.setdefault(path, item.start_mark.line)
            _collect_key_lines(item, path + ".", out, count)


def _plain(value: Any, budget: list[int], depth: int) -> Any:
    """Copy `value` into fresh JSON-like data, refusing anything that expands too far.

    Aliases make a small document describe an enormous tree; counting every
    visited node (shared ones each time) bounds the work at `MAX_NODES`.
    """
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise YamlError("yaml-too-complex", "frontmatter expands past the size limit", None)
    if isinstance(value, dict):
        return {_key(k): _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v, budget, depth + 1) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        raise YamlError("yaml-syntax", "binary (!!binary) values are not accepted", None)
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)
