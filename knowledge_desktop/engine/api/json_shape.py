"""How deep and how large a JSON value an extension hands in may be (docs/limits.md, "Calls
of extensions").

A value is measured before anything else looks at it, without recursion, so a value nested
thousands of levels deep is refused with one sentence instead of reaching a recursive
serializer (Python's `json` and the YAML writer fail on it with a `RecursionError`) or
writing a record the reader then refuses (`records/yaml12.py` reads 40 levels: a fact's
value sits two levels down in its claim's frontmatter).
"""

from __future__ import annotations

from typing import Any

MAX_JSON_DEPTH = 32
"""Levels of lists and mappings in one argument (a scalar is level 0, `[1]` level 1)."""


def json_depth(value: Any, stop: int = MAX_JSON_DEPTH + 1) -> int:
    """The nesting depth of `value`'s lists, tuples and dicts, counted without recursion; the
    count stops at `stop` (enough to tell that a value is too deep)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list | tuple):
            depth += 1
            deepest = max(deepest, depth)
            if deepest >= stop:
                return deepest
            todo.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def depth_problem(label: str, value: Any, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why `value` is too deep to take, naming it `label`; None when it is not."""
    if json_depth(value, limit + 1) > limit:
        return f"the {label} nests lists and objects more than {limit} levels deep; the limit is {limit}"
    return None
