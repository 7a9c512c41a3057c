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
bytes, 'n' normalised name, 'i' id."""


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
