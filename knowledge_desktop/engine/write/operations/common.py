"""What the operations share: reading a submitted record file, and the fields the store owns."""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.write.plan import WriteRejected

ASSIGNED = ("id", "revision", "lifecycle", "recorded_at", "updated_at")
"""Set by the store on a new record; a submitted file must not carry them."""
LIFECYCLE_METADATA = ("supersedes", "superseded_by", "lifecycle_change", "merged_into", "merged_from")
"""Written only by the lifecycle operations, never accepted as metadata (spec:
records-and-ontology, Lifecycle and merge metadata)."""
CANONICAL = ("format", "id", "revision", "kind", "title", "scope", "lifecycle", "recorded_at", "updated_at")
"""The envelope's order, where the store puts a key it adds."""


def submitted_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter of a record file someone submitted; WriteRejected when it has none."""
    try:
        split = frontmatter.split(text.removeprefix("\ufeff"))
    except frontmatter.FrontmatterError as exc:
        raise WriteRejected("invalid-record", f"line {exc.line}: {exc.message}", {}) from None
    if split is None:
        raise WriteRejected("invalid-record", "the file has no --- frontmatter block", {})
    try:
        data = yaml12.load(split.yaml_text).data
    except yaml12.YamlError as exc:
        line = (exc.line or 0) + split.yaml_first_line
        raise WriteRejected("invalid-record", f"line {line}: {exc.message}", {}) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise WriteRejected("invalid-record", "the frontmatter is not a mapping of keys to values", {})
    return data


def anchors(keys: list[str], present: set[str]) -> dict[str, str]:
    """Where keys the store adds go: after the nearest earlier envelope key that is there
    (`roundtrip.START`, "", when none is)."""
    out: dict[str, str] = {}
    have = set(present)
    for key in keys:
        earlier = CANONICAL[: CANONICAL.index(key)] if key in CANONICAL else CANONICAL
        before = [k for k in earlier if k in have]
        out[key] = before[-1] if before else ""
        have.add(key)
    return out
