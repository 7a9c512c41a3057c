"""Pydantic models of the knowledge-record-v1 envelope and its three kinds.

Spec: records-and-ontology — Records, Pages, Claims, Relationships, Optional
assertion fields, Lifecycle and merge metadata, Automatic recall block.
Shapes the spec leaves open (ids, evidence) follow ARCHITECTURE.md.

Models validate; they never rewrite. Date fields keep the author's text (the
YAML 1.2 read path hands strings through), and unknown keys are allowed so
they survive to the catalog and to later writes.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic_core import PydanticCustomError

from knowledge_desktop.engine.records import dates

FORMAT = "knowledge-record-v1"
KINDS = ("page", "claim", "relationship")
LIFECYCLES = ("active", "superseded", "withdrawn", "merged")
CLAIM_KINDS = ("fact", "preference", "decision", "commitment", "event", "belief")
ASSERTION_ORIGINS = ("source", "user_belief", "agent_inference")

_ID = re.compile(r"^[^\s/]+$")
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


def _check_id(value: str) -> str:
    if not _ID.match(value):
        raise PydanticCustomError("record_id", "an id is a non-empty string without whitespace or '/'")
    return value


def _utc(value: str) -> str:
    try:
        dates.parse_timestamp(value, utc_only=True)
    except dates.DateFormatError as exc:
        raise PydanticCustomError("date_invalid", "{reason}", {"reason": str(exc)}) from None
    return value


def _date_or_ts(value: str) -> str:
    try:
        dates.parse_date_or_timestamp(value)
    except dates.DateFormatError as exc:
        raise PydanticCustomError("date_invalid", "{reason}", {"reason": str(exc)}) from None
    return value


def _nonblank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("empty_value", "must not be blank")
    return value


RecordId = Annotated[StrictStr, AfterValidator(_check_id)]
UtcTimestamp = Annotated[StrictStr, AfterValidator(_utc)]
DateOrTimestamp = Annotated[StrictStr, AfterValidator(_date_or_ts)]
Text = Annotated[StrictStr, AfterValidator(_nonblank)]


class _Open(BaseModel):
    """Unknown keys are kept: the spec requires they survive reads and saves."""

    model_config = ConfigDict(extra="allow", frozen=True)


class LifecycleChange(_Open):
    reason: Text
    at: UtcTimestamp
    actor: Text | None = None
    request_id: Text | None = None


class Evidence(_Open):
    """One evidence locator (ARCHITECTURE.md, Details the spec leaves open)."""

    source: RecordId | None = None
    path: Text | None = None
    url: Text | None = None
    lines: tuple[StrictInt, StrictInt] | None = None
    quote: StrictStr | None = None
    sha256: StrictStr | None = None
    attribution: StrictStr | None = None

    @model_validator(mode="after")
    def _locator(self) -> Evidence:
        if not (self.source or self.path or self.url):
            raise PydanticCustomError(
                "evidence_locator", "evidence needs at least one of source, path or url"
            )
        if self.lines is not None:
            start, end = self.lines
            if start < 1 or end < start:
                raise PydanticCustomError(
                    "evidence_lines", "lines is [start, end], one-based, with start <= end"
                )
        if self.sha256 is not None and not _SHA256.match(self.sha256):
            raise PydanticCustomError("evidence_sha256", "sha256 must be 64 hexadecimal digits")
        return self


EvidenceList = Annotated[list[Evidence], Field(min_length=1)]


def _trigger(value: str) -> str:
    if not 1 <= len(value) <= 100 or any(ch in value for ch in "\n\r;|"):
        raise PydanticCustomError(
            "recall_trigger", "a trigger is 1-100 characters without newlines, ';' or '|'"
        )
    return value


def _project(value: str) -> str:
    if any(ch in value for ch in "\n\r<>"):
        raise PydanticCustomError("recall_project", "a project key has no newlines or angle brackets")
    return value


class Recall(_Open):
    summary: Annotated[StrictStr, Field(min_length=1, max_length=500)]
    triggers: Annotated[list[Annotated[StrictStr, AfterValidator(_trigger)]], Field(max_length=20)] = []
    importance: Annotated[StrictInt, Field(ge=1, le=10)] | None = None
    projects: Annotated[
        list[Annotated[StrictStr, Field(min_length=1), AfterValidator(_project)]],
        Field(max_length=20),
    ] = []
    approved_by: Text | None = None
    approved_at: UtcTimestamp | None = None


class Envelope(_Open):
    """Fields every record has, whatever its kind."""

    format: Literal["knowledge-record-v1"]
    id: RecordId
    revision: Annotated[StrictInt, Field(gt=0)]
    kind: Literal["page", "claim", "relationship"]
    title: Text
    recorded_at: UtcTimestamp
    updated_at: UtcTimestamp
    scope: Text
    lifecycle: Literal["active", "superseded", "withdrawn", "merged"]
    aliases: list[Text] = []
    tags: list[Text] = []
    dependencies: list[RecordId] = []


class LifecycleFields(_Open):
    supersedes: RecordId | list[RecordId] | None = None
    superseded_by: RecordId | None = None
    lifecycle_change: LifecycleChange | None = None
    merged_into: RecordId | None = None
    merged_from: list[RecordId] = []


class PageFields(_Open):
    type: Annotated[StrictStr, AfterValidator(_nonblank)] | None = None
    fields: dict[str, Any] = {}
    evidence: EvidenceList | None = None


class ClaimFields(_Open):
    claim_kind: Literal["fact", "preference", "decision", "commitment", "event", "belief"]
    assertion_origin: Literal["source", "user_belief", "agent_inference"]
    attribution: Text
    evidence: EvidenceList
    entities: list[RecordId] = []
    occurred_at: DateOrTimestamp | None = None
    owner: RecordId | None = None
    due_at: DateOrTimestamp | None = None
    valid_from: UtcTimestamp | None = None
    valid_until: UtcTimestamp | None = None
    expires_at: UtcTimestamp | None = None
    source_event: bool | None = None


class RelationshipFields(_Open):
    from_: RecordId = Field(alias="from")
    to: RecordId
    label: Text
    attribution: Text
    evidence: EvidenceList
    valid_from: UtcTimestamp | None = None
    valid_until: UtcTimestamp | None = None
    expires_at: UtcTimestamp | None = None


KIND_MODELS: dict[str, type[_Open]] = {
    "page": PageFields,
    "claim": ClaimFields,
    "relationship": RelationshipFields,
}

# Optional spec fields: when present they must carry a value ("omit unknown values").
OPTIONAL_FIELDS = (
    "aliases",
    "tags",
    "dependencies",
    "type",
    "fields",
    "entities",
    "occurred_at",
    "owner",
    "due_at",
    "valid_from",
    "valid_until",
    "expires_at",
    "supersedes",
    "superseded_by",
    "lifecycle_change",
    "merged_into",
    "merged_from",
    "recall",
    "evidence",
)

# Which kinds each kind-specific field belongs to (for `field-not-applicable`).
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "type": ("page",),
    "fields": ("page",),
    "claim_kind": ("claim",),
    "assertion_origin": ("claim",),
    "entities": ("claim",),
    "occurred_at": ("claim",),
    "owner": ("claim",),
    "due_at": ("claim",),
    "source_event": ("claim",),
    "from": ("relationship",),
    "to": ("relationship",),
    "label": ("relationship",),
    "valid_from": ("claim", "relationship"),
    "valid_until": ("claim", "relationship"),
    "expires_at": ("claim", "relationship"),
    "attribution": ("claim", "relationship"),
    "merged_into": ("page",),
    "merged_from": ("page",),
}
