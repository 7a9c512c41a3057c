"""A record file someone wrote without the fields the store owns, made into a new record.

`correct --with FILE.md` (and `new --from`) take frontmatter and body
without `id`, `revision`, `lifecycle`, `recorded_at` or `updated_at`: the
operation assigns those. Lifecycle and merge metadata are never accepted as
arbitrary metadata either (spec: records-and-ontology, Lifecycle and merge
metadata). The author's own keys, comments and body are kept as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.records import frontmatter, yaml12
from knowledge_desktop.engine.records.roundtrip import START, update_frontmatter
from knowledge_desktop.engine.write.plan import WriteRejected

OWNED = (
    "id",
    "revision",
    "lifecycle",
    "recorded_at",
    "updated_at",
    "supersedes",
    "superseded_by",
    "lifecycle_change",
    "merged_into",
    "merged_from",
)
"""Keys the store assigns; a draft that sets them is refused."""


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


def read_draft(data: bytes, what: str = "the replacement") -> Draft:
    """The draft's text and frontmatter; WriteRejected (`draft-invalid`) when it has none
    or sets a key the store owns."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise WriteRejected("draft-invalid", f"{what} is not UTF-8 text", {}) from None
    try:
        split = frontmatter.split(text.removeprefix("\ufeff"))
        loaded = yaml12.load(split.yaml_text).data if split is not None else None
    except frontmatter.FrontmatterError as exc:
        raise WriteRejected("draft-invalid", f"{what}: {exc.message}", {"line": exc.line}) from None
    except yaml12.YamlError as exc:
        raise WriteRejected("draft-invalid", f"{what}: {exc.message}", {"line": exc.line}) from None
    if not isinstance(loaded, dict):
        raise WriteRejected("draft-invalid", f"{what} needs a YAML frontmatter block of keys and values", {})
    owned = [key for key in OWNED if key in loaded]
    if owned:
        raise WriteRejected(
            "draft-owned-field",
            f"{what} sets {', '.join(owned)}, which the operation assigns; leave them out",
            {"fields": owned},
        )
    return Draft(text, loaded)


def complete(draft: Draft, *, record_id: str, kind: str, scope: str, now: str, **extra: Any) -> str:
    """The draft as a new record at revision 1: the owned envelope keys first (after
    `format`), any `extra` keys (such as `supersedes`) after `updated_at`."""
    changes: dict[str, Any] = {}
    if "format" not in draft.data:
        changes["format"] = "knowledge-record-v1"
    changes.update({"id": record_id, "revision": 1})
    if "kind" not in draft.data:
        changes["kind"] = kind
    if "scope" not in draft.data:
        changes["scope"] = scope
    changes.update({"lifecycle": "active", "recorded_at": now, "updated_at": now, **extra})
    order = list(changes)
    after = {key: (order[i - 1] if i else START) for i, key in enumerate(order)}
    after["format"] = START
    after["id"] = "format"
    return update_frontmatter(draft.text, changes, after=after)
