"""One method of the knowledge API as a tool: its name, description, JSON Schema and how it
runs on an `Extension` (the table of all of them is `api/tools.py`).

A tool answers JSON-able data: a typed result's `as_json()`, a list of them, or
None. A refused or invalid call raises the engine's error (`PermissionRefused`,
`QueryError`, …), whose message the MCP server hands the client as the tool's
error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.api.extension import Extension
from knowledge_desktop.engine.api.json_shape import depth_problem
from knowledge_desktop.engine.api.quotas import MAX_BODY_CHARS
from knowledge_desktop.engine.errors import QueryError

Args = Mapping[str, Any]
MAX_ARGUMENTS_CHARS = MAX_BODY_CHARS + 1_000_000
"""One call's arguments as JSON: the largest document body and room for the rest."""

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def to_json(result: object) -> Any:
    """A tool's answer as JSON data: `as_json()` of a typed result, item by item for a list."""
    if isinstance(result, list | tuple):
        return [to_json(item) for item in result]
    as_json = getattr(result, "as_json", None)
    return as_json() if callable(as_json) else result


def text(description: str, enum: tuple[str, ...] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "description": description}
    if enum is not None:
        out["enum"] = list(enum)
    return out


def number(description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


@dataclass(frozen=True, slots=True)
class Tool:
    """One method of the knowledge API as a tool; see the module docstring."""

    method: str
    description: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...]
    run: Callable[[Extension, Args], object]

    @property
    def name(self) -> str:
        """`knowledge_` plus the method with dots as underscores (`knowledge_chronicle_day`)."""
        return "knowledge_" + self.method.replace(".", "_")

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {k: dict(v) for k, v in self.properties.items()},
            "required": list(self.required),
            "additionalProperties": False,
        }

    def check(self, args: Args) -> None:
        """A `QueryError` naming the first argument that is missing, unknown, of the wrong
        JSON type, nested too deep or too large (clients do not all check the schema before
        calling). Shape only: nothing of the vault is looked at, so this comes before the
        permission check (docs/mcp.md, "The order of a call's checks")."""
        for name, value in args.items():
            problem = depth_problem(f"argument {name!r}", value)
            if problem:
                raise QueryError(f"{self.name}: {problem}")
        size = len(json.dumps(args, ensure_ascii=False))
        if size > MAX_ARGUMENTS_CHARS:
            limit = MAX_ARGUMENTS_CHARS
            raise QueryError(
                f"{self.name}: the arguments are {size:,} characters as JSON; the limit is {limit:,}"
            )
        for name in self.required:
            if name not in args:
                raise QueryError(f"{self.name} needs the argument {name!r}")
        for name, value in args.items():
            prop = self.properties.get(name)
            if prop is None:
                known = ", ".join(self.properties) or "none"
                raise QueryError(f"{self.name} takes no argument {name!r} (it takes: {known})")
            wanted = _PY_TYPES.get(str(prop.get("type")))
            if value is None and name not in self.required:
                continue
            wrong_bool = isinstance(value, bool) and prop.get("type") == "integer"
            if wanted is not None and (not isinstance(value, wanted) or wrong_bool):
                raise QueryError(f"{self.name}: {name} must be a JSON {prop['type']}")
            item_type = _PY_TYPES.get(str(prop.get("items", {}).get("type")))
            listed = value if isinstance(value, list) else []
            if item_type is not None and not all(isinstance(item, item_type) for item in listed):
                raise QueryError(f"{self.name}: each of {name} must be a JSON {prop['items']['type']}")

    def call(self, ext: Extension, args: Args | None) -> Any:
        """Run the tool for `ext`; its JSON answer."""
        given = dict(args or {})
        self.check(given)
        given = {k: v for k, v in given.items() if v is not None}
        return to_json(self.run(ext, given))
