"""The predicate vocabulary: the spec's core predicates plus those extensions declare
(spec: facts-entities-collections-api, "Core predicates" and "Requesting in the manifest"),
and how a `predicateHint` becomes a predicate.

`resolve_hint` follows the issue's order — full predicate, alias, description,
then `x.<hint>` — and is pure: the caller checks `facts.write` against what it
returns, never against the hint (`access.authorize_fact_write`), so a vague
hint cannot slip past a narrow grant.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from knowledge_desktop.engine.api.permissions import predicate_problem
from knowledge_desktop.engine.errors import ApiError

Cardinality = Literal["one", "many"]


@dataclass(frozen=True, slots=True)
class PredicateDef:
    """One predicate of a partition's vocabulary. `label` is the app's own name for a core
    predicate (what Settings › Knowledge shows); a declared one shows its `description`."""

    name: str
    cardinality: Cardinality
    description: str
    aliases: tuple[str, ...] = ()
    label: str = ""
    core: bool = False
    declared_by: tuple[str, ...] = ()


def _core(names: str, cardinalities: str, labels: str, meaning: str) -> list[PredicateDef]:
    """Rows of the spec's table: several predicates of one row share its meaning."""
    found = []
    name_list, card_list, label_list = names.split(), cardinalities.split(), labels.split("|")
    for i, name in enumerate(name_list):
        card: Cardinality = (
            "one" if (card_list[i] if len(card_list) > 1 else card_list[0]) == "one" else "many"
        )
        found.append(PredicateDef(name, card, meaning, label=label_list[i].strip(), core=True))
    return found


CORE_PREDICATES: tuple[PredicateDef, ...] = (
    *_core(
        "identity.name identity.nickname identity.birthday identity.language",
        "one many one many",
        "Name | Forms of address | Birthday | Languages spoken",
        "Who someone is: name, forms of address, birthday, languages",
    ),
    *_core(
        "contact.email contact.phone contact.address",
        "many",
        "Email address | Phone number | Postal address",
        "How to reach someone",
    ),
    *_core(
        "location.home.city location.home.address location.work.city location.timezone",
        "one",
        "City of residence | Home address | Work city | Time zone",
        "Where someone lives and works, and their time zone",
    ),
    *_core(
        "relation.family relation.spouse relation.friend relation.colleague relation.member_of",
        "many one many many many",
        "Family | Spouse or partner | Friend | Colleague | Member of",
        "How people are related; the value usually points to another entity",
    ),
    *_core(
        "work.company work.title work.project",
        "one one many",
        "Company | Job title | Projects",
        "Someone's work",
    ),
    *_core(
        "pref.food.like pref.food.dislike pref.food.diet pref.food.cuisine",
        "many",
        "Foods liked | Foods disliked | Diet | Favourite cuisines",
        "Food preferences",
    ),
    *_core(
        "pref.communication.style pref.communication.language",
        "one",
        "Communication style | Reply language",
        "How someone likes to be addressed and answered",
    ),
    *_core("schedule.routine schedule.event", "many", "Daily routine | Schedule", "Routines and plans"),
    *_core("health.allergy health.condition", "many", "Allergies | Health conditions", "Health"),
    *_core("finance.currency", "one", "Usual currency", "Money"),
)
"""Every built-in predicate, in the spec's table order."""


def normalise_hint(text: str) -> str:
    """NFKC, lowercase, trimmed, inner whitespace collapsed, a final full stop dropped: how
    aliases and descriptions are compared with a hint."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split()).rstrip(".").strip()


class Vocabulary(Mapping[str, PredicateDef]):
    """The core predicates plus a partition's declared ones, by name."""

    def __init__(self, declared: Iterable[PredicateDef] = ()) -> None:
        self._defs: dict[str, PredicateDef] = {d.name: d for d in CORE_PREDICATES}
        for d in declared:
            if d.name not in self._defs:
                self._defs[d.name] = d

    def __getitem__(self, name: str) -> PredicateDef:
        return self._defs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._defs)

    def __len__(self) -> int:
        return len(self._defs)

    def declared(self) -> list[PredicateDef]:
        return [d for d in self._defs.values() if not d.core]


class HintError(ApiError, ValueError):
    """A predicate hint that resolves to nothing usable (empty) or to several predicates."""


def _descriptions(d: PredicateDef) -> set[str]:
    """The texts a description hint may equal: the whole description, its first sentence, and
    for a core predicate its label."""
    texts = {normalise_hint(d.description)}
    first = re.split(r"(?<=[.!?])\s", d.description.strip(), maxsplit=1)[0]
    texts.add(normalise_hint(first))
    if d.label:
        texts.add(normalise_hint(d.label))
    texts.discard("")
    return texts


def _one(hint: str, matches: list[PredicateDef], how: str) -> PredicateDef | None:
    names = sorted({d.name for d in matches})
    if len(names) > 1:
        raise HintError(
            f"predicate hint {hint!r} matches the {how} of several predicates: {', '.join(names)}"
        )
    return matches[0] if matches else None


def x_predicate(hint: str) -> str:
    """`x.<hint>`: the hint made one predicate level (lowercase letters, digits, `_`)."""
    slug = re.sub(
        r"[^a-z0-9]+", "_", unicodedata.normalize("NFKD", hint).encode("ascii", "ignore").decode().lower()
    )
    slug = slug.strip("_")[:100]
    if not slug:
        raise HintError(f"predicate hint {hint!r} has no letters or digits to name a predicate with")
    return f"x.{slug}"


def resolve_hint(hint: str, vocabulary: Mapping[str, PredicateDef]) -> str:
    """The predicate `hint` stands for: a predicate of the vocabulary named exactly, else the one
    whose alias it is, else the one whose description (or first sentence, or core label) it is,
    else `x.<hint>`. A hint already written `x.…` as a valid predicate is kept as it is.
    Several predicates matching at one step is a `HintError`, never a guess."""
    text = hint.strip() if isinstance(hint, str) else ""
    if not text:
        raise HintError("a predicate hint is a non-empty string")
    if text in vocabulary:
        return text
    wanted = normalise_hint(text)
    found = _one(
        text, [d for d in vocabulary.values() if wanted in {normalise_hint(a) for a in d.aliases}], "aliases"
    )
    if found is None:
        found = _one(text, [d for d in vocabulary.values() if wanted in _descriptions(d)], "description")
    if found is not None:
        return found.name
    if text.startswith("x.") and predicate_problem(text) is None:
        return text
    return x_predicate(text)


def cardinality_of(predicate: str, vocabulary: Mapping[str, PredicateDef]) -> Cardinality:
    """A predicate's cardinality; one outside the vocabulary (an `x.` predicate) holds many values,
    so nothing is superseded by a guess."""
    found = vocabulary.get(predicate)
    return found.cardinality if found is not None else "many"
