"""Entity kinds and identifiers as the vault keeps them (issue 16 §1; docs/decisions.md,
"The knowledge API mapped onto the vault").

An entity is a page whose type has the `entity` primitive. The spec's kinds
map to page types: `person` → `person`, `org` → `company` (whose ontology
alias is `organization`); any other kind is a page type of that name that
the partition's ontology marks `entity`. Identifiers are namespaced aliases
on the page (`email:ada@example.org`), written in the normalized form below
so the catalog's exact name lookup finds them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from knowledge_desktop.engine.errors import ApiError

KIND_TO_TYPE = {"person": "person", "org": "company"}
TYPE_TO_KIND = {"person": "person", "company": "org", "organization": "org"}
IDENTIFIER_KINDS = ("email", "phone", "domain", "url", "handle")
SELF_ALIAS = "knowledge:self"
"""The alias that designates a partition's one `self` person page."""
MAX_IDENTIFIER_CHARS = 1000
_HANDLE = re.compile(r"^([a-z][a-z0-9_.+-]{0,39}):(\S+)$")
_RESERVED_NAMESPACES = frozenset(
    {"email", "phone", "domain", "url", "http", "https", "ftp", "file", "urn", "knowledge"}
)


class IdentifierError(ApiError, ValueError):
    """An identifier that cannot be normalized (an empty phone number, a handle without a platform)."""


def page_type_for_kind(kind: str, entity_types: Collection[str]) -> str:
    """The page type a kind names in a partition whose entity page types are `entity_types`."""
    page_type = KIND_TO_TYPE.get(kind, kind)
    if page_type not in entity_types:
        raise ApiError(
            f"no entity kind {kind!r} in this partition: add a page type {page_type!r} with"
            " primitive: entity to its ontology"
        )
    return page_type


def kind_for_page_type(page_type: str) -> str:
    """The spec's kind for an entity page type (`company` → `org`; others keep their name)."""
    return TYPE_TO_KIND.get(page_type, page_type)


def _clean(value: str) -> str:
    text = unicodedata.normalize("NFKC", value).strip()
    if not text or len(text) > MAX_IDENTIFIER_CHARS or any(c in text for c in "\r\n"):
        raise IdentifierError(f"an identifier is one line of 1-{MAX_IDENTIFIER_CHARS} characters")
    return text


def normalise_identifier(kind: str, value: str) -> str:
    """The namespaced alias an identifier is kept and looked up as: `email:` lowercased,
    `phone:` a leading `+` and digits only, `domain:` lowercase without `www.` or a final dot,
    `url:` as written but with a lowercase scheme and host and no final `/`, and a handle
    `platform:account` lowercased."""
    text = _clean(value)
    if kind == "email":
        if "@" not in text.strip("@") or " " in text:
            raise IdentifierError(f"{text!r} is not an email address")
        return "email:" + text.lower()
    if kind == "phone":
        digits = re.sub(r"\D", "", text)
        if not digits:
            raise IdentifierError(f"{text!r} has no digits of a phone number")
        return (
            "phone:"
            + ("+" if text.startswith(("+", "00")) else "")
            + (digits[2:] if text.startswith("00") else digits)
        )
    if kind == "domain":
        domain = text.lower().rstrip(".")
        domain = domain[4:] if domain.startswith("www.") else domain
        if not domain or " " in domain or "/" in domain:
            raise IdentifierError(f"{text!r} is not a domain name")
        return "domain:" + domain
    if kind == "url":
        found = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]+)(.*)$", text)
        if not found or " " in text:
            raise IdentifierError(f"{text!r} is not a URL")
        rest = found.group(3).rstrip("/")
        return f"url:{found.group(1).lower()}://{found.group(2).lower()}{rest}"
    if kind == "handle":
        found = _HANDLE.match(text.lower())
        if not found or found.group(1) in _RESERVED_NAMESPACES:
            raise IdentifierError(f"{text!r}: a handle is written platform:account, as in github:ada")
        return f"{found.group(1)}:{found.group(2).lstrip('@')}"
    raise IdentifierError(f"unknown identifier {kind!r} (one of {', '.join(IDENTIFIER_KINDS)}, or name)")
