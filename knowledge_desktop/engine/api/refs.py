"""Opaque refs: what an extension gets instead of record ids (spec: facts-entities-collections-api,
"You never get internal ids"; issue 16 §2, Refs).

A ref is `<prefix>_<26 base32 characters>`: the first 130 bits of
HMAC-SHA256(extension key, kind NUL id). Two extensions never see the same
ref for one record (each has its own random key, `grants.Extensions.key`),
and a ref tells nothing of the id. The id behind a ref can always be found
again by making the refs of the candidate ids (`resolve`), but that is one
HMAC per candidate (about a second over 100k pages on the 2-core machine), so
`RefBook` remembers each ref it hands out in `extension_refs_v1` and resolves
by one index lookup, scanning only for a ref it never issued (a lost table).

Merges: `resolve_entity` takes the candidates *including* merged pages and a
`survivor` function, so an absorbed page's old ref keeps working and lands
on the page that was kept, and a ref whose page is gone raises `NoEntity`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable, Sequence

from knowledge_desktop.engine.errors import ApiError, NoEntity
from knowledge_desktop.engine.store.db import Store

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


class RefBook:
    """The refs one extension was given, kept so that resolving one is an index lookup."""

    def __init__(self, store: Store, name: str, key: bytes) -> None:
        self.store = store
        self.name = name
        self.key = key

    def issue(self, kind: str, record_ids: Sequence[str]) -> list[str]:
        """The refs of `record_ids` (in order), remembered in one transaction."""
        refs = [make_ref(self.key, kind, i) for i in record_ids]
        missing = self._missing(refs)
        if missing:  # a read first: most refs of a lookup were handed out before, and the
            # write lock a lookup would otherwise take each time costs more than the read
            with self.store.write() as w:
                w.executemany(
                    "INSERT INTO extension_refs_v1(name, ref, kind, record_id) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT(name, ref) DO NOTHING",
                    [(self.name, r, kind, i) for r, i in zip(refs, record_ids, strict=True) if r in missing],
                )
        return refs

    def _missing(self, refs: Sequence[str]) -> set[str]:
        wanted = set(refs)
        found: set[str] = set()
        conn = self.store.reader()
        chunk = list(wanted)
        for start in range(0, len(chunk), 500):
            part = chunk[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = conn.execute(
                f"SELECT ref FROM extension_refs_v1 WHERE name=? AND ref IN ({marks})", (self.name, *part)
            )
            found.update(str(r[0]) for r in rows)
        return wanted - found

    def lookup(
        self, ref: str, kind: str | None = None, candidates: Callable[[], Iterable[str]] | None = None
    ) -> str | None:
        """The id behind `ref`: from the refs issued (checked against the key, so an edited row
        means nothing), else by scanning `candidates()` when given (and remembered then)."""
        found_kind = ref_kind(ref)
        if kind is not None and found_kind != kind:
            raise BadRef(f"{ref!r} is a {found_kind} ref, not a {kind} ref")
        row = (
            self.store.reader()
            .execute("SELECT record_id FROM extension_refs_v1 WHERE name=? AND ref=?", (self.name, ref))
            .fetchone()
        )
        if row is not None and hmac.compare_digest(make_ref(self.key, found_kind, str(row[0])), ref):
            return str(row[0])
        if candidates is None:
            return None
        found = resolve(self.key, ref, candidates(), kind=found_kind)
        if found is not None:
            self.issue(found_kind, [found])
        return found

    def entity(
        self,
        ref: str,
        candidates: Callable[[], Iterable[str]] | None = None,
        survivor: Callable[[str], str | None] = lambda i: i,
    ) -> str:
        """The current entity an entity ref stands for (through merges); `NoEntity` otherwise."""
        found = self.lookup(ref, "entity", candidates)
        current = survivor(found) if found is not None else None
        if current is None:
            raise NoEntity(f"no entity for ref {ref}: it was deleted or never existed; resolve it again")
        return current

    def forget(self) -> None:
        """Drop every ref this extension was given (uninstall: its private state goes)."""
        with self.store.write() as w:
            w.execute("DELETE FROM extension_refs_v1 WHERE name=?", (self.name,))
