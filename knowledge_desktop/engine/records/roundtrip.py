"""The write path for frontmatter: ruamel.yaml round-trip, so a save keeps what it
does not touch — unknown keys, key order, comments, quoting — and the body's
bytes exactly (spec: records-and-ontology, Records: unknown frontmatter
survives reads and page saves).
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML

from knowledge_desktop.engine.records import frontmatter

_DELETE = object()
DELETE: Any = _DELETE
"""Pass as a value to remove a key."""


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.version = (1, 2)
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def update_frontmatter(text: str, changes: dict[str, Any]) -> str:
    """Return `text` with top-level frontmatter keys set (or removed with DELETE).

    Everything else — other keys, their order and comments, and the body —
    is kept as it was. Raises ValueError when the file has no frontmatter.
    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    split = frontmatter.split(text.removeprefix("\ufeff"))
    if split is None:
        raise ValueError("the file has no frontmatter to update")
    newline = "\r\n" if "\r\n" in split.yaml_text else "\n"
    yaml = _yaml()
    data = yaml.load(split.yaml_text)
    if not isinstance(data, dict):
        raise ValueError("the frontmatter is not a mapping")
    for key, value in changes.items():
        if value is _DELETE:
            data.pop(key, None)
        else:
            data[key] = value
    out = io.StringIO()
    yaml.dump(data, out)
    dumped = out.getvalue()
    dumped = dumped.removeprefix("%YAML 1.2\n---\n")
    if newline == "\r\n":
        dumped = dumped.replace("\r\n", "\n").replace("\n", "\r\n")
    return f"{bom}---{newline}{dumped}---{newline}{split.body}"
