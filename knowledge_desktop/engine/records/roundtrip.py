"""The write path for frontmatter: change the keys an operation owns, keep every other byte.

Spec (records-and-ontology, Records): unknown frontmatter survives page
saves. We go further and keep the file's bytes: a save changes the lines of
the keys it sets and nothing else — not the other keys' comments, order,
quoting, indentation or flow style, not the closing `---` line, not the body.
A ruamel.yaml round trip keeps comments and order but re-indents sequences
(`- a` under a key becomes `  - a`) and re-spaces flow collections, so a
one-key save of an Obsidian note rewrote half its frontmatter; see
docs/decisions.md ("Writing files").

How: libyaml composes the frontmatter into nodes with their start and end
marks, which give each top-level key's lines. A changed key's lines are
replaced by freshly emitted YAML (`emit.py`), a removed key's lines are
dropped, a new key is inserted after a named key or at the end, and the
result is read back with the reader's own YAML loader to prove it holds
exactly the values asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.records.emit import Style, emit_entry

_DELETE = object()
DELETE: Any = _DELETE
"""Pass as a value to remove a key."""
START = ""
"""An `after` anchor: insert the new key before every other key."""


def update_frontmatter(
    text: str, changes: Mapping[str, Any], *, after: Mapping[str, str] | None = None
) -> str:
    """Return `text` with top-level frontmatter keys set (or removed with DELETE).

    A key that exists keeps its place (and a single-line value its trailing
    comment and quote style); a new key goes after the key `after` names
    (`START`: first), else at the end. Every line of every other key, every
    comment between keys and the body are kept byte for byte. Raises
    ValueError when the file has no frontmatter or its YAML cannot be read.
    """
    head, yaml_text, tail = _parts(text)
    newline = "\r\n" if "\r\n" in yaml_text or (not yaml_text and "\r\n" in head) else "\n"
    lines = yaml_text.splitlines(keepends=True)
    spans, styles = _spans(yaml_text, lines)
    anchors = dict(after or {})
    inserts: dict[str | None, list[str]] = {}
    for key, value in changes.items():
        if key not in spans and value is not _DELETE:
            anchor = anchors.get(key)
            if anchor is not None and anchor != START and anchor not in spans and anchor not in changes:
                anchor = None
            inserts.setdefault(None if anchor is None else anchor, []).append(key)

    out: list[str] = []

    def add_new(anchor: str | None) -> None:
        for key in inserts.get(anchor, []):
            out.extend(line + newline for line in emit_entry(key, changes[key], Style()))
            add_new(key)

    add_new(START)
    starts = {start: key for key, (start, _end, _comment) in spans.items()}
    i = 0
    while i < len(lines):
        found = starts.get(i)
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        key = found
        _start, end, comment = spans[key]
        if key not in changes:
            out.extend(lines[i:end])
        elif changes[key] is not _DELETE:
            emitted = emit_entry(key, changes[key], styles[key])
            if comment and len(emitted) == 1:
                emitted[0] += comment
            out.extend(line + newline for line in emitted)
        add_new(key)
        i = end
    add_new(None)
    new_yaml = "".join(out)
    _check(new_yaml, changes)
    return head + new_yaml + tail


def replace_body(text: str, body: str) -> str:
    """`text` with everything after the frontmatter's closing line replaced by `body`."""
    head, yaml_text, tail = _parts(text)
    split = frontmatter.split(text.removeprefix("\ufeff"))
    assert split is not None  # _parts raised otherwise
    closing = tail[: len(tail) - len(split.body)] if split.body else tail
    if body and not closing.endswith("\n"):
        closing += "\r\n" if "\r\n" in yaml_text else "\n"
    return head + yaml_text + closing + body


def _parts(text: str) -> tuple[str, str, str]:
    """(the opening line with any BOM, the YAML text, the closing line and body)."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    bare = text[len(bom) :]
    try:
        split = frontmatter.split(bare)
    except frontmatter.FrontmatterError as exc:
        raise ValueError(exc.message) from None
    if split is None:
        raise ValueError("the file has no frontmatter to update")
    start = bare.find("\n") + 1
    end = start + len(split.yaml_text)
    return bom + bare[:start], bare[start:end], bare[end:]


def _spans(yaml_text: str, lines: list[str]) -> tuple[dict[str, tuple[int, int, str]], dict[str, Style]]:
    """Each top-level key's lines as (first, past-last, trailing comment), and its value's style."""
    try:
        root = yaml.compose(yaml_text, Loader=yaml.CSafeLoader) if yaml_text.strip() else None
    except yaml.YAMLError as exc:
        raise ValueError(f"the frontmatter is not valid YAML: {exc}") from None
    spans: dict[str, tuple[int, int, str]] = {}
    styles: dict[str, Style] = {}
    if root is None:
        return spans, styles
    if not isinstance(root, yaml.MappingNode):
        raise ValueError("the frontmatter is not a mapping")
    for key_node, value_node in root.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue  # a complex key: never one an operation sets
        start = key_node.start_mark.line
        mark = value_node.end_mark
        end = mark.line if mark.column == 0 else mark.line + 1
        end = min(max(end, start + 1), len(lines))
        while end > start + 1 and _blank_or_comment(lines[end - 1]):
            end -= 1
        comment = ""
        if isinstance(value_node, yaml.ScalarNode) and value_node.end_mark.line == start:
            rest = lines[start][value_node.end_mark.column :].rstrip("\r\n")
            if rest.strip().startswith("#"):
                comment = rest
        spans[key_node.value] = (start, end, comment)
        styles[key_node.value] = Style(
            quote=value_node.style if isinstance(value_node, yaml.ScalarNode) else None,
            flow=isinstance(value_node, yaml.CollectionNode) and bool(value_node.flow_style),
        )
    return spans, styles


def _blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _check(new_yaml: str, changes: Mapping[str, Any]) -> None:
    """Read the result back as the reader will: every change must hold exactly."""
    try:
        data = yaml12.load(new_yaml).data if new_yaml.strip() else {}
    except yaml12.YamlError as exc:
        raise ValueError(f"the updated frontmatter would not read back: {exc.message}") from None
    if not isinstance(data, dict):
        raise ValueError("the updated frontmatter is not a mapping")
    for key, value in changes.items():
        if value is _DELETE:
            if key in data:
                raise ValueError(f"{key} is still in the updated frontmatter")
        elif key not in data or _plain(data[key]) != _plain(value):
            raise ValueError(f"{key} would read back as {data.get(key)!r}, not {value!r}")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
