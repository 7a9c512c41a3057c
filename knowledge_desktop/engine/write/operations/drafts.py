"""A correction's replacement: a record file without the fields the store owns, made a new record.

`correct --with FILE.md` takes frontmatter and body like `new --from`
(`create.py`, whose rules and rejection codes it shares): no `id`,
`revision`, `lifecycle`, `recorded_at` or `updated_at`, and none of the
lifecycle metadata only lifecycle operations write. The operation assigns
those, and `supersedes`. The author's own keys, comments and body are kept
as written; the store's keys go where the envelope's order puts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.records.models import FORMAT
from knowledge_desktop.engine.records.roundtrip import update_frontmatter
from knowledge_desktop.engine.write.operations.common import (
    ASSIGNED,
    CANONICAL,
    LIFECYCLE_METADATA,
    anchors,
    submitted_frontmatter,
)
from knowledge_desktop.engine.write.plan import WriteRejected


@dataclass(frozen=True, slots=True)
class Draft:
    text: str
    data: dict[str, Any]

    @property
    def kind(self) -> str | None:
        value = self.data.get("kind")
        return value if isinstance(value, str) else None

    @property
    def title(self) -> str:
        value = self.data.get("title")
        return value if isinstance(value, str) else ""


def read_draft(data: bytes) -> Draft:
    """The replacement's text and frontmatter; WriteRejected (`invalid-record`) when it has
    none, (`assigned-field`) when it sets what the store assigns."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise WriteRejected("invalid-record", "the replacement is not UTF-8 text", {}) from None
    fields = submitted_frontmatter(text)
    given = [k for k in (*ASSIGNED, *LIFECYCLE_METADATA) if k in fields]
    if given:
        raise WriteRejected(
            "assigned-field",
            f"a replacement must not carry {', '.join(given)}: the correction assigns "
            + ("them" if len(given) > 1 else "it"),
            {"fields": given},
        )
    return Draft(text, fields)


def complete(draft: Draft, *, record_id: str, kind: str, scope: str, now: str, supersedes: str) -> str:
    """The draft as a new record at revision 1 that supersedes `supersedes`."""
    changes: dict[str, Any] = {}
    if draft.data.get("format") is None:
        changes["format"] = FORMAT
    changes.update(
        {"id": record_id, "revision": 1, "lifecycle": "active", "recorded_at": now, "updated_at": now}
    )
    if "kind" not in draft.data:
        changes["kind"] = kind
    if "scope" not in draft.data:
        changes["scope"] = scope
    order = [k for k in CANONICAL if k in changes]
    changes["supersedes"] = supersedes
    order.append("supersedes")
    try:
        return update_frontmatter(
            draft.text, {k: changes[k] for k in order}, after=anchors(order, set(draft.data))
        )
    except ValueError as exc:
        raise WriteRejected("invalid-record", str(exc), {}) from None
