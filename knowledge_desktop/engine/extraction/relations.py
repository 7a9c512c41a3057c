"""`memoryRelations`: which memory candidates (vault claims) name which entities.

Spec: knowledge-entities-extraction.md, "Memory relations". A candidate
supports an entity when one of its tokens is exactly the entity's id, one of
its declared aliases, or the path of one of its document regions. Tokens are
the candidate's explicit references, the contents of backtick spans, Markdown
link destinations and complete whitespace-separated words (with sentence
punctuation around them set aside); a multiword alias also matches when it
is the whole text. No case folding, fuzzy matching, path normalization or
fragment stripping: a token matches byte for byte or not at all, and a token
that several entities own matches none of them. The caller's entities are
not changed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.errors import KnownError
from knowledge_desktop.engine.extraction.bounds import MAX_MEMORY_RELATIONS

_BACKTICK = re.compile(r"`([^`\n]+)`")
_DESTINATION = re.compile(
    r"\]\(\s{0,10}<?([^()\s>]{1,2048})>?(?:\s{1,10}(?:\"[^\"]{0,500}\"|'[^']{0,500}'))?\s{0,10}\)"
)
_LEADING = "([{<\"'"
_TRAILING = ")]}>\"'.,;:!?"
_KIND_ORDER = {"id": 0, "alias": 1, "path": 2}


@dataclass(frozen=True, slots=True)
class MemoryCandidate:
    """One piece of memory to link: a vault claim, by the CLI."""

    candidate_id: str
    fact: str
    """The text whose exact bytes `factHash` covers."""
    references: tuple[str, ...] = ()
    """Explicit references the candidate declares (a claim's `entities`, evidence paths)."""
    raw_path: str | None = None
    """Where the candidate came from, relative to its own root (a vault-relative path)."""


class RelationOverflow(KnownError):
    """More than 10,000 relations: the section fails rather than being cut short."""


def link_memory(
    candidates: Iterable[MemoryCandidate], entities: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The sorted, deduplicated `memory-supports` relations of `candidates` to `entities`.

    Raises `RelationOverflow` past 10,000 entries."""
    owners, kinds, multiword = _index(entities)
    found: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for c in candidates:
        fact_hash = hashlib.sha256(c.fact.encode("utf-8", "surrogatepass")).hexdigest()
        tokens = set(_tokens(c))
        whole = c.fact.strip()
        if whole in multiword:
            tokens.add(whole)
        for token in tokens:
            owner = owners.get(token)
            if owner is None or len(owner) != 1:
                continue
            (target,) = owner
            kind = kinds[token]
            key = (c.candidate_id, target, token, kind)
            if key in found:
                continue
            evidence: dict[str, Any] = {"kind": kind, "value": token}
            if c.raw_path is not None:
                evidence["rawPath"] = c.raw_path
            evidence["factHash"] = fact_hash
            found[key] = {
                "kind": "memory-supports",
                "candidateId": c.candidate_id,
                "target": target,
                "evidence": evidence,
            }
            if len(found) > MAX_MEMORY_RELATIONS:
                raise RelationOverflow(
                    f"more than {MAX_MEMORY_RELATIONS} memory relations; narrow the vault or the repository"
                )
    return [found[k] for k in sorted(found, key=lambda k: (k[0], k[1], k[2], _KIND_ORDER[k[3]]))]


def _index(entities: Sequence[dict[str, Any]]) -> tuple[dict[str, set[str]], dict[str, str], set[str]]:
    """token -> owning entity ids; token -> the strongest way it names them; multiword aliases."""
    owners: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}
    multiword: set[str] = set()

    def add(token: str, entity_id: str, kind: str) -> None:
        owners.setdefault(token, set()).add(entity_id)
        if token not in kinds or _KIND_ORDER[kind] < _KIND_ORDER[kinds[token]]:
            kinds[token] = kind

    for e in entities:
        add(e["id"], e["id"], "id")
        for alias in e.get("aliases", []):
            add(alias, e["id"], "alias")
            if len(alias.split()) > 1:
                multiword.add(alias)
        for ev in e.get("evidence", []):
            if ev.get("kind") == "document-region":
                add(ev["path"], e["id"], "path")
    return owners, kinds, multiword


def _tokens(c: MemoryCandidate) -> Iterable[str]:
    yield from c.references
    yield from _BACKTICK.findall(c.fact)
    yield from _DESTINATION.findall(c.fact)
    for word in c.fact.split():
        yield word
        bare = word.lstrip(_LEADING).rstrip(_TRAILING)
        if bare and bare != word:
            yield bare
