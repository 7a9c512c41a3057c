"""The `KnowledgeEntitiesV1` shape as pydantic models, for validating a document.

Spec: knowledge-entities-extraction.md, "Shape" and "Memory relations". The
extractor builds plain dicts (its output must be byte-stable JSON); these
models check such a document from the outside: field names, the evidence
union, the bounds on ids, names, aliases, evidence, links and relations.
Unknown keys are refused so a misspelt camelCase key cannot slip through.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from knowledge_desktop.engine.extraction.bounds import (
    MAX_ALIASES,
    MAX_EVIDENCE,
    MAX_ID_CHARS,
    MAX_LINKS,
    MAX_MEMORY_RELATIONS,
    MAX_NAME_CHARS,
)

_Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
_Id = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RegionEvidence(_Strict):
    kind: Literal["document-region"]
    path: Annotated[str, StringConstraints(min_length=1)]
    lineStart: Annotated[int, Field(ge=1)]  # noqa: N815 - the spec's key
    lineEnd: Annotated[int, Field(ge=1)]  # noqa: N815
    regionHash: _Sha256  # noqa: N815


class CommitEvidence(_Strict):
    kind: Literal["commit"]
    sha: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")]


class FactEvidence(_Strict):
    kind: Literal["fact"]
    factId: _Id  # noqa: N815


Evidence = Annotated[RegionEvidence | CommitEvidence | FactEvidence, Field(discriminator="kind")]


class Link(_Strict):
    kind: Literal["affected-path", "affected-fact", "defines-symbol", "supersedes", "superseded-by"]
    target: Annotated[str, StringConstraints(min_length=1)]
    symbol: str | None = None


class Conventional(_Strict):
    type: str
    scope: str | None = None
    breaking: bool


class Entity(_Strict):
    schemaVersion: Literal[1]  # noqa: N815
    id: _Id
    kind: Literal["decision", "concept", "change"]
    name: Annotated[str, StringConstraints(max_length=MAX_NAME_CHARS)]
    aliases: Annotated[list[str], Field(max_length=MAX_ALIASES)] = []
    evidence: Annotated[list[Evidence], Field(min_length=1, max_length=MAX_EVIDENCE)]
    links: Annotated[list[Link], Field(max_length=MAX_LINKS)] = []
    status: str | None = None
    date: str | None = None
    conventional: Conventional | None = None


class RelationEvidence(_Strict):
    kind: Literal["id", "alias", "path"]
    value: Annotated[str, StringConstraints(min_length=1)]
    rawPath: str | None = None  # noqa: N815
    factHash: _Sha256  # noqa: N815


class MemoryRelation(_Strict):
    kind: Literal["memory-supports"]
    candidateId: Annotated[str, StringConstraints(min_length=1)]  # noqa: N815
    target: _Id
    evidence: RelationEvidence


_Relations = Annotated[list[MemoryRelation], Field(min_length=1, max_length=MAX_MEMORY_RELATIONS)]


class KnowledgeEntitiesV1(_Strict):
    schemaVersion: Literal[1]  # noqa: N815
    entities: list[Entity]
    coverage: dict[str, Any]
    memoryRelations: _Relations | None = None  # noqa: N815


def validate(document: dict[str, Any]) -> KnowledgeEntitiesV1:
    """The document as models, or `pydantic.ValidationError`; relation targets must be
    entity ids of the same document (spec: "Memory relations")."""
    model = KnowledgeEntitiesV1.model_validate(document)
    ids = {e.id for e in model.entities}
    if len(ids) != len(model.entities):
        raise ValueError("entity ids are not unique")
    for r in model.memoryRelations or []:
        if r.target not in ids:
            raise ValueError(f"memory relation target {r.target!r} is not an entity of this document")
    return model
