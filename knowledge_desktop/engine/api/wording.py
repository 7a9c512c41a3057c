"""A sentence for a person for each permission: what Settings › Knowledge and the install
screen show beside its switch (spec: facts-entities-collections-api, the "Shown on the install
screen as" column, reworded in our own voice).

The sentence says what the extension could do, in the person's words: "Read
where you live", not "facts.read:self:location.home.*". Core predicates use
the app's own labels; other prefixes name the prefix itself so nothing is
hidden behind a friendly word.
"""

from __future__ import annotations

from knowledge_desktop.engine.api.permissions import Permission, as_permission
from knowledge_desktop.engine.api.predicates import CORE_PREDICATES

_LABELS = {d.name: d.label for d in CORE_PREDICATES}

_TOPICS_SELF = {
    "location.home": "where you live",
    "location.work": "where you work",
    "pref.food": "your food preferences",
    "pref.communication": "how you like to be addressed and answered",
    "identity.name": "your name",
    "schedule.routine": "your daily routine",
    "health.allergy": "your allergies",
}
_KIND_PLURALS = {"person": "people", "org": "organizations", "place": "places"}


def _kind_words(kind: str) -> str:
    return _KIND_PLURALS.get(kind, f"“{kind}” entries")


def _facts_topic(p: Permission) -> str:
    prefix = p.prefix or ""
    stem = prefix[:-2] if prefix.endswith(".*") else prefix
    if p.scope == "self":
        if stem in _LABELS and not prefix.endswith(".*"):
            return "your " + _LABELS[stem].lower()
        if stem in _TOPICS_SELF:
            return _TOPICS_SELF[stem]
        return f"facts about you under “{stem}”"
    who = _kind_words(p.scope or "")
    if stem in _LABELS and not prefix.endswith(".*"):
        return f"the “{_LABELS[stem].lower()}” of {who}"
    return f"facts about {who} under “{stem}”"


def _collection_words(target: str | None) -> str:
    return {
        "diary": "your diary",
        "keep": "your keepsakes",
        "user-selected": "the collections you choose",
    }.get(target or "", f"“{target}”")


def sentence(permission: str | Permission) -> str:
    """What holding `permission` lets an extension do, as one sentence for a person."""
    p = as_permission(permission)
    if p.data == "facts":
        verb = "Read" if p.action == "read" else "Record"
        return f"{verb} {_facts_topic(p)}"
    if p.data == "entities":
        who = _kind_words(p.scope or "")
        return {
            "resolve": f"Look up one of your {who} by email, phone, name and the like",
            "read": f"View your list of {who} and how to reach them",
            "write": f"Add {who} and their details",
        }[p.action]
    if p.data == "collections":
        return {
            "read": f"Read {_collection_words(p.scope)}",
            "write": f"Write in {_collection_words(p.scope)}",
            "create": "Create collections of its own",
            "bulk": "Write large amounts of text each day (up to 200 million characters)",
        }[p.action]
    if p.data == "changes":
        return "View and undo what any app wrote into your knowledge"
    return "Write on behalf of other apps, naming them as the origin"
