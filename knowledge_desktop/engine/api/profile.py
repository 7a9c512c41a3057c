"""The standing profile: `profile.get` (spec: facts-entities-collections-api, Reading facts).

The spec's profile is "the facts about the user that are pinned". We pin by
vocabulary: the profile is the current facts about `self` whose predicate is
in the partition's vocabulary — the core predicates and those an extension
declared, which Settings › Knowledge shows with their labels — intersected
with the caller's `facts.read` grants. A fact under an undeclared `x.…`
predicate is still a fact (`facts.lookup` finds it) but not part of the
profile, since no one said what it means (docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_desktop.engine.api.entities import self_page
from knowledge_desktop.engine.api.facts import clean_prefix, readable_rows
from knowledge_desktop.engine.api.session import Session
from knowledge_desktop.engine.api.vocabulary_file import load_vocabulary


@dataclass(frozen=True, slots=True)
class ProfileEntry:
    predicate: str
    value: Any

    def as_json(self) -> dict[str, Any]:
        return {"predicate": self.predicate, "value": self.value}


def get(session: Session, prefix: str | None = None) -> list[ProfileEntry]:
    """The pinned self facts under `prefix` (all when None) the extension may read; a query
    method, so what no grant covers is left out without a word (with no `facts.read:self`
    grant at all, before the self page is looked for)."""
    if not session.holds(("facts.read",), "self"):
        return []
    page = self_page(session)
    vocabulary = load_vocabulary(session.folder)
    rows = readable_rows(session, page.record_id, "self", clean_prefix(prefix))
    return [ProfileEntry(r.predicate, r.value) for r in rows if r.predicate in vocabulary]
