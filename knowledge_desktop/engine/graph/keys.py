"""The keys a derivation looks at, and the name and path forms they use.

A record's meaning depends on other files only through a few kinds of key
(a partition path, a normalised title or alias, an id). Deriving notes each
key it reads, and a change of a file touches the keys it provides; that is
all the graph needs to know which records to derive again.
"""

from __future__ import annotations

import sys
import unicodedata
from functools import lru_cache

Key = tuple[str, str, str]
"""(kind, scope, value): kind 'p' partition path (its existence), 'b' the same path's
bytes, 'n' normalised name, 'i' id; and, vault-wide (scope always ""), 'f' a Markdown
file's normalised name without `.md` and 'N' a record's normalised title or alias, which
notes' links (and records' links that fall back to notes) look up across partitions."""

VAULT_WIDE = frozenset("fN")
"""Key kinds that are not bound to a partition: their scope is always ""."""


def key_scope(kind: str, scope: str) -> str:
    """The scope a key of `kind` is filed under for a record of partition `scope`."""
    return "" if kind in VAULT_WIDE else scope


def file_key(path: str) -> str:
    """What `[[Name]]` matches of a file at `path`: its name without folder and `.md`,
    normalised as names are (case and width folded, spaces collapsed)."""
    name = path.rsplit("/", 1)[-1]
    return normalise_name(name[:-3] if name.lower().endswith(".md") else name)


@lru_cache(maxsize=65536)
def normalise_name(text: str) -> str:
    """NFKC, lowercase, trimmed, inner whitespace collapsed (spec: retrieval, lookup).

    Interned: the same name is a key in several indexes and in many records'
    watched keys, and one string serves them all.
    """
    return sys.intern(" ".join(unicodedata.normalize("NFKC", text).lower().split()))


def partition_path(path: str) -> str:
    """A vault path without its partition folder (a path outside partitions as it is)."""
    return path.split("/", 1)[1] if "/" in path else path
