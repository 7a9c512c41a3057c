"""Ontology manifests as pydantic models (spec: records-and-ontology, Ontology)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictStr

FORMAT = "knowledge-ontology-v1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")

FieldType = Literal["string", "number", "boolean", "string-array"]
Primitive = Literal["entity", "media", "temporal", "annotation", "concept"]


def _name(value: str) -> str:
    if not _NAME.match(value):
        raise ValueError("a name is letters, digits, '_', '-' or '.', starting with a letter or digit")
    return value


def _directory(value: str) -> str:
    if not value or value.startswith("/") or ".." in value.split("/"):
        raise ValueError("a directory is a relative folder inside the partition, such as people/")
    return value if value.endswith("/") else value + "/"


Name = Annotated[StrictStr, AfterValidator(_name)]
Directory = Annotated[StrictStr, AfterValidator(_directory)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldDefinition(_Strict):
    name: Name
    label: StrictStr | None = None
    description: StrictStr | None = None
    type: FieldType = "string"
    required: StrictBool = False
    values: list[StrictStr] | None = None


class Behaviors(_Strict):
    """Declarations only: no extraction or expert service runs."""

    extractable: StrictBool = False
    expert_routing: StrictBool = False


class Definition(_Strict):
    name: Name
    label: StrictStr | None = None
    description: StrictStr | None = None
    kind: Literal["page", "relationship"]
    primitive: Primitive | None = None
    directory: Directory | None = None
    aliases: list[Name] = []
    prefixes: list[Directory] | None = None
    """Ordered path prefixes that classify untyped pages; defaults to `directory`."""
    fields: list[FieldDefinition] = []
    from_types: list[Name] = []
    to_types: list[Name] = []
    behaviors: Behaviors = Behaviors()

    def effective_prefixes(self) -> list[str]:
        if self.prefixes is not None:
            return list(self.prefixes)
        return [self.directory] if self.directory else []


class Borrow(_Strict):
    ontology: Name
    types: list[Name] = []
    relationships: list[Name] = []


class Manifest(_Strict):
    format: Literal["knowledge-ontology-v1"]
    name: Name
    version: Annotated[StrictStr, Field(min_length=1)]
    description: StrictStr | None = None
    extends: Name | None = None
    borrow_from: list[Borrow] = []
    definitions: list[Definition] = []
