"""Opaque refs: what an extension gets instead of record ids (spec: facts-entities-collections-api,
"You never get internal ids"; issue 16 §2, Refs).

A ref is `<prefix>_<26 base32 characters>`: the first 130 bits of
HMAC-SHA256(extension key, kind NUL id). Two extensions never see the same
ref for one record (each has its own random key, `grants.Extensions.key`),
a ref tells nothing of the id, and no table of refs has to be kept: the id
behind a ref is found by making the refs of the candidate ids and comparing.

Merges: `resolve_entity` takes the candidates *including* merged pages and a
`survivor` function, so an absorbed page's old ref keeps working and lands
on the page that was kept, and a ref whose page is gone raises `NoEntity`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable

from knowledge_desktop.engine.errors import ApiError, NoEntity

PREFIXES = {"entity": "ent", "fact": "fact", "document": "doc", "collection": "col", "change": "chg"}
"""Each kind of ref and the prefix that makes it recognisable in a log or a bug report."""
_KIND_OF = {v: k for k, v in PREFIXES.items()}
BODY_CHARS = 26
_REF = re.compile(rf"^([a-z]+)_([a-z2-7]{{{BODY_CHARS}}})$")


class BadRef(ApiError, ValueError):
    """A string that is not a ref of the kind expected."""


def make_ref(key: bytes, kind: str, record_id: str) -> str:
    """The ref extension-key `key` sees for record `record_id` of `kind`."""
    prefix = PREFIXES.get(kind)
    if prefix is None:
        raise ValueError(f"unknown ref kind {kind!r}")
    digest = hmac.new(key, f"{kind}\x00{record_id}".encode(), hashlib.sha256).digest()
    body = base64.b32encode(digest).decode("ascii").lower()[:BODY_CHARS]
    return f"{prefix}_{body}"


def ref_kind(ref: str) -> str:
    """The kind a ref names; `BadRef` when it is not shaped like one."""
    found = _REF.match(ref) if isinstance(ref, str) else None
    kind = _KIND_OF.get(found.group(1)) if found else None
    if kind is None:
        shown = ref if isinstance(ref, str) and len(ref) <= 80 else "…"
        raise BadRef(f"{shown!r} is not a ref")
    return kind


def resolve(key: bytes, ref: str, candidates: Iterable[str], *, kind: str | None = None) -> str | None:
    """The id among `candidates` whose ref under `key` is `ref`, or None. `kind`, when given, is
    the kind the caller expects: a ref of another kind is a `BadRef`."""
    found_kind = ref_kind(ref)
    if kind is not None and found_kind != kind:
        raise BadRef(f"{ref!r} is a {found_kind} ref, not a {kind} ref")
    for candidate in candidates:
        if hmac.compare_digest(make_ref(key, found_kind, candidate), ref):
            return candidate
    return None


def resolve_entity(
    key: bytes,
    ref: str,
    candidates: Iterable[str],
    survivor: Callable[[str], str | None] = lambda i: i,
) -> str:
    """The current entity an entity ref stands for: the matching candidate id (merged pages
    included) passed through `survivor`, which follows `merged_into` to the kept page and
    answers None for one that is gone. `NoEntity` (`no entity …`) when nothing matches."""
    found = resolve(key, ref, candidates, kind="entity")
    current = survivor(found) if found is not None else None
    if current is None:
        raise NoEntity(f"no entity for ref {ref}: it was deleted or never existed; resolve it again")
    return current
